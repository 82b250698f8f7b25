"""Short calls run with the process's runtime threads on one CPU, and every CPU comes back.

`core/colocation` through `traces.run_trace`, on real modules: the TF reference and IREE's
llvm-cpu driver in this process (whose task workers are native threads), a vmvx module in a
worker process. Affinities are read from the kernel (/proc, sched_getaffinity) while the trace
function runs between calls. Needs two allowed CPUs (skipped on one).
"""

import os
import subprocess
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
  """Every thread of this process but its Python threads (the runtimes'): its CPUs."""
  python = {t.native_id for t in threading.enumerate()}
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


class _Watched:
  """A compiled module whose method calls also read every runtime thread's CPUs as they end,
  inside the call."""

  def __init__(self, module):
    self._module = module
    self.runs_in_process = module.runs_in_process
    self.seen = []

  def __getattr__(self, name):
    value = getattr(self._module, name)
    if not callable(value):
      return value

    def call(*args, **kwargs):
      result = value(*args, **kwargs)
      self.seen.append(_affinities())
      return result

    return call


class Spawning(tf.Module):
  """On its third call, `spawn` starts a Python thread and a child process from inside the call
  (a tf.py_function runs on TensorFlow's threads), as a module's own code might."""

  def __init__(self):
    super().__init__()
    self.calls = 0
    self.thread = None
    self.child = None
    self.started_with = None  # the thread's CPUs as it starts, inside the call.
    self.stop = threading.Event()

  def _start(self, x):
    self.calls += 1
    if self.calls == 3:
      self.thread = threading.Thread(target=self.stop.wait, name="started-in-a-call")
      self.thread.start()
      self.started_with = frozenset(os.sched_getaffinity(self.thread.native_id))
      self.child = subprocess.Popen(["sleep", "60"])
    return x

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def spawn(self, x):
    return tf.py_function(self._start, [x], tf.float32)


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
    # Reading every thread's CPUs inside a call (`_Watched`) lengthens it: short is longer here.
    patch = mock.patch.object(colocation, "SHORT_CALL_SECONDS", 0.05)
    patch.start()
    self.addCleanup(patch.stop)

  def _fresh(self, name):
    """A module whose methods were never called (judgements are kept per module object)."""
    module = self.modules[name].create_reinitialized()
    self.addCleanup(module.close)
    return module

  def _watch(self, module, calls=("double",) * 4, between=None):
    """Runs `calls` in a trace; the affinities as each call ends (inside it), then after the
    trace. `between`: a list getting the affinities the trace function's own code runs with."""
    seen = []
    x = np.arange(4, dtype=np.float32)

    def trace(m):
      for method in calls:
        getattr(m, method)(x)
        if between is not None:
          between.append(frozenset(os.sched_getaffinity(0)))

    _, error = traces.run_trace(self._watched(module, seen), trace)
    self.assertIsNone(error)
    return seen, _affinities()

  def _watched(self, module, seen):
    """`module`, its calls reading every thread's CPUs into `seen` as they end; one wrapper per
    module, as methods are judged per module object."""
    watched = self.__dict__.setdefault("_wrappers", {}).get(id(module))
    if watched is None:
      watched = self._wrappers[id(module)] = _Watched(module)
    watched.seen = seen
    return watched

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

  def test_the_trace_functions_own_code_runs_on_every_cpu(self):
    for name in self.modules:
      with self.subTest(name):
        between = []
        seen, _ = self._watch(self._fresh(name), between=between)
        self.assertTrue(_pinned(seen[-1]), seen[-1])  # the runtime's threads were pinned,
        self.assertEqual(between, [self.home] * 4)  # the caller, which runs the trace, not.

  def test_between_calls_every_thread_has_its_cpus_back(self):
    # The trace function's own code (TF ops it runs eagerly, threads the runtimes start for
    # it) runs on the runtimes' threads too: none may be left on one CPU when a call returns.
    for name in self.modules:
      with self.subTest(name):
        module = self._fresh(name)
        self._watch(module)  # judged short: the next trace pins.
        before = _affinities()
        seen, between = [], []

        def trace(m):
          for _ in range(4):
            m.double(np.ones([4], np.float32))
            between.append(_affinities())

        _, error = traces.run_trace(self._watched(module, seen), trace)
        self.assertIsNone(error)
        self.assertTrue(_pinned(seen[-1]), seen[-1])  # the calls ran pinned,
        for affinities in between:  # the code between them on every thread's own CPUs.
          self.assertEqual(affinities, {t: a for t, a in before.items() if t in affinities})

  def test_threads_and_children_started_during_a_pinned_call_get_their_cpus_back(self):
    module = Spawning()
    self.addCleanup(module.stop.set)
    after_calls, between = [], []

    def trace(m):
      for _ in range(4):
        m.spawn(np.ones([4], np.float32))
        after_calls.append(module.thread is not None
                             and frozenset(os.sched_getaffinity(module.thread.native_id)))
        between.append(frozenset(os.sched_getaffinity(0)))

    class InProcess:  # the TF module as run_trace sees a compiled module running here.
      runs_in_process = True

      def spawn(self, x):
        return module.spawn(x)

    with mock.patch.object(colocation, "SHORT_CALL_SECONDS", 1.0), \
        mock.patch.object(colocation, "PIN_SLACK_SECONDS", 1.0):
      _, error = traces.run_trace(InProcess(), trace)
    self.assertIsNone(error)
    self.assertIsNotNone(module.child)
    self.addCleanup(module.child.wait)
    self.addCleanup(module.child.kill)
    self.assertEqual(frozenset(os.sched_getaffinity(module.thread.native_id)), self.home)
    self.assertEqual(frozenset(os.sched_getaffinity(module.child.pid)), self.home)
    self.assertEqual(len(module.started_with), 1)  # it was started pinned,
    self.assertEqual(after_calls, [False, False, self.home, self.home])  # back as it returned,
    self.assertEqual(between, [self.home] * 4)  # not by the caller's code.

  def test_iree_task_workers_are_on_the_callers_cpu(self):
    seen, _ = self._watch(self._fresh("llvm-cpu"))
    names = _thread_names()
    workers = {t: a for t, a in seen[-1].items() if names.get(t, "").startswith("iree-worker")}
    self.assertNotEqual(workers, {})
    self.assertEqual(len(set(workers.values())), 1, workers)
    self.assertEqual(len(next(iter(workers.values()))), 1, workers)

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
    with mock.patch.object(colocation, "PIN_SLACK_SECONDS", 1.0):  # judged; no slow call yet.
      self._watch(module, ("double",) * 2)
    inside = []

    def trace(m):
      for slack in (-1.0, -1.0, -1.0, 1.0, -1.0, -1.0):  # the fourth call quick, whatever.
        with mock.patch.object(colocation, "PIN_SLACK_SECONDS", slack):
          m.double(np.ones([4], np.float32))

    traces.run_trace(self._watched(module, inside), trace)
    seen = [_pinned(a) for a in inside]
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
