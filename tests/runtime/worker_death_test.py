"""A worker that dies while idle fails only its own backend, in the next test.

Its death used to surface in the next test's setUp (reinitializing every module), which errored
that test on every backend and wrote no report.json entry. Here a real test file kills its real
Vulkan worker (SIGKILL) between two tests, under absltest and under pytest.
"""

import os
import tempfile
import textwrap

from absl.testing import absltest

from pyiree_tf_support.reporting import report_files
from pyiree_tf_support.runtime import drivers
from tests.support import test_files

BACKENDS = "--target_backends=iree_llvmcpu,iree_vulkan"

_TEST_FILE = textwrap.dedent("""
    import os
    import signal
    import time

    import numpy as np
    from pyiree_tf_support import tf_test_utils
    import tensorflow as tf

    class Double(tf.Module):

      @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
      def double(self, x):
        return 2.0 * x

    def double(module):
      module.double(np.ones([2], np.float32))

    @tf_test_utils.compile_module(Double)
    class WorkerDeathTest(tf_test_utils.TracedModuleTestCase):

      def test_1_before(self):
        self.compare_backends(double)

      def test_2_kill_the_idle_vulkan_worker(self):
        (vulkan,) = [m for m in self._tar_modules if m.backend == "iree_vulkan"]
        pid = vulkan._loaded.pid
        os.kill(pid, signal.SIGKILL)
        # Until it is dead, all its threads gone, and not reaped (WNOWAIT): what the next test
        # finds after an idle worker died.
        while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
          time.sleep(0.05)

      def test_3_after(self):
        self.compare_backends(double)

      def test_4_later(self):
        self.compare_backends(double)

    if __name__ == "__main__":
      tf.test.main()
    """)


class IdleWorkerDeathTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    available, reason = drivers.driver_available("vulkan")
    if not available:
      raise absltest.SkipTest(reason)

  def setUp(self):
    super().setUp()
    self.root = tempfile.mkdtemp()
    self.test_file = os.path.join(tempfile.mkdtemp(), "worker_death_case_test.py")
    with open(self.test_file, "w") as f:
      f.write(_TEST_FILE)

  def run_python(self, *args):
    return test_files.run_test_file(*args, BACKENDS, f"--artifacts_dir={self.root}",
                                    cwd=os.path.dirname(self.test_file), timeout=600)

  def outcomes(self, test):
    tests = report_files.load(os.path.join(self.root, "Double"))["tests"]
    (entry,) = [entry for test_id, entry in tests.items() if test_id.endswith(test)]
    return {b["backend"]: (b["outcome"], b["detail"]) for t in entry["traces"]
            for b in t["backends"]}

  def assert_only_vulkan_failed_after_the_kill(self):
    after = self.outcomes("test_3_after")
    self.assertEqual(after["iree_llvmcpu"], ("PASS", ""))
    self.assertEqual(after["iree_vulkan"][0], "RUNTIME ERROR")
    self.assertRegex(after["iree_vulkan"][1],
                     r"^resetting the module before the test raised WorkerCrashedError: IREE "
                     r"driver 'vulkan' \(isolated worker\): worker process \(pid \d+\) was killed "
                     r"by signal SIGKILL \(9\) while idle \(found before reset\)$")
    # The next test has a fresh worker.
    self.assertEqual({b: o for b, (o, _) in self.outcomes("test_4_later").items()},
                     {"iree_llvmcpu": "PASS", "iree_vulkan": "PASS"})

  def test_under_absltest_the_next_test_fails_on_the_dead_backend_only(self):
    process = self.run_python(self.test_file)
    output = process.stdout + process.stderr
    self.assertEqual(process.returncode, 1, output[-3000:])
    self.assertIn("FAIL: test_3_after", output)
    self.assertNotIn("ERROR: test_3_after", output)  # an error in setUp.
    self.assertIn("Ran 4 tests", output)
    self.assertIn("FAILED (failures=1)", output)
    self.assert_only_vulkan_failed_after_the_kill()

  def test_under_pytest_only_the_dead_backend_s_item_fails(self):
    process = self.run_python("-m", "pytest", "-p", "no:cacheprovider", "-rA", self.test_file)
    output = process.stdout + process.stderr
    self.assertEqual(process.returncode, 1, output[-3000:])
    failed = sorted(line.split("::")[-1].split()[0] for line in output.splitlines()
                    if line.startswith("FAILED "))
    self.assertEqual(failed, ["test_3_after[iree_vulkan]"], output[-3000:])
    self.assertIn("7 passed", output)
    self.assert_only_vulkan_failed_after_the_kill()


if __name__ == "__main__":
  absltest.main()
