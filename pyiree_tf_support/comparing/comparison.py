"""Comparing nested values: pure functions that return mismatch records, one record class per
kind of difference, and the one place (`describe`) that turns a record into words.

Kinds: structure (kind, keys or length), shape, dtype, NaN/Inf placement, numeric (floats and
complex beyond tolerance, finite elements only) and exact (integers, bools, strings). One array can
give both a NaN/Inf placement and a numeric record, so a NaN never hides the worst finite
difference. A record's path is a tuple: the compared value's name ("inputs", "outputs"), then dict
keys and sequence indices; it becomes text only in `describe`. "First" means first in C order.
The records, the rules that produce them and the message builder live together: they change
together.

How close values that passed came is measured in the same pass: `compare_closely` also returns
the greatest difference as a fraction of its tolerance (|got - expected| / (atol + rtol *
|expected|), over finite elements), so a pass at 0.95 of the tolerance can say so.
"""

import dataclasses
import math
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing.tolerances import Tolerance
from pyiree_tf_support.core import structure

ToleranceFn = Callable[[np.dtype], Tolerance]
Path = Tuple[Any, ...]
Index = Tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Element:
  """One element of the compared arrays: where it is and what each side holds."""
  index: Index
  expected: Any
  got: Any


@dataclasses.dataclass(frozen=True)
class StructureMismatch:
  """Containers that differ: `what` is "kind" (descriptions), "keys" (key lists) or "length"."""
  path: Path
  what: str
  expected: Any
  got: Any


@dataclasses.dataclass(frozen=True)
class ShapeMismatch:
  path: Path
  expected: Index
  got: Index


@dataclasses.dataclass(frozen=True)
class DtypeMismatch:
  path: Path
  expected: str
  got: str


@dataclasses.dataclass(frozen=True)
class NonFiniteMismatch:
  """NaN or Inf where the other side has something else (see `_placement_differs`)."""
  path: Path
  dtype: str
  shape: Index
  count: int
  first: Element


@dataclasses.dataclass(frozen=True)
class NumericMismatch:
  """Finite elements of an inexact dtype beyond tolerance; `ulps` is the distance in units in the
  last place at the greatest absolute difference (real floats only): a few ulps is a precision
  limit, millions a wrong result."""
  path: Path
  dtype: str
  shape: Index
  count: int
  greatest_abs: Element
  abs_diff: float
  greatest_rel: Element
  rel_diff: float
  ulps: Optional[int]
  tolerance: Tolerance


@dataclasses.dataclass(frozen=True)
class ExactMismatch:
  """Integers, bools or strings that differ; for integers also the greatest difference."""
  path: Path
  dtype: str
  shape: Index
  count: int
  first: Element
  greatest: Optional[Element] = None
  greatest_diff: Optional[int] = None


Mismatch = Union[StructureMismatch, ShapeMismatch, DtypeMismatch, NonFiniteMismatch,
                 NumericMismatch, ExactMismatch]


@dataclasses.dataclass(frozen=True)
class Comparison:
  """Every mismatch of two values, and how close they came: `worst_fraction` is the greatest
  difference as a fraction of its tolerance (0 when every element is equal; over 1, or inf, for
  a mismatch; exact dtypes count 0 when equal and inf when not)."""
  mismatches: Tuple[Mismatch, ...]
  worst_fraction: float


def compare(ref: Any, tar: Any, path: str = "value",
            tolerance_fn: Optional[ToleranceFn] = None) -> List[Mismatch]:
  """Every mismatch between `ref` and `tar` (nested dicts/lists/tuples of arrays and scalars);
  `path` names the compared value in messages."""
  return list(compare_closely(ref, tar, path, tolerance_fn).mismatches)


def compare_closely(ref: Any, tar: Any, path: str = "value",
                    tolerance_fn: Optional[ToleranceFn] = None) -> Comparison:
  """`compare`'s mismatches and the worst difference as a fraction of its tolerance."""
  tolerance_fn = tolerance_fn or tolerances.for_dtype
  mismatches: List[Mismatch] = []
  worst = 0.0
  for sub_path, r, t in structure.zip_paths(ref, tar):
    full_path = (path,) + sub_path
    if structure.is_container(r) or structure.is_container(t) or (r is None) != (t is None):
      mismatches.append(_structure_mismatch(full_path, r, t))
      worst = np.inf
    elif r is not None:
      found, fraction = _compare_arrays(np.asarray(r), np.asarray(t), full_path, tolerance_fn)
      mismatches += found
      worst = max(worst, fraction)
  return Comparison(tuple(mismatches), float(worst))


