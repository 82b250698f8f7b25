"""Tolerance policy as pure data: a per-dtype table, per-backend overrides, per-call overrides.

Exact dtypes (integers, bools, strings) never take a tolerance. For floating dtypes the seed's
1e-6 stays the float32 default; the looser rows follow each type's machine epsilon.

Per-backend overrides (the --tolerances flag) are parsed into an immutable `TolerancePolicy` that
the caller passes to the comparison; nothing here changes after import, so parsing a flag to
validate it cannot change what another test compares with.
"""

import dataclasses
import functools
import math
from typing import Mapping, Optional, Sequence, Tuple

import numpy as np


@dataclasses.dataclass(frozen=True)
class Tolerance:
  rtol: float
  atol: float

  def __str__(self) -> str:
    return f"rtol={self.rtol:g}, atol={self.atol:g}"


EXACT = Tolerance(0.0, 0.0)

# Keyed by numpy dtype name; complex types compare real and imaginary parts with their parts' row.
DEFAULT_TOLERANCES: Mapping[str, Tolerance] = {
    "float16": Tolerance(rtol=1e-3, atol=1e-3),
    "bfloat16": Tolerance(rtol=1e-2, atol=1e-2),
    "float32": Tolerance(rtol=1e-6, atol=1e-6),
    "float64": Tolerance(rtol=1e-6, atol=1e-6),
    "complex64": Tolerance(rtol=1e-6, atol=1e-6),
    "complex128": Tolerance(rtol=1e-6, atol=1e-6),
}

_FORMAT = "backend:dtype:rtol:atol, e.g. iree_vulkan:float32:1e-5:1e-5"


@functools.lru_cache(maxsize=256)  # asked for every array of every call compared.
def is_inexact(dtype: np.dtype) -> bool:
  """True for dtypes compared with a tolerance (floats, complex, bfloat16)."""
  return np.dtype(dtype).name in DEFAULT_TOLERANCES or np.issubdtype(dtype, np.inexact)


@dataclasses.dataclass(frozen=True)
class TolerancePolicy:
  """The dtype table plus per-backend overrides: ((backend, dtype name), Tolerance) pairs.

  A later pair for the same backend and dtype wins, so `with_override` layers on top.
  """
  overrides: Tuple[Tuple[Tuple[str, str], Tolerance], ...] = ()

  def with_override(self, backend: str, dtype_name: str, tolerance: Tolerance) -> "TolerancePolicy":
    return TolerancePolicy(self.overrides + (((backend, dtype_name), tolerance),))

  def for_dtype(self, dtype: np.dtype, backend_names: Sequence[str] = (),
                rtol: Optional[float] = None, atol: Optional[float] = None) -> Tolerance:
    """The tolerance for `dtype` on a backend known by any of `backend_names` (the first one
    with an override wins); per-call `rtol`/`atol` win over both the table and the overrides."""
    if not is_inexact(dtype):
      return EXACT
    key = (self, np.dtype(dtype), tuple(backend_names))
    try:
      base = _table_row(*key)
    except TypeError:  # an override holding something unhashable: not cached.
      base = _table_row.__wrapped__(*key)
    if rtol is None and atol is None:
      return base
    return Tolerance(base.rtol if rtol is None else rtol, base.atol if atol is None else atol)


@functools.lru_cache(maxsize=256)  # a pure function of immutable arguments, asked per array.
def _table_row(policy: TolerancePolicy, dtype: np.dtype, backend_names: Tuple[str, ...]
               ) -> Tolerance:
  """The table's tolerance for the inexact `dtype`, or the first backend's override of it."""
  name = dtype.name
  table = dict(policy.overrides)
  for backend in backend_names:
    if (backend, name) in table:
      return table[(backend, name)]
  return DEFAULT_TOLERANCES.get(name, DEFAULT_TOLERANCES["float64"])


DEFAULT_POLICY = TolerancePolicy()


def _parse_bound(entry: str, what: str, text: str) -> float:
  try:
    value = float(text)
  except ValueError:
    value = math.nan
  if not value >= 0:  # also rejects NaN and text that is not a number.
    raise ValueError(f"Invalid tolerance override '{entry}': {what} '{text}' is not a number "
                     f">= 0; expected {_FORMAT}.")
  return value


def parse_overrides(text: str, base: TolerancePolicy = DEFAULT_POLICY) -> TolerancePolicy:
  """`base` with the `backend:dtype:rtol:atol` entries of `text` (commas between; the
  --tolerances flag) layered on top. Pure: ValueError names the first bad entry."""
  policy = base
  for entry in filter(None, (part.strip() for part in (text or "").split(","))):
    fields = entry.split(":")
    if len(fields) != 4:
      raise ValueError(f"Invalid tolerance override '{entry}': expected {_FORMAT}.")
    backend, dtype_name, rtol, atol = fields
    if not backend:
      raise ValueError(f"Invalid tolerance override '{entry}': the backend name is empty; "
                       f"expected {_FORMAT}.")
    if dtype_name not in DEFAULT_TOLERANCES:
      raise ValueError(f"Invalid tolerance override '{entry}': dtype '{dtype_name}' is not one of "
                       f"{', '.join(DEFAULT_TOLERANCES)}.")
    policy = policy.with_override(backend, dtype_name, Tolerance(
        _parse_bound(entry, "rtol", rtol), _parse_bound(entry, "atol", atol)))
  return policy


def for_dtype(dtype: np.dtype, backend_names: Sequence[str] = (),
              rtol: Optional[float] = None, atol: Optional[float] = None,
              policy: TolerancePolicy = DEFAULT_POLICY) -> Tolerance:
  """`policy.for_dtype(...)`: the table's tolerance unless `policy` or the call overrides it."""
  return policy.for_dtype(dtype, backend_names, rtol, atol)
