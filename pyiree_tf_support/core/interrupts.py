"""Ctrl-C that Python itself would lose.

Python raises a SIGINT's KeyboardInterrupt in whatever Python code runs next in the main thread.
When that code is a garbage collector callback or a `__del__`, CPython cannot raise it there: it
reports it as "Exception ignored in ..." (under pytest its unraisable-exception plugin turns that
into a warning, so nothing is printed) and carries on. hypothesis registers such a callback (it
times collections), and examples allocate enough for collections to run all the time: a Ctrl-C
during examples was lost that way in about one run of three, the run went on to its end and the
test passed.

`noticed()` counts every SIGINT that arrives while its block runs, whatever becomes of the
KeyboardInterrupt; `check()` raises KeyboardInterrupt again where a lost one must not be, e.g.
before each example. A handler the user installed is called as before (a SIGINT ignored or left
to the system's default is left alone: nothing is raised then).

`watched_call` is the watchdog of the calls of in-process backends (the TF reference, IREE's
CPU drivers), which run in C++: there Python's handler cannot run, so a Ctrl-C did nothing until
the call returned (hours, for a `tf.while_loop` whose trip count is a drawn int32), and nothing
bounded the call's time. A daemon thread reads the signal's byte from Python's wakeup fd (the C
handler writes it at once) and looks at the call's deadline every 0.25 s: it cancels the call
(TensorFlow's cancellation stops the executor between ops, loops included), and ends the
process when the call cannot be stopped (IREE's runtime has no cancellation). ~5 us a call.
"""

import contextlib
import os
import select
import signal
import threading
import time
from typing import Any, Callable, Iterator, NoReturn, Optional

_received = 0


def received() -> int:
  """How many SIGINTs arrived while a `noticed()` block ran (in this process, ever)."""
  return _received


class Notice:
  """What `noticed()` yields: `check()` raises KeyboardInterrupt if a SIGINT came since."""

  def __init__(self) -> None:
    self._start = _received

  @property
  def interrupted(self) -> bool:
    return _received != self._start

  def check(self) -> None:
    if self.interrupted:
      raise KeyboardInterrupt("Ctrl-C (a KeyboardInterrupt Python could not raise where it came)")


def _counting(previous: Callable[..., Any]) -> Callable[..., Any]:
  def handler(signum: int, frame: Any) -> Any:
    global _received
    _received += 1
    return previous(signum, frame)

  handler.counts = True
  return handler


@contextlib.contextmanager
def noticed() -> Iterator[Notice]:
  """Counts the SIGINTs that arrive within (see the module docstring); outside the main thread,
  or with SIGINT ignored or at its default, the block runs as it is."""
  notice = Notice()
  previous = (signal.getsignal(signal.SIGINT)
              if threading.current_thread() is threading.main_thread() else None)
  if not callable(previous) or getattr(previous, "counts", False):
    yield notice
    return
  signal.signal(signal.SIGINT, _counting(previous))
  try:
    yield notice
  finally:
    signal.signal(signal.SIGINT, previous)


# A call of an in-process backend that Ctrl-C cannot stop (one not cancellable, or one whose
# cancellation did not take) ends the process this long after the Ctrl-C; a second Ctrl-C ends
# it at once.
GRACE_SECONDS = 3.0
_POLL_SECONDS = 0.25


class CallTimeoutError(RuntimeError):
  """A call of an in-process backend ran past its limit and was cancelled."""


class PastTimeBoxError(CallTimeoutError):
  """A cancellable call ran past the time box of the work that made it (`time_box`)."""


class TimeBox:
  """A deadline the calls made within `time_box()` end by, if they can be cancelled; `passed`
  says whether one ran past it (the call then raised PastTimeBoxError)."""

  def __init__(self, deadline: float, explain: str):
    self.deadline = deadline
    self.explain = explain  # e.g. "the time box (10 s, --examples_timeout)".
    self.passed = False


_time_box: Optional[TimeBox] = None


@contextlib.contextmanager
def time_box(deadline: Optional[float], explain: str) -> Iterator[Optional[TimeBox]]:
  """Within, every watched call that can be cancelled (the TF reference's) ends by `deadline`
  (time.monotonic(); None: no box) as well as by its own limit: a run of examples bounded in
  time is bounded in each of its calls too, a loop that never ends on a drawn input included.
  A call that cannot be cancelled keeps its own limit only: past it the process would end,
  losing the work done so far."""
  global _time_box
  box = None if deadline is None else TimeBox(deadline, explain)
  outer, _time_box = _time_box, box
  try:
    yield box
  finally:
    _time_box = outer


