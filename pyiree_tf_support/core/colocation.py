"""Short calls run with this process's runtime threads on one CPU.

## Why
A backend's call hands its work to a thread of its runtime and sleeps until that thread is done:
TensorFlow runs a function on its inter-op pool, IREE's local-task driver on its task workers.
When that thread sits on another CPU, each call pays cross-CPU wake-ups, and on a virtual machine
waking an idle virtual CPU costs tens of microseconds: for the small calls of most tests, more
than the computation. Measured on this project's 2-CPU VM (TF 2.21, IREE 3.13), 3000 calls of the
16-float stateful module of `bench/long_trace_test.py` in one loop each, as a hand-written
script makes them:

| per call | threads where the scheduler puts them | on the caller's CPU |
|---|---|---|
| TF reference (`_call_flat`) | 168-192 us | 138-148 us |
| IREE llvm-cpu (`vm_context.invoke` + read back) | 75-104 us | 31-34 us |

The whole process under `taskset -c 0` was faster still for TF (87 us), which then also sizes
its thread pools for one CPU; this module does not change what any runtime sees. The bench's
figure L (per call-execution of that 3000-call trace, `bench/run_benchmark.py --only L`) went
from 0.146-0.175 ms to 0.110 ms.

## What it does
`traces.run_trace` wraps each call of a module whose calls run on this process's threads (the TF
reference, an in-process IREE driver: `runs_in_process` on the compiled module; never a worker
process's). Before a call of a method whose last call took at most `LONG_CALL_SECONDS`, every
native thread of this process is allowed only the CPU the calling thread is on; before any other
call, and when the trace ends (also by an exception), every thread gets back the CPUs it had.
Excepted are the other Python threads (a compile pool, a probe, the user's own): their work and
the processes they start keep every CPU. A thread a pinned thread starts is pinned too, and gets
the caller's CPUs back with the rest. A method's first call is never pinned (it is how a method
is judged, and may include one-time work such as TensorFlow's tracing), nor any call after a long
one: a call that long may use a second CPU for longer than its wake-ups cost. Results do not
depend on it: the runtimes keep their threads and their partitioning of the work; only where
those threads run changes, for the length of short calls.

Nothing is done where CPU affinity cannot be set (not Linux, one allowed CPU, a refusing
sandbox). `PYIREE_TF_SUPPORT_COLOCATE=never` turns it off (`auto`, the default, turns it on);
another value is an error naming these two.
"""

import os
import threading
import weakref
from typing import Any, Dict, FrozenSet, Optional

from pyiree_tf_support.core import faults

COLOCATE_ENV = "PYIREE_TF_SUPPORT_COLOCATE"
SETTINGS = ("auto", "never")

LONG_CALL_SECONDS = 0.002
"""A call this long is followed by one on every CPU: its computation may use a second CPU for
longer than the ~0.1 ms of wake-ups a short call saves on one."""

_last_short: "weakref.WeakKeyDictionary[Any, Dict[str, bool]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()  # one pin or release at a time.


class InvalidSettingError(faults.OwnFault, ValueError):
  """A malformed PYIREE_TF_SUPPORT_COLOCATE."""


def setting() -> str:
  """`PYIREE_TF_SUPPORT_COLOCATE` ('auto' when unset); raises InvalidSettingError otherwise."""
  value = os.environ.get(COLOCATE_ENV, "auto").strip().lower() or "auto"
  if value not in SETTINGS:
    raise InvalidSettingError(f"{COLOCATE_ENV}={os.environ[COLOCATE_ENV]!r} is not valid: give "
                              f"{' or '.join(repr(s) for s in SETTINGS)}.")
  return value


def _current_cpu() -> Optional[int]:
  """The CPU this thread runs on (the 39th field of /proc/thread-self/stat)."""
  try:
    with open("/proc/thread-self/stat", "rb") as f:
      stat = f.read()
    return int(stat[stat.rfind(b")") + 2:].split()[36])
  except (OSError, ValueError, IndexError):
    return None


def _pinnable_threads() -> FrozenSet[int]:
  """This process's threads (ids) but the Python threads other than the caller."""
  try:
    native = frozenset(int(tid) for tid in os.listdir("/proc/self/task"))
  except OSError:
    return frozenset()
  me = threading.get_native_id()
  return native - {t.native_id for t in threading.enumerate() if t.native_id != me}


def _judgements(module: Any) -> Dict[str, bool]:
  try:
    return _last_short.setdefault(module, {})
  except TypeError:  # not weakly referable: judged anew in every trace.
    return {}


class Colocation:
  """One trace's pins of `module`'s calls (see the module docstring): each call goes between
  `before_call(method)` and `after_call(method, seconds)`; leaving the `with` block releases."""

  def __init__(self, module: Any):
    self.enabled = (setting() == "auto" and bool(getattr(module, "runs_in_process", False))
                    and hasattr(os, "sched_setaffinity"))
    self._judged = _judgements(module) if self.enabled else {}
    self._saved: Dict[int, FrozenSet[int]] = {}
    self._home: FrozenSet[int] = frozenset()
    self._cpu: Optional[int] = None
    self.pinned = False

  def __enter__(self) -> "Colocation":
    return self

  def __exit__(self, *exc_info: Any) -> None:
    self.release()

  def before_call(self, method: str) -> None:
    """Pins before a call of a method whose last call was short, releases before any other."""
    if self._judged.get(method, False):
      if not self.pinned:
        self._pin()
    elif self.pinned:
      self.release()

  def after_call(self, method: str, seconds: float) -> None:
    """Notes whether this call of `method` was short."""
    self._judged[method] = seconds <= LONG_CALL_SECONDS

  def _pin(self) -> None:
    cpu = _current_cpu()
    try:
      home = frozenset(os.sched_getaffinity(0))
    except OSError:
      home = frozenset()
    if cpu is None or len(home) < 2 or cpu not in home:
      self.enabled = False  # nothing to gain, or nothing this process may do.
      self._judged = {}
      return
    self._home, self._cpu = home, cpu
    with _lock:
      for tid in _pinnable_threads():
        try:
          self._saved[tid] = frozenset(os.sched_getaffinity(tid))
          os.sched_setaffinity(tid, (cpu,))
        except OSError:  # it ended, or is not ours to change.
          self._saved.pop(tid, None)
    self.pinned = bool(self._saved)

  def release(self) -> None:
    """Gives every pinned thread back its CPUs (a thread started pinned: the caller's)."""
    if not self.pinned:
      return
    self.pinned = False
    with _lock:
      for tid in _pinnable_threads():
        try:
          if tid in self._saved:
            os.sched_setaffinity(tid, self._saved[tid])
          elif os.sched_getaffinity(tid) == {self._cpu}:  # started by a pinned thread.
            os.sched_setaffinity(tid, self._home)
        except OSError:
          pass
    self._saved.clear()
