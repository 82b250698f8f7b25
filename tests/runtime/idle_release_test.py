"""An idle Vulkan worker gives its device up soon, and keeps its module's state.

A live lavapipe device burns ~2 cores while nothing runs (docs/vulkan_idle.md): IREE's queue
completion threads wait in a call Mesa answers by polling. These tests run real lavapipe workers
(no TensorFlow): the rule that decides when to release, the setting that overrides it, and the
CPU a worker uses while idle between calls (from /proc).
"""

import math
import os
import time
from unittest import mock

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.core import faults
from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.runtime import worker_main

# A public global: IREE exports its `global$counter$get/$set` accessors, as for every tf.Variable,
# and a release carries it over through them.
_COUNTER_MODULE = """
module @counter {
  ml_program.global public mutable @counter(dense<10.0> : tensor<f32>) : tensor<f32>
  func.func @increment(%step: tensor<f32>) -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    %1 = stablehlo.add %0, %step : tensor<f32>
    ml_program.global_store @counter = %1 : tensor<f32>
    return %1 : tensor<f32>
  }
}
"""
_IDLE_SECONDS = 2.0  # Each idle period between two calls.
_RELEASED_BY_SECONDS = 0.8
_ROUNDS = 3


def _cpu_seconds(pid: int) -> float:
  """User + system CPU seconds of a process (all its threads) so far, from /proc/<pid>/stat."""
  with open(f"/proc/{pid}/stat") as f:
    fields = f.read().rsplit(") ", 1)[1].split()
  return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_count(pid: int) -> int:
  return len(os.listdir(f"/proc/{pid}/task"))


class IdleRuleTest(absltest.TestCase):
  """When an idle device is released: the measured round trip, bounded; or a fixed setting."""

  def test_waits_for_half_a_round_trip_within_bounds(self):
    self.assertEqual(worker_main.idle_seconds(0.3), 0.15)  # Two cores spin: break-even.
    self.assertEqual(worker_main.idle_seconds(0.0), worker_main.MIN_IDLE_SECONDS)
    self.assertEqual(worker_main.idle_seconds(60.0), worker_main.MAX_IDLE_SECONDS)

  def test_a_fixed_setting_overrides_the_rule(self):
    self.assertEqual(worker_main.idle_seconds(0.3, 1.0), 1.0)
    self.assertEqual(worker_main.idle_seconds(0.3, math.inf), math.inf)

  def test_setting_values(self):
    for text, want in (("", None), ("auto", None), (" 0.5 ", 0.5), ("0", 0.0),
                       ("never", math.inf)):
      with self.subTest(text=text):
        self.assertEqual(worker_client.idle_release_setting(text), want)
    with mock.patch.dict(os.environ, {worker_client.IDLE_RELEASE_ENV: "2"}):
      self.assertEqual(worker_client.idle_release_setting(), 2.0)

  def test_a_bad_setting_is_our_fault_naming_the_valid_values(self):
    for text in ("abc", "-1", "nan", "inf", "1s"):
      with self.subTest(text=text):
        with self.assertRaisesRegex(
            worker_client.InvalidSettingError,
            rf"^{worker_client.IDLE_RELEASE_ENV}='{text}' is not valid: give 'auto', a number "
            r"of seconds >= 0 or 'never'$") as raised:
          worker_client.idle_release_setting(text)
        self.assertIsInstance(raised.exception, faults.OwnFault)

  def test_a_bad_setting_fails_before_a_worker_starts(self):
    with mock.patch.dict(os.environ, {worker_client.IDLE_RELEASE_ENV: "soon"}):
      with self.assertRaises(worker_client.InvalidSettingError):
        worker_client.WorkerModule(b"not reached", "vulkan", release_when_idle=True)


class IdleVulkanWorkerTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    available, reason = drivers.driver_available("vulkan")
    if not available:
      raise absltest.SkipTest(reason)
    import iree.compiler
    cls.vmfb = iree.compiler.compile_str(_COUNTER_MODULE, target_backends=["vulkan-spirv"],
                                         input_type="stablehlo")

  def _worker(self, setting: str) -> worker_client.WorkerModule:
    with mock.patch.dict(os.environ, {worker_client.IDLE_RELEASE_ENV: setting}):
      module = worker_client.WorkerModule(self.vmfb, "vulkan", release_when_idle=True)
    self.addCleanup(module.close)
    return module

  def _increment(self, module: worker_client.WorkerModule) -> float:
    return float(module.call("increment", [np.float32(1.0)])[0])

  def test_idle_periods_between_calls_cost_little_cpu_and_keep_state(self):
    module = self._worker("auto")
    for expected in range(11, 11 + _ROUNDS):
      self.assertEqual(self._increment(module), expected)  # State carried across each release.
      replied = time.monotonic()
      before = _cpu_seconds(module.pid)
      # Released within a fraction of the one second the worker used to hold an idle device.
      time.sleep(_RELEASED_BY_SECONDS)
      self.assertLess(_thread_count(module.pid), 5, "the idle worker still holds its device")
      released = _cpu_seconds(module.pid)
      time.sleep(_IDLE_SECONDS - _RELEASED_BY_SECONDS)
      rest = _cpu_seconds(module.pid) - released
      whole = _cpu_seconds(module.pid) - before
      idle = time.monotonic() - replied
      self.assertLess(rest, 0.05 * (_IDLE_SECONDS - _RELEASED_BY_SECONDS) + 0.02,
                      f"a worker that released its device used {rest:.2f} CPU-s")
      self.assertLess(whole, 0.25 * idle, f"{whole:.2f} CPU-s in {idle:.1f} s of idling")
    self.assertEqual(self._increment(module), 11 + _ROUNDS)

  def test_a_burst_of_calls_keeps_the_device(self):
    module = self._worker("auto")
    self._increment(module)
    threads = _thread_count(module.pid)
    for expected in range(12, 32):
      self.assertEqual(self._increment(module), expected)
      self.assertEqual(_thread_count(module.pid), threads)  # Never released between calls.

  def test_reset_after_a_release_gives_initial_values(self):
    module = self._worker("0")
    self.assertEqual(self._increment(module), 11)
    time.sleep(0.5)
    module.reset()
    self.assertEqual(self._increment(module), 11)
    time.sleep(0.5)
    self.assertEqual(self._increment(module), 12)


if __name__ == "__main__":
  absltest.main()