class _Watch:
  """One watched call: its deadline, how to cancel it, and what ended it."""

  def __init__(self, what: str, deadline: Optional[float], explain: str,
               cancel: Optional[Callable[[], None]]):
    self.what = what
    self.deadline = deadline
    self.explain = explain
    self.cancel = cancel
    self.timed_out = False
    self.interrupts = 0
    self.interrupted_at: Optional[float] = None


def _end_process(message: str) -> NoReturn:
  try:
    os.write(2, f"\n{message}\n".encode("utf-8", "replace"))
  finally:
    os._exit(128 + signal.SIGINT)  # as a Ctrl-C ends it.


class _Watchdog:
  """A daemon thread watching the current call of the main thread: it wakes on a SIGINT (the
  signal's byte on Python's wakeup fd, written even while the main thread runs C++) and every
  `_POLL_SECONDS` to look at the deadline."""

  def __init__(self) -> None:
    self._read, self.write = os.pipe()
    os.set_blocking(self._read, False)
    os.set_blocking(self.write, False)
    self.current: Optional[_Watch] = None
    self.forward = -1  # a wakeup fd set before ours (an event loop's): it gets the bytes too.
    threading.Thread(target=self._run, name="pyiree-call-watchdog", daemon=True).start()

  def _run(self) -> None:
    while True:
      ready, _, _ = select.select([self._read], [], [], _POLL_SECONDS)
      data = b""
      if ready:
        try:
          data = os.read(self._read, 512)
        except BlockingIOError:
          pass
        if self.forward >= 0 and data:
          with contextlib.suppress(OSError):
            os.write(self.forward, data)
      watch = self.current
      if watch is None:
        continue
      now = time.monotonic()
      if signal.SIGINT in data:
        watch.interrupts += data.count(signal.SIGINT)
        if watch.interrupted_at is None:
          watch.interrupted_at = now
          if watch.cancel is not None:
            watch.cancel()
      if watch.interrupts > 1 or (watch.interrupted_at is not None
                                  and now - watch.interrupted_at > GRACE_SECONDS):
        _end_process(f"Ctrl-C: {watch.what} could not be stopped; the process ends.")
      if watch.deadline is not None and now > watch.deadline and not watch.timed_out:
        watch.timed_out = True
        if watch.cancel is None:
          _end_process(f"{watch.what} did not end {watch.explain}, and a call in this process "
                       "cannot be stopped; the process ends (a backend run in a worker process "
                       "gets a RUNTIME ERROR instead).")
        watch.cancel()


_watchdog: Optional[_Watchdog] = None
_watchdog_lock = threading.Lock()


@contextlib.contextmanager
def watched_call(what: str, seconds: Optional[float] = None, explain: str = "",
                 cancel: Optional[Callable[[], None]] = None) -> Iterator[_Watch]:
  """Runs a call of an in-process backend (`what`: "call 'f' of tf") under the watchdog: past
  `seconds` (None: no limit) `cancel()` is called and CallTimeoutError raised when the call
  returns (without `cancel`, the process ends with a line saying why), past the `time_box`
  around it PastTimeBoxError (only with `cancel`); a Ctrl-C cancels it and
  KeyboardInterrupt is raised, and one it cannot stop within GRACE_SECONDS, or a second Ctrl-C,
  ends the process. Only the main thread's calls are watched (signals reach only it)."""
  global _watchdog
  if threading.current_thread() is not threading.main_thread():
    yield _Watch(what, None, explain, None)
    return
  with _watchdog_lock:
    if _watchdog is None:
      _watchdog = _Watchdog()
  dog = _watchdog
  deadline = None if seconds is None else time.monotonic() + seconds
  box = _time_box if cancel is not None else None
  if box is not None and deadline is not None and deadline <= box.deadline:
    box = None  # its own limit comes first.
  watch = _Watch(what, box.deadline if box is not None else deadline, explain, cancel)
  try:
    previous = signal.set_wakeup_fd(dog.write, warn_on_full_buffer=False)
  except ValueError:  # not the main interpreter's main thread.
    yield watch
    return
  dog.forward = previous if previous != dog.write else -1
  outer, dog.current = dog.current, watch
  try:
    try:
      yield watch
    except Exception as e:  # the cancelled call's own error.
      if watch.interrupted_at is not None:
        raise KeyboardInterrupt(f"Ctrl-C during {what}") from e
      if watch.timed_out and box is not None:
        box.passed = True
        raise PastTimeBoxError(f"{what} ran past {box.explain}; it was cancelled") from e
      if watch.timed_out:
        raise CallTimeoutError(f"{what} did not end {explain}; it was cancelled") from e
      raise
    if watch.interrupted_at is not None:
      raise KeyboardInterrupt(f"Ctrl-C during {what}")
  finally:
    dog.current = outer
    signal.set_wakeup_fd(previous if previous != dog.write else -1)
