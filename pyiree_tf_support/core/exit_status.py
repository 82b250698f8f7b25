"""Names how a child process ended (signal or exit code), for the worker and the compiler's errors.

Dependency-free: the TensorFlow-free worker side and the compiler both use it.
"""

import signal
from typing import Optional


def signal_name(number: int) -> str:
  """`SIGSEGV` for 11; `signal 99` for a number the platform does not name."""
  try:
    return signal.Signals(number).name
  except ValueError:
    return f"signal {number}"


def describe_exit(returncode: Optional[int]) -> str:
  """A phrase completing "the worker ...": how a process with this `Popen.returncode` ended.

  None means it had not ended by itself (it stopped answering); negative codes are signals.
  """
  if returncode is None:
    return "stopped answering"
  if returncode < 0:
    name = signal_name(-returncode)
    named = "" if name.startswith("signal ") else f" ({-returncode})"
    return f"was killed by signal {name.removeprefix('signal ')}{named}"
  return f"exited with code {returncode}"
