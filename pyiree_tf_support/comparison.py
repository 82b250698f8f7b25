"""Comparing nested values: pure functions that return mismatch records, and the one place
(`describe`) that turns a record into the words of a failure message."""

import dataclasses
from typing import Any, Callable, List, Optional, Tuple, Union

import numpy as np

from pyiree_tf_support import tolerances
from pyiree_tf_support.tolerances import Tolerance

ToleranceFn = Callable[[np.dtype], Tolerance]


@dataclasses.dataclass(frozen=True)
class StructureMismatch:
  """The two values differ in kind, keys, length, shape or dtype: no element-wise comparison."""
  path: str
  reason: str


@dataclasses.dataclass(frozen=True)
class ValueMismatch:
  """Arrays (or scalars) of equal shape and dtype whose elements differ beyond tolerance."""
  path: str
  shape: Tuple[int, ...]
  dtype: str
  mismatched: int
  total: int
  max_abs_diff: float
  max_abs_index: Tuple[int, ...]
  ref_value: Any
  tar_value: Any
  max_rel_diff: float
  max_rel_index: Tuple[int, ...]
  tolerance: Tolerance


Mismatch = Union[StructureMismatch, ValueMismatch]


def _as_array(value: Any) -> np.ndarray:
  return value if isinstance(value, np.ndarray) else np.asarray(value)


def _kind(value: Any) -> str:
  if isinstance(value, dict):
    return "dict"
  if isinstance(value, (list, tuple)):
    return "sequence"
  if value is None:
    return "None"
  return "array"


def compare(ref: Any, tar: Any, path: str = "value",
            tolerance_fn: Optional[ToleranceFn] = None) -> List[Mismatch]:
  """Every mismatch between `ref` and `tar` (nested dicts/lists/tuples of arrays and scalars)."""
  tolerance_fn = tolerance_fn or (lambda dtype: tolerances.for_dtype(dtype))
  mismatches: List[Mismatch] = []
  _compare(ref, tar, path, tolerance_fn, mismatches)
  return mismatches


def _compare(ref, tar, path, tolerance_fn, out) -> None:
  ref_kind, tar_kind = _kind(ref), _kind(tar)
  if ref_kind != tar_kind:
    out.append(StructureMismatch(path, f"expected {_describe_kind(ref)}, got {_describe_kind(tar)}"))
  elif ref_kind == "dict":
    if set(ref) != set(tar):
      out.append(StructureMismatch(
          path, f"expected keys {sorted(map(repr, ref))}, got {sorted(map(repr, tar))}"))
      return
    for key in ref:
      _compare(ref[key], tar[key], f"{path}[{key!r}]", tolerance_fn, out)
  elif ref_kind == "sequence":
    if len(ref) != len(tar):
      out.append(StructureMismatch(path, f"expected {len(ref)} items, got {len(tar)}"))
      return
    for i, (r, t) in enumerate(zip(ref, tar)):
      _compare(r, t, f"{path}[{i}]", tolerance_fn, out)
  elif ref_kind == "array":
    mismatch = compare_arrays(_as_array(ref), _as_array(tar), path, tolerance_fn)
    if mismatch is not None:
      out.append(mismatch)


def _describe_kind(value: Any) -> str:
  kind = _kind(value)
  if kind == "dict":
    return f"a dict with keys {sorted(map(repr, value))}"
  if kind == "sequence":
    return f"a {type(value).__name__} of {len(value)} items"
  if kind == "None":
    return "None"
  array = _as_array(value)
  return f"{array.dtype}{list(array.shape)} array"


def _widen(array: np.ndarray) -> np.ndarray:
  """A copy in a dtype where differences can be computed without overflow or lost precision."""
  if np.issubdtype(array.dtype, np.complexfloating):
    return array.astype(np.complex128)
  if array.dtype.kind in "biuf" or tolerances.is_inexact(array.dtype):
    return array.astype(np.float64)
  return array


