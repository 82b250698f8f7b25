"""How long an iree-compile, loading a module into a worker and one call in a worker may take.

A stopped or hung compiler or worker must not freeze the test process: past its limit the process
is killed and that backend fails (COMPILE ERROR / RUNTIME ERROR) with a message naming the limit
and the flag that sets it, while the other backends are still compared. Each limit is its flag's
base (seconds, 0 = no limit) plus an allowance per MiB of what it works on, so that a big model
gets more time without a flag. The records are passed down from where the flags are read
(class_setup, replay); nothing here reads a flag. Dependency-free: the worker client uses it.
"""

import dataclasses
import math
from typing import Optional

from pyiree_tf_support.core import faults

_MIB = float(1 << 20)
VALID = "a finite number of seconds >= 0 (0: no limit)"


def duration_error(seconds: float) -> Optional[str]:
  """What is wrong with `seconds` as a time limit (None: nothing). NaN compares false with every
  bound (a compile killed at once, or never) and infinity is no number of seconds, so neither
  is a limit; 0 is the one way to say none."""
  if isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds >= 0:
    return None
  return f"not {VALID}"


@dataclasses.dataclass(frozen=True)
class Limit:
  """`base` seconds (0: no limit) plus `per_mib` seconds per MiB of `measured`; `flag` sets base."""
  base: float
  per_mib: float = 0.0
  flag: Optional[str] = None  # e.g. "--compile_timeout"; None when set from Python.
  measured: str = "input"

  def __post_init__(self):
    error = duration_error(self.base)
    if error:
      raise faults.InvalidSettingError(f"{self.flag or 'A time limit'}={self.base!r}: {error}.")

  def seconds(self, size_bytes: int = 0) -> Optional[float]:
    """The limit for work on `size_bytes` bytes; None when there is none."""
    if self.base <= 0:
      return None
    return self.base + self.per_mib * max(size_bytes, 0) / _MIB

  def explain(self, seconds: Optional[float]) -> str:
    """`within 5 s (--compile_timeout=5 s + 10 s per MiB of compiler input; ...)`."""
    if seconds is None:
      return "with no time limit"
    text = f"within {seconds:.3g} s"
    if self.flag is None:
      return text
    scaled = f" + {self.per_mib:g} s per MiB of {self.measured}" if self.per_mib else ""
    return (f"{text} ({self.flag}={self.base:g} s{scaled}; raise {self.flag}, or set it to 0 "
            "for no limit)")


def fixed(seconds: Optional[float]) -> Limit:
  """A limit of exactly `seconds` (None or 0: no limit), e.g. from a Python caller."""
  return Limit(seconds or 0.0)


@dataclasses.dataclass(frozen=True)
class Timeouts:
  """The limits of one run: compiling, starting a worker and loading a module, one call."""
  compile: Limit
  load: Limit
  call: Limit


# Generous: a small module compiles in ~1 s, loads in ~1 s and calls in milliseconds; the
# per-MiB allowances cover big models (a 190 MB iree_input.mlir compiled in 37 s).
COMPILE_SECONDS = 600.0
COMPILE_SECONDS_PER_MIB = 10.0
LOAD_SECONDS = 120.0
LOAD_SECONDS_PER_MIB = 1.0
CALL_SECONDS = 300.0
CALL_SECONDS_PER_MIB = 10.0


def from_flags(compile_seconds: float = COMPILE_SECONDS, load_seconds: float = LOAD_SECONDS,
               call_seconds: float = CALL_SECONDS) -> Timeouts:
  """The limits given by --compile_timeout, --load_timeout and --call_timeout (0 = none)."""
  return Timeouts(
      compile=Limit(compile_seconds, COMPILE_SECONDS_PER_MIB, "--compile_timeout",
                    "compiler input"),
      load=Limit(load_seconds, LOAD_SECONDS_PER_MIB, "--load_timeout", "module"),
      call=Limit(call_seconds, CALL_SECONDS_PER_MIB, "--call_timeout", "module and inputs"))


DEFAULT = from_flags()
NONE = from_flags(0.0, 0.0, 0.0)
