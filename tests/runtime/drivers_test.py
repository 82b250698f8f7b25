"""The driver facts table and the one place that decides whether a driver is available."""

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core import exit_status
from pyiree_tf_support.runtime import drivers


class DriverFactsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # (driver string, name, label, is_cpu, needs_staging)
      ("local_task", "local-task", "local-task", "local-task", True, False),
      ("local_sync", "local-sync", "local-sync", "local-sync", True, False),
      ("vulkan", "vulkan", "vulkan", "Vulkan", False, True),
      ("vulkan_with_device", "vulkan://0", "vulkan", "Vulkan", False, True),
      ("cuda_with_device", "cuda://GPU-1", "cuda", "CUDA", False, True),
      ("hip", "hip", "hip", "HIP", False, True),
      ("metal", "metal", "metal", "Metal", False, True),
      ("unknown_driver_is_probed", "no-such-driver", "no-such-driver", "'no-such-driver'", False,
       True),
  )
  def test_facts(self, driver, name, label, is_cpu, needs_staging):
    facts = drivers.facts(driver)
    self.assertEqual((facts.name, facts.label, facts.is_cpu, facts.needs_staging),
                     (name, label, is_cpu, needs_staging))

  def test_table_names_are_unique(self):
    names = [facts.name for facts in drivers.DRIVERS]
    self.assertLen(set(names), len(names))

  @parameterized.parameters("local-task", "local-sync")
  def test_cpu_driver_is_available_without_a_probe_process(self, driver):
    # A probe process could not start within a nanosecond: the answer comes from the table.
    self.assertEqual(drivers.probe_driver(driver, timeout=1e-9),
                     (True, f"{driver} is a CPU driver"))
    self.assertEqual(drivers.driver_available(driver, timeout=1e-9),
                     (True, f"{driver} is a CPU driver"))


class ExitStatusTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("segfault", -11, "was killed by signal SIGSEGV (11)"),
      ("kill", -9, "was killed by signal SIGKILL (9)"),
      ("abort", -6, "was killed by signal SIGABRT (6)"),
      ("unnamed_signal", -99, "was killed by signal 99"),
      ("clean_exit", 0, "exited with code 0"),
      ("error_exit", 3, "exited with code 3"),
      ("still_running", None, "stopped answering"),
  )
  def test_describe_exit(self, returncode, phrase):
    self.assertEqual(exit_status.describe_exit(returncode), phrase)

  @parameterized.parameters((11, "SIGSEGV"), (15, "SIGTERM"), (99, "signal 99"))
  def test_signal_name(self, number, name):
    self.assertEqual(exit_status.signal_name(number), name)


if __name__ == "__main__":
  absltest.main()