def _structure_mismatch(path: Path, ref: Any, tar: Any) -> StructureMismatch:
  if isinstance(ref, dict) and isinstance(tar, dict):
    return StructureMismatch(path, "keys", _keys(ref), _keys(tar))
  sequences = (list, tuple)
  if isinstance(ref, sequences) and isinstance(tar, sequences):
    return StructureMismatch(path, "length", len(ref), len(tar))
  return StructureMismatch(path, "kind", _describe_value(ref), _describe_value(tar))


def _keys(d: dict) -> Tuple[Any, ...]:
  return tuple(sorted(d, key=repr))


def _describe_value(value: Any) -> str:
  if isinstance(value, dict):
    return f"a dict with keys {list(_keys(value))}"
  if isinstance(value, (list, tuple)):
    return f"a {type(value).__name__} of {len(value)} items"
  if value is None:
    return "None"
  array = np.asarray(value)
  return f"{array.dtype}{list(array.shape)} array"


def _index_of(flat_index: int, shape: Index) -> Index:
  return tuple(int(i) for i in np.unravel_index(flat_index, shape)) if shape else ()


def _element(ref: np.ndarray, tar: np.ndarray, index: Index) -> Element:
  return Element(index, ref[index], tar[index])


def _compare_arrays(ref: np.ndarray, tar: np.ndarray, path: Path,
                    tolerance_fn: ToleranceFn) -> Tuple[List[Mismatch], float]:
  """One array pair: shapes and dtypes must match exactly; then the elements. Returns the
  mismatches and the worst difference as a fraction of the tolerance."""
  if ref.shape != tar.shape:
    return [ShapeMismatch(path, tuple(ref.shape), tuple(tar.shape))], np.inf
  if ref.dtype != tar.dtype:
    return [DtypeMismatch(path, str(ref.dtype), str(tar.dtype))], np.inf
  if tolerances.is_inexact(ref.dtype):
    tolerance = tolerance_fn(ref.dtype)
    if tar is ref and _plain_numbers(tolerance):  # the target's record shares the reference's
      return [], 0.0                               # array: the same bits (recorded_values).
    return _compare_inexact(ref, tar, path, tolerance)
  if tar is ref and ref.dtype.kind in "biu":
    return [], 0.0
  mismatch = _compare_exact(ref, tar, path)
  return ([mismatch], np.inf) if mismatch else ([], 0.0)


def _plain_numbers(tolerance: Tolerance) -> bool:
  """Whether both bounds are finite numbers >= 0, under which equal bits always pass (anything
  else goes through the element comparison, which raises or reports as it always did)."""
  bounds = (tolerance.atol, tolerance.rtol)
  if type(bounds[0]) is float and type(bounds[1]) is float:  # the table's and flags': quickly.
    return all(0.0 <= v < math.inf for v in bounds)  # False for NaN, as np.isfinite says.
  return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
             and np.isfinite(v) and v >= 0 for v in (tolerance.atol, tolerance.rtol))


# Elements compared at a time: the float64 (complex128) copies and masks of a chunk take a few MB
# whatever the arrays' size (over whole arrays they took ~10x the data).
_CHUNK_ELEMENTS = 1 << 16


def _chunks(ref: np.ndarray, tar: np.ndarray) -> Iterator[Tuple[int, np.ndarray, np.ndarray]]:
  """(offset, ref part, tar part) of the arrays in C order; an empty pair for empty arrays, so
  that bad tolerances raise whatever the size. Views, unless an array is not contiguous."""
  flat_ref, flat_tar = ref.reshape(-1), tar.reshape(-1)
  for start in range(0, max(flat_ref.size, 1), _CHUNK_ELEMENTS):
    yield start, flat_ref[start:start + _CHUNK_ELEMENTS], flat_tar[start:start + _CHUNK_ELEMENTS]


class _Greatest:
  """The first element with the greatest value, over chunks seen in C order (np.argmax's
  choice over the whole array)."""

  def __init__(self):
    self.value = -np.inf
    self.index = -1

  def update(self, start: int, values: np.ndarray, mask: np.ndarray) -> None:
    i = int(np.argmax(np.where(mask, values, -1.0)))
    value = values[i]  # NaN counts as the greatest, as for np.argmax.
    if self.index < 0 or (not np.isnan(self.value) and (np.isnan(value) or value > self.value)):
      self.value, self.index = value, start + i


