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
process's). Before a call of a method judged short, every native thread of this process that is
not a Python thread (the runtimes' pools and task workers) is allowed only the CPU the calling
thread is on; when the call returns (also by an exception) every thread gets back the CPUs it
had, before control leaves the library: the trace function's own code between calls (TensorFlow
ops it runs eagerly, on those same pools) and the threads and processes it starts keep every
CPU. The Python threads are never pinned, the caller included. A thread or process started by a
pinned thread during a call (a `tf.py_function`'s Python runs on TensorFlow's threads) inherits
the one CPU: at the release each such thread, Python's too, and each thread of each such process
and of its descendants gets the caller's CPUs back. They are told from older ones by their ids,
handed out after the last id the kernel gave when the pin began (the last field of
`/proc/loadavg`); when no id was handed out meanwhile, nothing is looked for, and the next pin
reuses the list of threads. Results do not depend on it: the runtimes keep their threads and
their partitioning of the work; only where those threads run changes, for the length of a call.

A pin used to last from one short call to the next, so the code between them ran with the
runtimes' threads on one CPU (9 of 11 threads of an llvm-cpu process, read from
/proc/self/task/*/status between two calls). A pin and its release around each call cost ~17 us
(11 threads; 36 us before the /proc files were kept open and the thread list reused); on this
VM that takes the gain of the table above: 2000 calls of the 16-float module took 71-74 us each
on llvm-cpu pinned around each call, 67-77 us not (47-56 pinned across calls), and TF 131-205
against 128-160.

A trace's first call is never pinned: a pin and its release cost about what a call saves
(~0.08 ms for a process of 10 threads), so a trace of one call, such as each example of
`--examples`, would only pay (0.29 ms more per example-call of bench figure 6a).

A method is judged by its own calls, per module object:
- It is pinned once one of its calls on every CPU took at most `SHORT_CALL_SECONDS`; so never on
  its first call, which judges it (and may include one-time work: TensorFlow's tracing).
- Pinning a call whose computation would use several CPUs makes it slower. Three pinned calls in
  a row each slower than the method's fastest unpinned call by more than `PIN_SLACK_SECONDS`
  stop pinning the method. On this VM a 256x256 matmul chain (1.5-1.7 ms) and a small conv stack
  (0.76-0.97 ms) of TF took as long pinned as not; a machine with more CPUs gains more from them.

Nothing is done where CPU affinity cannot be set (not Linux, one allowed CPU, a refusing
sandbox). `PYIREE_TF_SUPPORT_COLOCATE=never` turns it off (`auto`, the default, turns it on);
another value is an error naming these two.
"""

import dataclasses
import os
import threading
from typing import Any, Dict, FrozenSet, Iterator, List, Optional
import weakref

from pyiree_tf_support.core import faults

COLOCATE_ENV = "PYIREE_TF_SUPPORT_COLOCATE"
SETTINGS = ("auto", "never")

SHORT_CALL_SECONDS = 0.001
"""A method is pinned once one of its calls on every CPU took at most this: a pin saves the
~0.05-0.15 ms of wake-ups of a call, which matters for calls not much longer than that."""

PIN_SLACK_SECONDS = 0.0003
"""A pinned call slower than its method's fastest call on every CPU by more than this lost
more to the pin (its computation could have used another CPU) than a pin saves."""

SLOW_PINNED_CALLS = 3
"""That many slow pinned calls in a row stop pinning the method for the module's life; one
alone may be a preemption or a garbage collection."""


@dataclasses.dataclass
class _Judgement:
  """What the calls of one method of one module showed so far."""
  fastest_unpinned: float = float("inf")
  slow_pinned: int = 0  # consecutive pinned calls slower than fastest_unpinned + the slack.
  never: bool = False

  @property
  def pin(self) -> bool:
    return not self.never and self.fastest_unpinned <= SHORT_CALL_SECONDS


_judged: "weakref.WeakKeyDictionary[Any, Dict[str, _Judgement]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()  # one pin or release at a time.


InvalidSettingError = faults.InvalidSettingError  # a malformed COLOCATE_ENV.


def setting() -> str:
  """`PYIREE_TF_SUPPORT_COLOCATE` ('auto' when unset); raises InvalidSettingError otherwise."""
  value = os.environ.get(COLOCATE_ENV, "auto").strip().lower() or "auto"
  if value not in SETTINGS:
    raise InvalidSettingError(f"{COLOCATE_ENV}={os.environ[COLOCATE_ENV]!r} is not valid: give "
                              f"{' or '.join(repr(s) for s in SETTINGS)}.")
  return value


class _ProcFile:
  """A /proc file read again and again through one descriptor, opened at the first read: read
  from offset 0, the kernel makes its text anew; an open and a close cost twice the read, and a
  call is pinned and released around every call (~2 us a read)."""

  def __init__(self, path: str):
    self._path = path
    self._fd = -1

  def read(self) -> bytes:
    if self._fd < 0:
      self._fd = os.open(self._path, os.O_RDONLY | os.O_CLOEXEC)
    return os.pread(self._fd, 4096, 0)

  def close(self) -> None:
    if self._fd >= 0:
      os.close(self._fd)
      self._fd = -1


def _current_cpu(stat: _ProcFile) -> Optional[int]:
  """The CPU this thread runs on (the 39th field of /proc/thread-self/stat, `stat`)."""
  try:
    text = stat.read()
    return int(text[text.rfind(b")") + 2:].split()[36])
  except (OSError, ValueError, IndexError):
    return None


def _last_id(loadavg: _ProcFile) -> Optional[int]:
  """The last process or thread id the kernel handed out in this PID namespace (the last field
  of /proc/loadavg, `loadavg`): unchanged, nothing was started anywhere meanwhile."""
  try:
    return int(loadavg.read().split()[-1])
  except (OSError, ValueError, IndexError):
    return None


def _started_between(task_id: int, first: int, last: int) -> bool:
  """Whether `task_id` was handed out after `first` up to `last` (ids wrap around)."""
  return first < task_id <= last if first <= last else task_id > first or task_id <= last


def _threads_of(pid: str) -> List[int]:
  try:
    return [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
  except OSError:
    return []


def _children_of(pid: str) -> Iterator[int]:
  """The child processes of every thread of process `pid` (/proc/<pid>/task/<tid>/children)."""
  for tid in _threads_of(pid):
    try:
      with open(f"/proc/{pid}/task/{tid}/children", "rb") as f:
        yield from (int(child) for child in f.read().split())
    except (OSError, ValueError):
      pass


def _pinnable_threads() -> FrozenSet[int]:
  """This process's threads (ids) but its Python threads, the caller's included."""
  try:
    native = frozenset(int(tid) for tid in os.listdir("/proc/self/task"))
  except OSError:
    return frozenset()
  return native - {t.native_id for t in threading.enumerate()}


def _judgements(module: Any) -> Dict[str, _Judgement]:
  try:
    return _judged.setdefault(module, {})
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
    self._last_id: Optional[int] = None  # the kernel's last id when the pin began.
    # The threads the last pin listed, kept while the kernel hands out no id: listing them
    # costs more than pinning them.
    self._threads: Optional[FrozenSet[int]] = None
    self._released_id: Optional[int] = None  # the kernel's last id at the last release.
    self._stat = _ProcFile("/proc/thread-self/stat")
    self._loadavg = _ProcFile("/proc/loadavg")
    self._calls = 0  # calls of the trace so far.
    self.pinned = False

  def __enter__(self) -> "Colocation":
    return self

  def __exit__(self, *exc_info: Any) -> None:
    self.release()
    self._stat.close()
    self._loadavg.close()

  def before_call(self, method: str) -> None:
    """Pins before a call of a method judged short (not the trace's first call)."""
    judgement = self._judged.get(method)
    self._calls += 1
    if judgement is not None and judgement.pin and self._calls > 1:
      self._pin()

  def after_call(self, method: str, seconds: float) -> None:
    """Judges `method` by this call, which took `seconds` (pinned or not: `self.pinned`), and
    releases: the caller's code runs next, and must find every thread on its own CPUs."""
    judgement = self._judged.get(method)
    if judgement is None:  # not setdefault: no record built on every call of a long trace.
      judgement = self._judged[method] = _Judgement()
    if not self.pinned:
      judgement.fastest_unpinned = min(judgement.fastest_unpinned, seconds)
      return
    if seconds > judgement.fastest_unpinned + PIN_SLACK_SECONDS:
      judgement.slow_pinned += 1
      judgement.never = judgement.slow_pinned >= SLOW_PINNED_CALLS
    else:
      judgement.slow_pinned = 0
    self.release()

  def _pin(self) -> None:
    cpu = _current_cpu(self._stat)
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
      self._last_id = _last_id(self._loadavg)
      if (self._threads is None or self._last_id is None
          or self._last_id != self._released_id):
        self._threads = _pinnable_threads()
      for tid in self._threads:
        try:
          self._saved[tid] = frozenset(os.sched_getaffinity(tid))
          os.sched_setaffinity(tid, (cpu,))
        except OSError:  # it ended, or is not ours to change.
          self._saved.pop(tid, None)
    self.pinned = bool(self._saved)

  def release(self) -> None:
    """Gives every pinned thread back its CPUs, and the caller's CPUs to every thread and process
    started while pinned that still has only the one CPU."""
    if not self.pinned:
      return
    self.pinned = False
    with _lock:
      for tid, cpus in self._saved.items():
        try:
          os.sched_setaffinity(tid, cpus)
        except OSError:  # it ended.
          pass
      first, last = self._last_id, _last_id(self._loadavg)
      if first is None or last is None or last != first:
        self._release_started(first, last)
        self._threads = None  # threads were started: the next pin lists them again.
      self._released_id = last
    self._saved.clear()

  def _release_started(self, first: Optional[int], last: Optional[int]) -> None:
    """The caller's CPUs for each thread of this process and each thread of a descendant process
    started while pinned (all of them when the ids cannot say) and left on the one CPU."""
    def started(task_id: int) -> bool:
      return (first is None or last is None or _started_between(task_id, first, last))

    tasks = [t for t in _threads_of("self") if t not in self._saved and started(t)]
    todo = [c for c in _children_of("self") if started(c)]
    while todo:
      child = todo.pop()
      tasks.extend(_threads_of(str(child)))
      todo.extend(c for c in _children_of(str(child)) if started(c))
    for tid in tasks:
      try:
        if os.sched_getaffinity(tid) == {self._cpu}:
          os.sched_setaffinity(tid, self._home)
      except OSError:
        pass
