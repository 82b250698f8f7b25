"""SavedModels: the temporary one of an import lives exactly as long as its owner,
and the one --keep_saved_model keeps follows the module.

A cleaner in another PID namespace (Bazel's linux-sandbox, a container sharing /tmp) used to see
the owner's pid as dead and delete its SavedModel mid-import. These tests run the real cleaner, a
real import, in a real new PID namespace (`unshare -p -f --mount-proc`) beside a real holder.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing import locked_dirs
from pyiree_tf_support.importing import saved_models
from tests.support.repo import ROOT

PREFIX = "pyiree_tf_support_saved_model_"

_MODULE = textwrap.dedent("""
    import tensorflow as tf

    class Small(tf.Module):

      @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
      def double(self, x):
        return 2.0 * x
    """)

# Holds a temporary SavedModel (as an import does while TF converts it) until stdin closes.
_HOLDER = _MODULE + textwrap.dedent("""
    import sys
    from pyiree_tf_support.importing import saved_models
    with saved_models.temporary(Small()) as directory:
      print(directory, flush=True)
      sys.stdin.read()
    """)

# A real import, whose first step removes the SavedModels it judges stale.
_IMPORT = _MODULE + textwrap.dedent("""
    import os
    from pyiree_tf_support.importing import importer
    importer.import_module(Small(), "Small")
    print("pid", os.getpid())
    """)


class Small(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x


def _env():
  return dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")


class StaleSavedModelsTest(absltest.TestCase):

  def start_holder(self):
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=_env())
    self.addCleanup(lambda: holder.poll() is None and holder.kill())
    directory = holder.stdout.readline().strip()
    self.assertTrue(os.path.isfile(os.path.join(directory, "saved_model.pb")), directory)
    return holder, directory

  def test_a_live_saved_model_survives_an_import_in_another_pid_namespace(self):
    probe = subprocess.run(["unshare", "-p", "-f", "--mount-proc", "true"], capture_output=True,
                           text=True, check=False)
    if probe.returncode != 0:  # e.g. a sandbox that forbids new namespaces.
      self.skipTest(f"cannot make a PID namespace here: {probe.stderr.strip()}")
    holder, directory = self.start_holder()
    process = subprocess.run(["unshare", "-p", "-f", "--mount-proc", sys.executable, "-c",
                              _IMPORT], capture_output=True, text=True, env=_env(), timeout=300,
                             check=False)
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertIn("pid 1\n", process.stdout)  # it did run in a new PID namespace.
    self.assertTrue(os.path.isfile(os.path.join(directory, "saved_model.pb")))
    self.assertTrue(os.path.isdir(os.path.join(directory, "variables")))
    holder.stdin.close()
    self.assertEqual(holder.wait(timeout=60), 0)
    self.assertFalse(os.path.exists(directory))  # its owner removes it when done.

  def test_the_saved_model_of_a_killed_owner_is_removed_by_the_next_import(self):
    holder, directory = self.start_holder()
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=60)
    self.assertTrue(os.path.exists(directory))
    importer.import_module(Small(), "Small")
    self.assertFalse(os.path.exists(directory))

  def test_a_directory_never_locked_is_removed_only_once_old(self):
    # What an owner killed between creating and locking its directory, or a version of this
    # library that named it with a pid, leaves behind.
    fresh = tempfile.mkdtemp(prefix=PREFIX + "locked_")
    old = tempfile.mkdtemp(prefix=PREFIX + "999999998_")
    self.addCleanup(shutil.rmtree, fresh, True)
    hour_ago = time.time() - locked_dirs.UNLOCKED_GRACE_SECONDS - 60
    os.utime(old, (hour_ago, hour_ago))
    importer.import_module(Small(), "Small")
    self.assertTrue(os.path.exists(fresh))
    self.assertFalse(os.path.exists(old))

  def test_the_import_s_own_directory_is_removed_and_never_named_with_a_pid(self):
    with saved_models.temporary(Small()) as directory:
      owned = os.path.dirname(directory)
      self.assertTrue(os.path.basename(owned).startswith(PREFIX))
      self.assertNotIn(str(os.getpid()), os.path.basename(owned))
      self.assertTrue(os.path.isfile(os.path.join(directory, "saved_model.pb")))
    self.assertFalse(os.path.exists(owned))


def make_module(factor: float):
  """A module class named `Scaled` (the same artifacts dir every time) multiplying by `factor`."""

  class Scaled(tf.Module):

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def scale(self, x):
      return factor * x

  return Scaled


def run_case(module_class) -> unittest.TestResult:

  @tf_test_utils.compile_module(module_class)
  class KeepTest(tf_test_utils.TracedModuleTestCase):

    def test_scale(self):
      self.compare_backends(lambda module: module.scale(np.ones([2], np.float32)))

  suite = unittest.defaultTestLoader.loadTestsFromTestCase(KeepTest)
  return unittest.TextTestRunner(stream=open(os.devnull, "w"), verbosity=0).run(suite)


class KeepSavedModelTest(absltest.TestCase):
  """--keep_saved_model: replaced (whole, in one step) when the module changed, else kept."""

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.root = tempfile.mkdtemp()
    self.module_dir = os.path.join(self.root, "Scaled")
    self.kept = os.path.join(self.module_dir, "saved_model__iree_vmla")

  def run_module(self, factor):
    with flagsaver.flagsaver(target_backends=["iree_vmla"], keep_saved_model=True,
                             artifacts_dir=self.root):
      result = run_case(make_module(factor))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)

  def kept_result(self):
    return tf.saved_model.load(self.kept).scale(np.ones([2], np.float32)).numpy().tolist()

  def test_a_changed_module_replaces_the_kept_saved_model(self):
    self.run_module(2.0)
    self.assertEqual(self.kept_result(), [2.0, 2.0])
    self.run_module(3.0)
    self.assertEqual(self.kept_result(), [3.0, 3.0])
    self.assertEqual([n for n in os.listdir(self.module_dir) if n.startswith(".tmp")], [])

  def test_an_unchanged_module_keeps_the_kept_saved_model(self):
    self.run_module(2.0)
    before = os.stat(os.path.join(self.kept, "saved_model.pb"))
    self.run_module(2.0)  # another class object, the same module.
    after = os.stat(os.path.join(self.kept, "saved_model.pb"))
    self.assertEqual((before.st_ino, before.st_mtime_ns), (after.st_ino, after.st_mtime_ns))
    self.assertEqual(self.kept_result(), [2.0, 2.0])

  def test_a_reader_never_finds_the_kept_directory_missing(self):
    destination = os.path.join(self.root, "kept")

    def version(n):
      path = os.path.join(self.root, f".tmp-kept-{n}")
      os.makedirs(path)
      for name in ("a", "b"):
        with open(os.path.join(path, name), "w") as f:
          f.write(str(n))
      return path

    safe_files.replace_dir(version(0), destination)
    seen, done = [], threading.Event()

    def read():
      while not done.is_set():
        with open(os.path.join(destination, "a")) as a:
          seen.append(a.read())

    reader = threading.Thread(target=read)
    reader.start()
    try:
      for n in range(1, 300):
        safe_files.replace_dir(version(n), destination)
    finally:
      done.set()
      reader.join()
    self.assertTrue(seen)  # the reader raised nothing: the directory was always there.
    self.assertNotIn("", seen)  # nor was it ever there half written.
    self.assertEqual(sorted(os.listdir(self.root)), ["kept"])

  def test_a_symlink_at_the_kept_path_is_replaced_not_followed(self):
    outside = tempfile.mkdtemp()
    with open(os.path.join(outside, "saved_model.pb"), "w") as f:
      f.write("not ours")
    os.makedirs(self.module_dir)
    os.symlink(outside, self.kept)
    with saved_models.temporary(make_module(2.0)()) as saved_model_dir:
      saved_models.keep(self.kept, "identity", saved_models.copy_of(saved_model_dir))
    self.assertFalse(os.path.islink(self.kept))
    self.assertEqual(saved_models.kept_identity(self.kept), "identity")
    with open(os.path.join(outside, "saved_model.pb")) as f:
      self.assertEqual(f.read(), "not ours")
    self.assertEqual(self.kept_result(), [2.0, 2.0])


if __name__ == "__main__":
  absltest.main()
