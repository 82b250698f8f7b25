"""SIGTERM ends a campaign as Ctrl-C does.

`kill PID`, `timeout`, a batch scheduler's stop and systemd send SIGTERM, to the command's
process alone: Python's default then ends it on the spot, with no state saved since the last
module, its `--jobs` workers orphaned, and TensorFlow's temporary files left (autograph writes
each converted function to a file in the temporary dir, removed only at exit: ten killed
campaigns left ~270 in /tmp). `stop_on_sigterm` makes the first SIGTERM a KeyboardInterrupt,
so the command stops through the Ctrl-C path (the state kept, `--resume` goes on); later ones
are ignored, as the stop is under way. The `--jobs` parent passes it on to its workers
(`terminated` says it came), which a terminal's Ctrl-C reaches by itself. Exit status 143
(128 + SIGTERM) instead of Ctrl-C's 130. A SIGTERM the command was started with ignored stays
ignored, as Python leaves an ignored SIGINT.
"""

import signal
import threading
from typing import Any

__all__ = ["EXIT_STATUS", "INTERRUPTED", "exit_status", "stop_on_sigterm", "stopped_how",
           "terminated"]

EXIT_STATUS = 128 + signal.SIGTERM
INTERRUPTED = 128 + signal.SIGINT  # Ctrl-C's
_terminated = threading.Event()


def _on_sigterm(signum: int, frame: Any) -> None:
  signal.signal(signal.SIGTERM, signal.SIG_IGN)
  _terminated.set()
  raise KeyboardInterrupt


def stop_on_sigterm() -> None:
  """From now on (main thread only), the first SIGTERM raises KeyboardInterrupt, unless the
  process was started with SIGTERM ignored."""
  if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:
    signal.signal(signal.SIGTERM, _on_sigterm)


def terminated() -> bool:
  """Whether the stop under way is a SIGTERM's (else a Ctrl-C's, or none)."""
  return _terminated.is_set()


def stopped_how() -> str:
  """The word for the stop under way: "terminated" (SIGTERM) or "interrupted" (Ctrl-C)."""
  return "terminated" if terminated() else "interrupted"


def exit_status() -> int:
  """The command's exit status for the stop under way: EXIT_STATUS or INTERRUPTED."""
  return EXIT_STATUS if terminated() else INTERRUPTED
