"""What loading needs is started before the module exists.

A driver's availability probe runs once per process even when a background probe (`probe_soon`)
and a caller ask at once; a worker started ahead (`start_spare`) is the one the next isolated
module of the same environment runs in, has IREE's runtime imported before its first request, and
is not used when it died or the environment changed (the set-up starts both before the import:
tests/harness/set_up_early_test.py). Real probe and worker processes, a real compiled module.
"""

import os
import threading
import time

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_client

_MODULE = """
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _compile() -> bytes:
  import iree.compiler
  return iree.compiler.compile_str(_MODULE, target_backends=["vmvx"], input_type="stablehlo")


def _maps(pid: int) -> str:
  with open(f"/proc/{pid}/maps") as f:
    return f.read()


class _CountingProbe:
  """Counts the real probes run (drivers.probe_driver), for the test's lifetime."""

  def __init__(self, test: absltest.TestCase):
    self.count = 0
    real = drivers.probe_driver

    def counting(*args, **kwargs):
      self.count += 1
      time.sleep(0.2)  # a second caller arrives while the probe still runs.
      return real(*args, **kwargs)

    drivers.probe_driver = counting
    test.addCleanup(setattr, drivers, "probe_driver", real)
    saved = dict(drivers._probes)
    drivers._probes.clear()
    test.addCleanup(lambda: (drivers._probes.clear(),
                             drivers._probes.update(saved)))


class ProbeOnceTest(absltest.TestCase):

  def test_a_background_probe_and_a_caller_share_one_probe(self):
    probes = _CountingProbe(self)
    drivers.probe_soon("vulkan")
    first = drivers.driver_available("vulkan")
    self.assertEqual(drivers.driver_available("vulkan"), first)
    self.assertEqual(probes.count, 1)

  def test_concurrent_callers_share_one_probe(self):
    probes = _CountingProbe(self)
    results = []
    threads = [threading.Thread(target=lambda: results.append(drivers.driver_available("vulkan")))
               for _ in range(3)]
    for thread in threads:
      thread.start()
    for thread in threads:
      thread.join()
    self.assertLen(set(results), 1)
    self.assertEqual(probes.count, 1)

  def test_cpu_drivers_start_no_probe(self):
    _CountingProbe(self)
    drivers.probe_soon("local-task")
    self.assertNotIn("local-task", drivers._probes)


class SpareWorkerTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.vmfb = _compile()

  def setUp(self):
    super().setUp()
    worker_client.discard_spares()
    self.addCleanup(worker_client.discard_spares)

  def load(self) -> worker_client.WorkerModule:
    module = worker_client.WorkerModule(self.vmfb, "local-task")
    self.addCleanup(module.close)
    return module

  def spare_pid(self) -> int:
    worker_client.start_spare()
    (spare,) = worker_client._spares.values()
    return spare.pid

  def test_the_next_module_runs_in_the_spare_which_has_the_runtime_loaded(self):
    pid = self.spare_pid()
    deadline = time.monotonic() + 30
    while "iree" not in _maps(pid) and time.monotonic() < deadline:
      time.sleep(0.05)
    self.assertIn("_runtime", _maps(pid))  # before any request reached it.
    module = self.load()
    self.assertEqual(module.pid, pid)
    np.testing.assert_array_equal(module.call("double", [np.arange(4, dtype=np.float32)])[0],
                                  [0, 2, 4, 6])
    self.assertNotEqual(self.load().pid, pid)  # the spare is used once.

  def test_a_dead_spare_is_not_used(self):
    pid = self.spare_pid()
    os.kill(pid, 9)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    module = self.load()
    self.assertNotEqual(module.pid, pid)
    self.assertLen(module.call("double", [np.ones(4, np.float32)]), 1)

  def test_a_spare_of_another_environment_is_not_used(self):
    pid = self.spare_pid()
    os.environ["PYIREE_TF_SUPPORT_EARLY_START_TEST"] = "1"
    self.addCleanup(os.environ.pop, "PYIREE_TF_SUPPORT_EARLY_START_TEST")
    self.assertNotEqual(self.load().pid, pid)


if __name__ == "__main__":
  absltest.main()
