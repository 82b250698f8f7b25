"""Never hang: a stopped iree-compile, a worker stopped while loading a module
or during a call, is killed past --compile_timeout / --load_timeout / --call_timeout and is that
backend's error naming the flag; the other backends are still compared.

The hangs are real: the test SIGSTOPs the real iree-compile or Vulkan worker, found in /proc.
A test that would hang without the timeouts kills the stopped child after 90 s and then fails.
"""

import glob
import io
import json
import os
import signal
import sys
import tempfile
import threading
import time
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import timeouts
from tests.support import child_processes

# Without the timeouts each run below would wait until the stopped child is killed at 90 s.
_BOUND_SECONDS = 60.0


def _run_case(module_class, tests) -> unittest.TestResult:
  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):
    pass

  for name, trace in tests.items():
    setattr(Case, name, lambda self, trace=trace: self.compare_backends(trace))
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def _messages(result: unittest.TestResult) -> str:
  return "\n".join(text for _, text in result.failures + result.errors)


def _backends(module_dir: str, test_suffix: str) -> dict:
  """{backend: record} of report.json's first trace of the test whose id ends in the suffix."""
  with open(os.path.join(module_dir, "report.json")) as f:
    tests = json.load(f)["tests"]
  test = next(t for name, t in tests.items() if name.endswith(test_suffix))
  return {b["backend"]: b for b in test["traces"][0]["backends"]}


class TimedOutCompileModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def triple(self, x):
    return 3.0 * x

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def shift(self, x):
    return x + 7.0


class HungWorkerModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def halve(self, x):
    return 0.5 * x


class StoppedLoadModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def negate(self, x):
    return -x


class TimeoutTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.root = tempfile.mkdtemp()

  def test_stopped_compile_is_killed_and_reported_as_its_compile_error(self):
    stopper = child_processes.Stopper(
        lambda pid: child_processes.is_module_compile(pid, "vmvx"))
    started = time.monotonic()
    try:
      with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_llvmjit"],
                               artifacts_dir=self.root, compile_cache=False, compile_timeout=10):
        result = _run_case(TimedOutCompileModule,
                           {"test_triple": lambda m: m.triple(np.ones([4], np.float32))})
      elapsed = time.monotonic() - started
      stopped, still_alive = stopper.pid, stopper.pid and not child_processes.gone(stopper.pid)
    finally:
      stopper.finish()
    self.assertIsNotNone(stopped, "no iree-compile for vmvx was seen")
    self.assertFalse(still_alive, "the timed-out iree-compile is still running")
    print(f"{self._testMethodName}: {elapsed:.2f} s", file=sys.stderr)
    self.assertLess(elapsed, _BOUND_SECONDS)
    message = _messages(result)
    self.assertIn("iree_vmla: COMPILE ERROR", message)
    self.assertRegex(message, r"did not finish within 10(\.\d+)? s \(--compile_timeout=10 s")
    self.assertIn("iree_llvmjit: PASS", message)
    self.assertNotIn("compiled alone", message)  # no per-method compiles after a timeout.
    module_dir = os.path.join(self.root, "TimedOutCompileModule")
    self.assertEqual(glob.glob(os.path.join(module_dir, "*reproducer*")), [])
    records = _backends(module_dir, "test_triple")
    self.assertEqual((records["iree_vmla"]["outcome"], records["iree_vmla"]["phase"]),
                     ("COMPILE ERROR", "compile"))
    self.assertIn("--compile_timeout", records["iree_vmla"]["first_error"])
    self.assertNotIn("reproducer", records["iree_vmla"]["paths"])
    self.assertEqual(records["iree_llvmjit"]["outcome"], "PASS")

  def test_worker_stopped_during_a_call_is_killed_and_replaced_for_the_next_test(self):
    stopped = []

    def hang_on_vulkan(module):
      if module.backend == "iree_vulkan":  # stop the worker that is about to get the call.
        workers = [pid for pid in child_processes.descendants(os.getpid())
                   if child_processes.is_worker(pid) and "--serve" in child_processes.cmdline(pid)]
        for pid in workers:
          os.kill(pid, signal.SIGSTOP)
        stopped.extend(workers)
      module.halve(np.arange(4, dtype=np.float32))

    def rescue():  # without a call timeout, fail instead of hanging forever.
      time.sleep(90)
      for pid in stopped:
        if child_processes.alive(pid):
          os.kill(pid, signal.SIGKILL)

    threading.Thread(target=rescue, daemon=True).start()
    started = time.monotonic()
    with flagsaver.flagsaver(target_backends=["iree_vulkan", "iree_llvmjit"],
                             artifacts_dir=self.root, call_timeout=3):
      result = _run_case(HungWorkerModule, {
          "test_1_hangs": hang_on_vulkan,
          "test_2_runs_on_a_fresh_worker":
              lambda m: m.halve(np.ones([4], np.float32))})
    elapsed = time.monotonic() - started
    self.assertEqual(len(stopped), 1, stopped)
    self.assertTrue(child_processes.gone(stopped[0]), "the timed-out worker is still running")
    print(f"{self._testMethodName}: {elapsed:.2f} s", file=sys.stderr)
    self.assertLess(elapsed, _BOUND_SECONDS)
    self.assertEqual(result.testsRun, 2)
    self.assertEqual(len(result.failures), 1, _messages(result))
    self.assertEqual(result.errors, [])
    message = _messages(result)
    self.assertIn("test_1_hangs", str(result.failures[0][0]))
    self.assertIn("iree_vulkan: RUNTIME ERROR", message)
    self.assertRegex(message, r"did not answer within 3(\.\d+)? s \(--call_timeout=3 s")
    self.assertIn("it was killed", message)
    self.assertIn("iree_llvmjit: PASS", message)
    records = _backends(os.path.join(self.root, "HungWorkerModule"),
                        "test_2_runs_on_a_fresh_worker")
    self.assertEqual(records["iree_vulkan"]["outcome"], "PASS")

  def test_worker_stopped_while_loading_is_killed_and_reported_as_its_runtime_error(self):
    stopper = child_processes.Stopper(
        lambda pid: child_processes.is_worker(pid) and "--serve" in child_processes.cmdline(pid))
    started = time.monotonic()
    try:
      with flagsaver.flagsaver(target_backends=["iree_vulkan", "iree_llvmjit"],
                               artifacts_dir=self.root, load_timeout=5):
        result = _run_case(StoppedLoadModule,
                           {"test_negate": lambda m: m.negate(np.ones([4], np.float32))})
      elapsed = time.monotonic() - started
      stopped, still_alive = stopper.pid, stopper.pid and not child_processes.gone(stopper.pid)
    finally:
      stopper.finish()
    self.assertIsNotNone(stopped, "no worker was seen")
    self.assertFalse(still_alive, "the timed-out worker is still running")
    print(f"{self._testMethodName}: {elapsed:.2f} s", file=sys.stderr)
    self.assertLess(elapsed, _BOUND_SECONDS)
    message = _messages(result)
    self.assertIn("iree_vulkan: RUNTIME ERROR", message)
    self.assertRegex(message, r"did not answer within 5(\.\d+)? s \(--load_timeout=5 s")
    self.assertIn("during loading the module", message)
    self.assertIn("iree_llvmjit: PASS", message)
    records = _backends(os.path.join(self.root, "StoppedLoadModule"), "test_negate")
    self.assertEqual(records["iree_vulkan"]["phase"], "runtime")


class LimitTest(absltest.TestCase):

  def test_limits_grow_with_the_size_and_zero_means_none(self):
    limits = timeouts.from_flags(compile_seconds=600, load_seconds=0, call_seconds=2)
    self.assertEqual(limits.compile.seconds(0), 600)
    self.assertEqual(limits.compile.seconds(100 << 20),
                     600 + 100 * timeouts.COMPILE_SECONDS_PER_MIB)
    self.assertIsNone(limits.load.seconds(1 << 30))
    self.assertIn("--call_timeout=2 s", limits.call.explain(limits.call.seconds(0)))

  def test_a_negative_timeout_is_a_flag_error(self):
    for flag in ("compile_timeout", "load_timeout", "call_timeout"):
      with self.assertRaisesRegex(Exception, flag):
        cli_flags.FLAGS[flag].parse("-1")


if __name__ == "__main__":
  absltest.main()