class _Count:
  """How many elements of a mask over chunks are set, and the first that is."""

  def __init__(self):
    self.count = 0
    self.first = -1

  def add(self, start: int, mask: np.ndarray) -> None:
    found = int(np.count_nonzero(mask))
    if found and not self.count:
      self.first = start + int(np.argmax(mask))
    self.count += found


def _compare_exact(ref: np.ndarray, tar: np.ndarray, path: Path) -> Optional[ExactMismatch]:
  bad, greatest = _Count(), _Greatest()
  for start, r, t in _chunks(ref, tar):
    mask = ~np.asarray(r == t, dtype=bool).reshape(r.shape)
    bad.add(start, mask)
    if ref.dtype.kind in "iu" and mask.any():
      # float64 ranks the differences; the reported one is exact (Python ints do not overflow).
      greatest.update(start, np.abs(r.astype(np.float64) - t.astype(np.float64)), mask)
  if not bad.count:
    return None
  shape = tuple(ref.shape)
  greatest_element, greatest_diff = None, None
  if greatest.index >= 0:
    greatest_element = _element(ref, tar, _index_of(greatest.index, shape))
    greatest_diff = abs(int(greatest_element.expected) - int(greatest_element.got))
  return ExactMismatch(path, str(ref.dtype), shape, bad.count,
                       _element(ref, tar, _index_of(bad.first, shape)), greatest_element,
                       greatest_diff)


def _placement_differs(ref: np.ndarray, tar: np.ndarray) -> np.ndarray:
  """Where one side is NaN or Inf and the other does not hold the same non-finite value.

  A complex value is NaN when either part is NaN, and two NaNs match whatever their other parts
  hold; a complex value with an infinite part (and no NaN) matches only an identical value.
  """
  ref_nan, tar_nan = np.isnan(ref), np.isnan(tar)
  non_finite = ~np.isfinite(ref) | ~np.isfinite(tar)
  same = (ref_nan & tar_nan) | (~ref_nan & ~tar_nan & (ref == tar))
  return non_finite & ~same


def _wide(array: np.ndarray) -> np.ndarray:
  """A copy whose differences need no rounding or overflow care (bfloat16 and float16 too)."""
  return array.astype(np.complex128 if np.iscomplexobj(array) else np.float64)


def _compare_inexact(ref: np.ndarray, tar: np.ndarray, path: Path,
                     tolerance: Tolerance) -> Tuple[List[Mismatch], float]:
  placement, bad = _Count(), _Count()
  greatest_abs, greatest_rel = _Greatest(), _Greatest()
  worst_fraction = 0.0
  for start, r, t in _chunks(ref, tar):
    wide_ref, wide_tar = _wide(r), _wide(t)
    placement.add(start, _placement_differs(wide_ref, wide_tar))
    finite = np.isfinite(wide_ref) & np.isfinite(wide_tar)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
      diffs = np.abs(wide_tar - wide_ref)
      bound = tolerance.atol + tolerance.rtol * np.abs(wide_ref)  # np.isclose's, in one pass.
      mask = finite & ~(diffs <= bound)
      # 0/0 (equal under zero tolerance) is no difference: NaN, which the where leaves out.
      fractions = np.where(finite & (diffs > 0), diffs / bound, 0.0)
      if fractions.size:
        worst_fraction = max(worst_fraction, float(np.max(fractions)))
      if not mask.any():
        continue
      bad.add(start, mask)
      greatest_abs.update(start, diffs, mask)
      greatest_rel.update(start, diffs / np.abs(wide_ref), mask)  # inf where the reference is 0.
  shape, dtype = tuple(ref.shape), str(ref.dtype)
  mismatches: List[Mismatch] = []
  if placement.count:
    worst_fraction = np.inf
    mismatches.append(NonFiniteMismatch(path, dtype, shape, placement.count,
                                        _element(ref, tar, _index_of(placement.first, shape))))
  if not bad.count:
    return mismatches, worst_fraction
  worst = _element(ref, tar, _index_of(greatest_abs.index, shape))
  mismatches.append(NumericMismatch(
      path, dtype, shape, bad.count, worst, float(greatest_abs.value),
      _element(ref, tar, _index_of(greatest_rel.index, shape)), float(greatest_rel.value),
      ulp_distance(worst.expected, worst.got), tolerance))
  return mismatches, worst_fraction


_SAME_WIDTH_INTS = {2: np.int16, 4: np.int32, 8: np.int64}


