"""Ctrl-C that Python itself would lose.

Python raises a SIGINT's KeyboardInterrupt in whatever Python code runs next in the main thread.
When that code is a garbage collector callback or a `__del__`, CPython cannot raise it there: it
reports it as "Exception ignored in ..." (under pytest its unraisable-exception plugin turns that
into a warning, so nothing is printed) and carries on. hypothesis registers such a callback (it
times collections), and examples allocate enough for collections to run all the time: a Ctrl-C
during examples was lost that way in about one run of three, the run went on to its end and the
test passed (issue 29, item 8).

`noticed()` counts every SIGINT that arrives while its block runs, whatever becomes of the
KeyboardInterrupt; `check()` raises KeyboardInterrupt again where a lost one must not be, e.g.
before each example. A handler the user installed is called as before (a SIGINT ignored or left
to the system's default is left alone: nothing is raised then).
"""

import contextlib
import signal
import threading
from typing import Any, Callable, Iterator

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
