"""Infrastructure failures are no backend's verdict.

A full disk while writing iree_input.mlir was the IMPORT ERROR of every IREE backend (phase import,
so the list tool listed it), while saving a target's trace its RUNTIME ERROR, and while saving the
reference trace a raw traceback; none named the path. Now each errors the test with one line
naming the path and the errno, report.json records no phase for it, and the list tool's reader
(reporting/run_results.py) finds nothing to list.

Real failures only: a 64 KiB tmpfs mounted as --artifacts_dir (we are root) filled up, or
remounted read-only, by the trace function itself at the moment under test; EACCES from a child
process that gave up root.
"""

import errno
import fcntl
import io
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest
import unittest.mock

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.reporting import run_results

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
TESTS = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


class SmallModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x


class BigConstantModule(tf.Module):
  """iree_input.mlir holds the 64 KiB table in full (~130 KB of text); tf_input.mlir elides it."""

  def __init__(self):
    super().__init__()
    self.table = tf.constant(np.arange(128 * 128, dtype=np.float32).reshape(128, 128))

  @tf.function(input_signature=[tf.TensorSpec([128], tf.float32)])
  def lookup(self, x):
    return tf.linalg.matvec(self.table, x)


def mount_tmpfs(test_case: absltest.TestCase, size: str = "64k") -> str:
  directory = tempfile.mkdtemp(prefix="infra_failures_")
  # 0700: a world-writable artifacts root (tmpfs's default 1777) is refused.
  mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs",
                            directory], capture_output=True, text=True, check=False)
  if mounted.returncode != 0:
    test_case.skipTest(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
  test_case.addCleanup(os.rmdir, directory)
  test_case.addCleanup(subprocess.run, ["umount", directory], check=True)
  return directory


def fill(directory: str) -> None:
  """Writes a file in `directory` until its filesystem is full."""
  with open(os.path.join(directory, "filler"), "wb", buffering=0) as f:
    try:
      while True:
        f.write(b"\0" * 4096)
    except OSError as e:
      if e.errno != errno.ENOSPC:
        raise


def remount_read_only(directory: str) -> None:
  subprocess.run(["mount", "-o", "remount,ro", directory], check=True)


def run_case(module_class, trace_function, root: str, backends=("iree_vmla",),
             **flag_values) -> unittest.TestResult:
  cli_flags.ensure_parsed()

  @tf_test_utils.compile_module(module_class)
  class InfraTest(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  with flagsaver.flagsaver(target_backends=list(backends), artifacts_dir=root, **flag_values):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(InfraTest)
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def nth_run(n: int, action):
  """A trace function calling `double` that does `action()` first on its n-th run (1: the
  reference's, 2: the first target's)."""
  runs = []

  def trace(module):
    runs.append(None)
    if len(runs) == n:
      action()
    module.double(np.ones([2], np.float32))

  return trace


class InfraFailureTest(absltest.TestCase):

  def assert_errors_naming(self, result: unittest.TestResult, path: str, code: str):
    """One error (not a failure) of our own: the path and errno, and no backend's verdict."""
    self.assertEqual(result.failures, [])
    self.assertLen(result.errors, 1)
    text = result.errors[0][1]
    self.assertRegex(text, rf"ArtifactWriteError: Writing the artifact '{re.escape(path)}' "
                     rf"failed: {code} \(errno {getattr(errno, code)}, ")
    self.assertIn("not a backend's: no verdict was recorded", text)
    for verdict in ("IMPORT ERROR", "COMPILE ERROR", "RUNTIME ERROR", "MISMATCH"):
      self.assertNotIn(verdict, text)

  def assert_nothing_listed(self, root: str):
    """What the list tool reads holds no phase (and no cell) for this run."""
    try:
      run = run_results.from_artifacts_dir(root, [TESTS])
    except run_results.RunError as e:
      self.assertIn("no run found", str(e))
      return
    self.assertEqual({key: cell.phase for key, cell in run.cells.items() if cell.phase}, {})

  def test_disk_full_writing_iree_input_mlir(self):
    root = mount_tmpfs(self)
    result = run_case(BigConstantModule, lambda m: m.lookup(np.ones([128], np.float32)), root)
    module_dir = os.path.join(root, "BigConstantModule")
    self.assert_errors_naming(result, f"{module_dir}/iree_input.mlir", "ENOSPC")
    self.assertIn("setUpClass", str(result.errors[0][0]))
    self.assertTrue(os.path.exists(os.path.join(module_dir, "tf_input.mlir")))  # kept
    self.assertEqual([n for n in os.listdir(module_dir) if n.startswith(".tmp")], [])
    self.assert_nothing_listed(root)

  def test_disk_full_saving_a_target_s_trace(self):
    root = mount_tmpfs(self)
    result = run_case(SmallModule, nth_run(2, lambda: fill(root)), root)
    module_dir = os.path.join(root, "SmallModule")
    self.assert_errors_naming(result, f"{module_dir}/traces/trace__iree_vmla/arrays.npz",
                              "ENOSPC")
    for kept in ("iree_input.mlir", "compiled__iree_vmla.vmfb", "traces/trace__tf_ref.txt",
                 "traces/trace__tf_ref/trace.json"):
      self.assertTrue(os.path.exists(os.path.join(module_dir, kept)), kept)
    self.assertFalse(os.path.exists(os.path.join(module_dir, "report.json")))
    self.assert_nothing_listed(root)

  def test_a_listed_backend_draws_no_xpass_from_it(self):
    root = mount_tmpfs(self)
    result = run_case(SmallModule, nth_run(2, lambda: fill(root)), root,
                      xfail_backends=["iree_vmla"])
    self.assert_errors_naming(result, f"{root}/SmallModule/traces/trace__iree_vmla/arrays.npz",
                              "ENOSPC")  # and no XPASS error of tearDownClass beside it.

  def test_disk_full_saving_the_reference_trace(self):
    root = mount_tmpfs(self)
    result = run_case(SmallModule, nth_run(1, lambda: fill(root)), root)
    self.assert_errors_naming(result, f"{root}/SmallModule/traces/trace__tf_ref/arrays.npz",
                              "ENOSPC")
    self.assert_nothing_listed(root)

  def test_read_only_artifacts_dir_saving_a_target_s_trace(self):
    root = mount_tmpfs(self, "1m")
    result = run_case(SmallModule, nth_run(2, lambda: remount_read_only(root)), root)
    self.assert_errors_naming(result, f"{root}/SmallModule/traces/trace__iree_vmla/arrays.npz",
                              "EROFS")
    self.assertTrue(os.path.exists(os.path.join(root, "SmallModule", "traces",
                                                "trace__tf_ref.txt")))
    self.assert_nothing_listed(root)

  def test_no_permission_names_the_path_and_eacces(self):
    directory = tempfile.mkdtemp()  # root's, 0700: another user may not write here.
    path = os.path.join(directory, "module", "iree_input.mlir")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child gives up root, then writes; it reports through the pipe.
      os.close(read_end)
      try:
        os.setgid(65534)
        os.setuid(65534)
        safe_files.write_text(path, "text")
        report = "written"
      except faults.ArtifactWriteError as e:
        report = str(e)
      except BaseException as e:
        report = f"{type(e).__name__}: {e}"
      os.write(write_end, report.encode())
      os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
      report = f.read().decode()
    os.waitpid(pid, 0)
    self.assertEqual(report, f"Writing the artifact '{path}' failed: EACCES (errno 13, Permission "
                     "denied). This is the artifacts dir's failure, not a backend's: no verdict "
                     "was recorded (free space, or pass a writable --artifacts_dir).")


LISTED_TEST = textwrap.dedent('''
    import errno
    import os
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class SmallModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
      def double(self, x):
        return 2.0 * x

    RUNS = []

    def fill_on_the_target_run(module):
      RUNS.append(None)
      if len(RUNS) == 2:
        with open(os.path.join(os.environ["FULL_DIR"], "filler"), "wb", buffering=0) as f:
          try:
            while True:
              f.write(b"\\0" * 4096)
          except OSError as e:
            assert e.errno == errno.ENOSPC
      module.double(np.ones([2], np.float32))

    @tf_test_utils.compile_module(SmallModule)
    class ListedTest(tf_test_utils.TracedModuleTestCase):
      def test_trace(self):
        self.compare_backends(fill_on_the_target_run)
    ''')


BIG_CONSTANT_TEST = textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class BigConstantModule(tf.Module):
      def __init__(self):
        super().__init__()
        self.table = tf.constant(np.arange(128 * 128, dtype=np.float32).reshape(128, 128))

      @tf.function(input_signature=[tf.TensorSpec([128], tf.float32)])
      def lookup(self, x):
        return tf.linalg.matvec(self.table, x)

    @tf_test_utils.compile_module(BigConstantModule)
    class BigConstantTest(tf_test_utils.TracedModuleTestCase):
      def test_lookup(self):
        self.compare_backends(lambda module: module.lookup(np.ones([128], np.float32)))
    ''')


def failing_flock(suffix: str):
  """fcntl.flock failing with ENOLCK (NFS without its lock daemon) on files whose path ends with
  `suffix`, as it does on such a mount; real everywhere else."""
  real = fcntl.flock

  def flock(descriptor, operation):
    if os.readlink(f"/proc/self/fd/{descriptor}").endswith(suffix):
      raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))
    return real(descriptor, operation)

  return unittest.mock.patch.object(fcntl, "flock", flock)


class NoLocksTest(absltest.TestCase):
  """Guarantee: a file system without locks (ENOLCK) is one error of ours naming the lock file
  and what to do, never a raw OSError traceback on every test nor a backend's verdict."""

  def assert_lock_error(self, result: unittest.TestResult, path: str, fix: str) -> None:
    self.assertEqual(result.failures, [])
    self.assertLen(result.errors, 1)
    text = result.errors[0][1]
    line = [line for line in text.splitlines()
            if line.startswith("pyiree_tf_support.core.faults.LockError")]
    self.assertLen(line, 1, text)
    self.assertRegex(line[0], rf"LockError: Cannot lock '{re.escape(path)}': ENOLCK \(errno "
                     rf"{errno.ENOLCK}, [^)]*\); its file system gives no locks \(NFS without "
                     r"its lock daemon\?\)")
    self.assertIn(fix, line[0])
    for verdict in ("IMPORT ERROR", "COMPILE ERROR", "RUNTIME ERROR", "MISMATCH"):
      self.assertNotIn(verdict, text)

  def test_the_report_lock_in_the_artifacts_dir(self):
    root = tempfile.mkdtemp()
    with failing_flock(".report.lock"):
      result = run_case(SmallModule, nth_run(0, lambda: None), root)
    self.assert_lock_error(result, f"{root}/SmallModule/.report.lock",
                           "pass an --artifacts_dir on a local disk")
    self.assertTrue(os.path.exists(os.path.join(root, "SmallModule", "traces",
                                                "trace__iree_vmla.txt")))  # kept.
    InfraFailureTest.assert_nothing_listed(self, root)

  def test_the_lock_of_the_import_s_temporary_saved_model(self):
    root = tempfile.mkdtemp()
    fresh = type("FreshModule", (SmallModule,), {})  # imported by no earlier test.
    with failing_flock("/.lock-staging"):
      result = run_case(fresh, nth_run(0, lambda: None), root)
    self.assertLen(result.errors, 1, result.failures)
    path = result.errors[0][1].split("Cannot lock '", 1)[-1].split("'", 1)[0]
    self.assertTrue(path.startswith(tempfile.gettempdir()), path)
    self.assert_lock_error(result, path, "set TMPDIR to a directory on a local disk")
    self.assertIn("setUpClass", str(result.errors[0][0]))


class PytestPluginTest(absltest.TestCase):

  def test_a_listed_backend_s_infrastructure_failure_is_no_xfail(self):
    root = mount_tmpfs(self)
    work = tempfile.mkdtemp()
    for name, text in (("big_constant_test.py", BIG_CONSTANT_TEST),
                       ("listed_test.py", LISTED_TEST)):
      with open(os.path.join(work, name), "w") as f:
        f.write(text)
    with open(os.path.join(work, "BUILD.bazel"), "w") as f:
      f.write('FAILING = {"iree_vmla": {"big_constant_test.py": "listed as failing", '
              '"listed_test.py": "listed as failing"}}\n')
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2", FULL_DIR=root)
    env.pop(cli_flags.ENV_VAR, None)
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", "-rxXfE", "big_constant_test.py", "listed_test.py",
         "--target_backends=iree_vmla",
         f"--artifacts_dir={root}"],
        capture_output=True, text=True, cwd=work, env=env, timeout=600, check=False)
    out = process.stdout
    self.assertEqual(process.returncode, 1, out + process.stderr)
    self.assertIn("1 failed, 1 error", out)  # set-up errors, the test fails: neither an xfail.
    self.assertNotIn("xfail", out.lower().split("short test summary info")[-1])
    self.assertRegex(out, r"BigConstantTest.setUpClass failed, no backend's verdict:[\s\S]*"
                     r"Writing the artifact '\S+/iree_input.mlir' failed: ENOSPC")
    self.assertRegex(out, r"Writing the artifact '\S+__iree_vmla/arrays.npz' failed: ENOSPC")


if __name__ == "__main__":
  absltest.main()
