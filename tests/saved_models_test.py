"""The temporary SavedModel of an import lives exactly as long as its owner (issue 19 item 2).

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
import time

from absl.testing import absltest
import tensorflow as tf

from pyiree_tf_support import importer
from pyiree_tf_support import locked_dirs
from pyiree_tf_support import saved_models

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    from pyiree_tf_support import saved_models
    with saved_models.temporary(Small()) as directory:
      print(directory, flush=True)
      sys.stdin.read()
    """)

# A real import, whose first step removes the SavedModels it judges stale.
_IMPORT = _MODULE + textwrap.dedent("""
    import os
    from pyiree_tf_support import importer
    importer.import_module(Small(), "Small")
    print("pid", os.getpid())
    """)


class Small(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x


def _env():
  return dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")


class StaleSavedModelsTest(absltest.TestCase):

  def start_holder(self):
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=_env())
    self.addCleanup(lambda: holder.poll() is None and holder.kill())
    directory = holder.stdout.readline().strip()
    self.assertTrue(os.path.isfile(os.path.join(directory, "saved_model.pb")), directory)
    return holder, directory

  def test_a_live_saved_model_survives_an_import_in_another_pid_namespace(self):
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
    fresh = tempfile.mkdtemp(prefix=PREFIX + "999999999_")
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


if __name__ == "__main__":
  absltest.main()