def compare_arrays(ref: np.ndarray, tar: np.ndarray, path: str,
                   tolerance_fn: ToleranceFn) -> Optional[Mismatch]:
  """One array pair: shapes and dtypes must match exactly; then elements within tolerance."""
  if ref.shape != tar.shape:
    return StructureMismatch(path, f"shape mismatch: expected {list(ref.shape)}, got {list(tar.shape)}")
  if ref.dtype != tar.dtype:
    return StructureMismatch(path, f"dtype mismatch: expected {ref.dtype}, got {tar.dtype}")
  tolerance = tolerance_fn(ref.dtype)
  exact = not tolerances.is_inexact(ref.dtype)
  if exact and ref.dtype.kind not in "biu":
    close = np.asarray(ref == tar, dtype=bool).reshape(ref.shape)
    diffs = None
  else:
    wide_ref, wide_tar = _widen(ref), _widen(tar)
    if exact:
      close = wide_ref == wide_tar
    else:
      close = np.isclose(wide_tar, wide_ref, rtol=tolerance.rtol, atol=tolerance.atol,
                         equal_nan=True)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
      diffs = np.abs(wide_tar - wide_ref)
  if bool(np.all(close)):
    return None
  return _value_mismatch(ref, tar, path, close, diffs, tolerance)


def _value_mismatch(ref, tar, path, close, diffs, tolerance) -> ValueMismatch:
  bad = ~close
  if diffs is None:  # strings and other exact non-numeric values: report the first difference.
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if ref.ndim else ()
    abs_index = rel_index = first
    max_abs = max_rel = float("nan")
  else:
    # NaN against a number has no finite difference; rank those first.
    abs_diffs = np.where(bad, np.where(np.isnan(diffs), np.inf, diffs), -1.0)
    abs_index = np.unravel_index(int(np.argmax(abs_diffs)), ref.shape) if ref.ndim else ()
    max_abs = float(diffs[abs_index]) if ref.ndim else float(diffs)
    with np.errstate(invalid="ignore", divide="ignore"):
      rel = np.where(bad, diffs / np.abs(_widen(ref)), -1.0)
    rel = np.where(np.isnan(rel), np.inf, rel)
    rel_index = np.unravel_index(int(np.argmax(rel)), ref.shape) if ref.ndim else ()
    max_rel = float(rel[rel_index]) if ref.ndim else float(rel)
  abs_index = tuple(int(i) for i in abs_index)
  rel_index = tuple(int(i) for i in rel_index)
  return ValueMismatch(
      path=path, shape=tuple(ref.shape), dtype=str(ref.dtype),
      mismatched=int(np.count_nonzero(bad)), total=int(ref.size),
      max_abs_diff=max_abs, max_abs_index=abs_index,
      ref_value=_element(ref, abs_index),
      tar_value=_element(tar, abs_index),
      max_rel_diff=max_rel, max_rel_index=rel_index, tolerance=tolerance)


def _element(array: np.ndarray, index: Tuple[int, ...]) -> Any:
  return array[index] if array.ndim else array[()]


def _value(value: Any) -> str:
  """An element as its dtype prints it (float32 11.3, not 11.300000190734863)."""
  return str(value) if isinstance(value, (np.number, np.bool_)) else repr(value)


def _index(index: Tuple[int, ...]) -> str:
  return "[" + ", ".join(map(str, index)) + "]"


def describe(mismatch: Mismatch) -> str:
  """The human-readable account of one mismatch, as it appears in assertion messages."""
  if isinstance(mismatch, StructureMismatch):
    return f"{mismatch.path}: {mismatch.reason}."
  m = mismatch
  if not m.shape:
    return (f"{m.path}: scalars are not close ({m.dtype}): expected {_value(m.ref_value)}, "
            f"got {_value(m.tar_value)} (absolute difference {m.max_abs_diff:g}, relative difference "
            f"{m.max_rel_diff:g}; {m.tolerance}).")
  percent = 100.0 * m.mismatched / m.total
  tolerance = "exact comparison" if m.tolerance == tolerances.EXACT else str(m.tolerance)
  if np.isnan(m.max_abs_diff):
    detail = (f"first at index {_index(m.max_abs_index)}: expected {_value(m.ref_value)}, "
              f"got {_value(m.tar_value)}")
  else:
    detail = (f"greatest absolute difference {m.max_abs_diff:g} at index {_index(m.max_abs_index)} "
              f"(expected {_value(m.ref_value)}, got {_value(m.tar_value)}); greatest relative difference "
              f"{m.max_rel_diff:g} at index {_index(m.max_rel_index)}")
  return (f"{m.path}: {m.dtype}{list(m.shape)} arrays are not close: {m.mismatched} of {m.total} "
          f"elements ({percent:.1f}%) differ; {detail}; {tolerance}.")


def describe_all(mismatches: List[Mismatch], limit: int = 10) -> str:
  """Several mismatches, one per line, capped at `limit` lines so huge outputs stay readable."""
  lines = [describe(m) for m in mismatches[:limit]]
  if len(mismatches) > limit:
    lines.append(f"... and {len(mismatches) - limit} more mismatching values.")
  return "\n".join(lines)
