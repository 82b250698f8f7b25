"""Tolerance policy as data: a per-dtype table, per-backend overrides, per-call overrides.

Exact dtypes (integers, bools, strings) never take a tolerance. For floating dtypes the seed's
1e-6 stays the float32 default; the looser rows follow each type's machine epsilon.
"""

import dataclasses
from typing import Dict, Mapping, Optional, Sequence

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

# Per-backend overrides of the table, keyed by backend name (canonical, alias or artifact name).
_BACKEND_OVERRIDES: Dict[str, Dict[str, Tolerance]] = {}


def is_inexact(dtype: np.dtype) -> bool:
  """True for dtypes compared with a tolerance (floats, complex, bfloat16)."""
  return np.dtype(dtype).name in DEFAULT_TOLERANCES or np.issubdtype(dtype, np.inexact)


def set_backend_override(backend: str, dtype_name: str, tolerance: Tolerance) -> None:
  """Loosens (or tightens) one dtype's tolerance for one backend, without editing test files."""
  _BACKEND_OVERRIDES.setdefault(backend, {})[dtype_name] = tolerance


def clear_backend_overrides() -> None:
  _BACKEND_OVERRIDES.clear()


def parse_overrides(text: str) -> None:
  """Applies `backend:dtype:rtol:atol` entries separated by commas (the --tolerances flag)."""
  for entry in filter(None, (part.strip() for part in text.split(","))):
    fields = entry.split(":")
    if len(fields) != 4:
      raise ValueError(f"Invalid tolerance override '{entry}': expected backend:dtype:rtol:atol, "
                       "e.g. iree_vulkan:float32:1e-5:1e-5.")
    backend, dtype_name, rtol, atol = fields
    if dtype_name not in DEFAULT_TOLERANCES:
      raise ValueError(f"Invalid tolerance override '{entry}': dtype '{dtype_name}' is not one of "
                       f"{', '.join(DEFAULT_TOLERANCES)}.")
    set_backend_override(backend, dtype_name, Tolerance(float(rtol), float(atol)))


def for_dtype(dtype: np.dtype,
              backend_names: Sequence[str] = (),
              rtol: Optional[float] = None,
              atol: Optional[float] = None) -> Tolerance:
  """The tolerance for `dtype` on a backend known by any of `backend_names`; per-call values win."""
  if not is_inexact(dtype):
    return EXACT
  name = np.dtype(dtype).name
  base = DEFAULT_TOLERANCES.get(name, DEFAULT_TOLERANCES["float64"])
  for backend in backend_names:
    if name in _BACKEND_OVERRIDES.get(backend, {}):
      base = _BACKEND_OVERRIDES[backend][name]
      break
  return Tolerance(base.rtol if rtol is None else rtol, base.atol if atol is None else atol)