def ulp_distance(a: Any, b: Any) -> Optional[int]:
  """How many representable values of their (real floating) dtype lie from `a` to `b`; None
  for other dtypes. +0 and -0 are the same value."""
  a, b = np.asarray(a), np.asarray(b)
  int_type = _SAME_WIDTH_INTS.get(a.dtype.itemsize)
  if not tolerances.is_inexact(a.dtype) or np.iscomplexobj(a) or int_type is None:
    return None
  magnitude_mask = (1 << (8 * a.dtype.itemsize - 1)) - 1

  def ordinal(x: np.ndarray) -> int:
    bits = int(x.reshape(1).view(int_type)[0])
    return bits if bits >= 0 else -(bits & magnitude_mask)

  return abs(ordinal(a) - ordinal(b))


# The one message builder.

def _value(value: Any) -> str:
  """An element as its dtype prints it (float32 11.3, not 11.300000190734863)."""
  return str(value) if isinstance(value, (np.number, np.bool_)) else repr(value)


def _index(index: Index) -> str:
  return "[" + ", ".join(map(str, index)) + "]"


def _values(element: Element) -> str:
  return f"expected {_value(element.expected)}, got {_value(element.got)}"


def _at(element: Element) -> str:
  return f"at index {_index(element.index)} ({_values(element)})"


def _ulps(ulps: Optional[int], separator: str = ", ") -> str:
  return "" if ulps is None else f"{separator}{ulps} ulp{'' if ulps == 1 else 's'} apart"


def _count(count: int, shape: Index) -> str:
  total = int(np.prod(shape))
  return f"{count} of {total} elements ({100.0 * count / total:.1f}%)"


def _describe_structure(m: StructureMismatch) -> str:
  if m.what == "keys":
    return f"expected keys {list(m.expected)}, got {list(m.got)}"
  if m.what == "length":
    return f"expected {m.expected} items, got {m.got}"
  return f"expected {m.expected}, got {m.got}"


def _describe_non_finite(m: NonFiniteMismatch) -> str:
  if not m.shape:
    return f"{m.dtype} scalars differ in NaN/Inf: {_values(m.first)}"
  return (f"{m.dtype}{list(m.shape)} arrays differ in NaN/Inf placement: {_count(m.count, m.shape)}"
          f"; first {_at(m.first)}")


def _describe_numeric(m: NumericMismatch) -> str:
  if not m.shape:
    return (f"scalars are not close ({m.dtype}): {_values(m.greatest_abs)} (absolute difference "
            f"{m.abs_diff:g}, relative difference {m.rel_diff:g}{_ulps(m.ulps, '; ')}; "
            f"{m.tolerance})")
  return (f"{m.dtype}{list(m.shape)} arrays are not close: {_count(m.count, m.shape)} differ; "
          f"greatest absolute difference {m.abs_diff:g} {_at(m.greatest_abs)}{_ulps(m.ulps)}; "
          f"greatest relative difference {m.rel_diff:g} {_at(m.greatest_rel)}; {m.tolerance}")


def _describe_exact(m: ExactMismatch) -> str:
  if not m.shape:
    return f"scalars are not equal ({m.dtype}): {_values(m.first)} (exact comparison)"
  text = (f"{m.dtype}{list(m.shape)} arrays are not equal: {_count(m.count, m.shape)} differ; "
          f"first {_at(m.first)}")
  if m.greatest is not None and m.greatest_diff:
    text += f"; greatest absolute difference {m.greatest_diff} {_at(m.greatest)}"
  return text + "; exact comparison"


_DESCRIBERS = {
    StructureMismatch: _describe_structure,
    ShapeMismatch: lambda m: f"shape mismatch: expected {list(m.expected)}, got {list(m.got)}",
    DtypeMismatch: lambda m: f"dtype mismatch: expected {m.expected}, got {m.got}",
    NonFiniteMismatch: _describe_non_finite,
    NumericMismatch: _describe_numeric,
    ExactMismatch: _describe_exact,
}


def describe(mismatch: Mismatch) -> str:
  """The human-readable account of one mismatch, as it appears in assertion messages."""
  where = structure.format_path(mismatch.path[0], mismatch.path[1:])
  return f"{where}: {_DESCRIBERS[type(mismatch)](mismatch)}."


def describe_all(mismatches: List[Mismatch], limit: int = 10) -> str:
  """Several mismatches, one per line, capped at `limit` lines so huge outputs stay readable."""
  lines = [describe(m) for m in mismatches[:limit]]
  if len(mismatches) > limit:
    lines.append(f"... and {len(mismatches) - limit} more mismatching values.")
  return "\n".join(lines)
