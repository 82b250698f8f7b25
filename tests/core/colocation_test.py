"""Short calls run with the process's runtime threads on one CPU, and every CPU comes back.

`core/colocation` through `traces.run_trace`, on real modules: the TF reference and IREE's
llvm-cpu driver in this process (whose task workers are native threads), a vmvx module in a
worker process. Affinities are read from the kernel (/proc, sched_getaffinity) while the trace
function runs between calls. Needs two allowed CPUs (skipped on one).
"""

import os
import threading
from typing import Dict, FrozenSet
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.core import colocation


class Small(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return x + x

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def negate(self, x):
    return -x


def _affinities() -> Dict[int, FrozenSet[int]]:
  """Every thread of this process but the Python threads other than this one: its CPUs."""
  me = threading.get_native_id()
  python = {t.native_id for t in threading.enumerate() if t.native_id != me}
  result = {}
  for tid in map(int, os.listdir("/proc/self/task")):
    if tid not in python:
      try:
        result[tid] = frozenset(os.sched_getaffinity(tid))
      except OSError:  # ended meanwhile.
        pass
  return result


def _thread_names() -> Dict[int, str]:
  names = {}
  for tid in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{tid}/comm") as f:
      names[int(tid)] = f.read().strip()
  return names


def _pinned(affinities: Dict[int, FrozenSet[int]]) -> bool:
  """Every thread on the same single CPU."""
  return len(set(affinities.values())) == 1 and len(next(iter(affinities.values()))) == 1


@absltest.skipIf(len(os.sched_getaffinity(0)) < 2, "needs two allowed CPUs")
class ColocationTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.home = frozenset(os.sched_getaffinity(0))
    cls.modules = {"tf": tf_utils.BackendInfo("tf").compile(Small),
                   "llvm-cpu": tf_utils.BackendInfo("iree_llvmcpu").compile(Small)}

  def setUp(self):
    super().setUp()
    self.addCleanup(os.environ.pop, colocation.COLOCATE_ENV, None)

  def _fresh(self, name):
    """A module whose methods were never called (judgements are kept per module object)."""
    module = self.modules[name].create_reinitialized()
    self.addCleanup(module.close)
    return module

  def _watch(self, module, calls=("double",) * 4):
    """Runs `calls` in a trace; the affinities after each call, then after the trace."""
    seen = []
    x = np.arange(4, dtype=np.float32)

    def trace(m):
      for method in calls:
        getattr(m, method)(x)
        seen.append(_affinities())

    _, error = traces.run_trace(module, trace)
    self.assertIsNone(error)
    return seen, _affinities()

  def test_short_calls_run_on_one_cpu_and_every_cpu_comes_back(self):
    for name in self.modules:
      with self.subTest(name):
        before = _affinities()
        seen, after = self._watch(self._fresh(name))
        # A method's first call judges it, on every CPU; the ones after a short call run on one
        # (TF's first call traces the function, so its second call may run on every CPU too;
        # a trace's first call is never pinned).
        self.assertFalse(_pinned(seen[0]), seen[0])
        for affinities in seen[2:]:
          self.assertTrue(_pinned(affinities), affinities)
          self.assertGreater(len(affinities), 1)
        self.assertEqual(after, {t: a for t, a in before.items() if t in after})

  def test_iree_task_workers_are_on_the_callers_cpu(self):
    seen, _ = self._watch(self._fresh("llvm-cpu"))
    names = _thread_names()
    workers = {t: a for t, a in seen[-1].items() if names.get(t, "").startswith("iree-worker")}
    self.assertNotEqual(workers, {})
    self.assertEqual(set(workers.values()), {seen[-1][threading.get_native_id()]})

  def test_other_python_threads_keep_their_cpus(self):
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="bystander")
    thread.start()
    self.addCleanup(thread.join)
    self.addCleanup(stop.set)
    during = []

    def trace(m):
      for _ in range(3):
        m.double(np.ones([4], np.float32))
        during.append(frozenset(os.sched_getaffinity(thread.native_id)))

    traces.run_trace(self.modules["tf"], trace)
    self.assertEqual(during, [self.home] * 3)

  def test_a_method_never_short_runs_on_every_cpu(self):
    with mock.patch.object(colocation, "SHORT_CALL_SECONDS", 0.0):
      seen, _ = self._watch(self._fresh("llvm-cpu"))
    self.assertFalse(any(_pinned(a) for a in seen), seen)

  def test_three_slow_pinned_calls_in_a_row_stop_pinning_the_method(self):
    module = self._fresh("llvm-cpu")
    with mock.patch.object(colocation, "PIN_SLACK_SECONDS", -1.0):  # every pinned call slow.
      seen, _ = self._watch(module, ("double",) * 6)
    # The first judges; three slow pinned calls; released before the fifth, for good.
    self.assertEqual([_pinned(a) for a in seen], [False, True, True, True, False, False])
    seen, _ = self._watch(module, ("double",) * 2)
    self.assertFalse(any(_pinned(a) for a in seen), seen)

  def test_two_slow_pinned_calls_in_a_row_do_not_stop_pinning(self):
    module = self._fresh("llvm-cpu")
    self._watch(module, ("double",) * 2)
    seen = []

    def trace(m):
      for slack in (-1.0, -1.0, -1.0, colocation.PIN_SLACK_SECONDS, -1.0, -1.0):
        with mock.patch.object(colocation, "PIN_SLACK_SECONDS", slack):
          m.double(np.ones([4], np.float32))
        seen.append(_pinned(_affinities()))

    traces.run_trace(module, trace)
    # The first call is not pinned; two slow pinned calls, a quick one, two slow ones.
    self.assertEqual(seen, [False, True, True, True, True, True])

  def test_a_call_of_a_method_not_pinned_is_released_first(self):
    module = self._fresh("tf")
    self._watch(module, ("double", "negate") * 2)  # both judged short (after tracing).
    with mock.patch.object(colocation, "PIN_SLACK_SECONDS", -1.0):
      self._watch(module, ("negate",) * 4)  # three slow pinned calls: never pinned again.
    seen, _ = self._watch(module, ("double", "double", "negate", "double"))
    self.assertEqual([_pinned(a) for a in seen], [False, True, False, True])

  def test_a_trace_of_one_call_is_not_pinned(self):
    module = self._fresh("llvm-cpu")
    self._watch(module, ("double",) * 3)  # judged short.
    before = _affinities()
    seen, after = self._watch(module, ("double",))
    self.assertEqual(seen, [before])
    self.assertEqual(after, before)

  def test_an_error_in_the_trace_gives_every_cpu_back(self):
    before = _affinities()

    def trace(m):
      for _ in range(3):
        m.double(np.ones([4], np.float32))
      raise RuntimeError("the user's bug")

    _, error = traces.run_trace(self.modules["llvm-cpu"], trace)
    self.assertIn("the user's bug", error)
    after = _affinities()
    self.assertEqual(after, {t: a for t, a in before.items() if t in after})

  def test_worker_modules_are_not_pinned(self):
    module = tf_utils.BackendInfo("iree_vmvx", run_in_worker=True).compile(Small)
    self.addCleanup(module.close)
    self.assertFalse(module.runs_in_process)
    seen, _ = self._watch(module)
    self.assertFalse(any(_pinned(a) for a in seen), seen)

  def test_never_turns_it_off(self):
    os.environ[colocation.COLOCATE_ENV] = "never"
    seen, _ = self._watch(self.modules["tf"])
    self.assertFalse(any(_pinned(a) for a in seen), seen)

  def test_a_malformed_setting_is_one_error_naming_the_valid_values(self):
    os.environ[colocation.COLOCATE_ENV] = "sometimes"
    with self.assertRaisesRegex(colocation.InvalidSettingError,
                                r"PYIREE_TF_SUPPORT_COLOCATE='sometimes' is not valid: give "
                                r"'auto' or 'never'"):
      traces.run_trace(self.modules["tf"], lambda m: m.double(np.ones([4], np.float32)))

  def test_a_caller_allowed_one_cpu_changes_nothing(self):
    cpu = min(self.home)
    os.sched_setaffinity(0, {cpu})
    self.addCleanup(os.sched_setaffinity, 0, self.home)
    before = _affinities()
    seen, after = self._watch(self.modules["tf"])
    self.assertEqual(seen, [before] * 4)
    self.assertEqual(after, before)


if __name__ == "__main__":
  absltest.main()
