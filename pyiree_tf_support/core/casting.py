"""Casting a call's input to its signature's dtype, refusing values whose meaning would be lost.

A trace that passes `None` or `"abc"` to a float32 function would otherwise become NaN on every
backend, and NaN equals NaN: the comparison passes having tested nothing. Every dtype numpy and
ml_dtypes know (bfloat16, the float8/float6/float4 types, int4/uint4/int2/..., complex32) falls in
one `Kind`; `_ALLOWED` says which kinds may become which, and the value rules then check the
values (docs/guarantees.md lists the rules for users):

- `None` anywhere in the value is an error (TensorFlow raises TypeError for it too);
- strings go only to string inputs, and string inputs take only strings;
- dates and durations (datetime64, timedelta64), Python objects and other records go nowhere
  (numpy would pass their internal counts, e.g. days since 1970);
- complex values go only to complex inputs (the imaginary part would be dropped);
- NaN or infinity go only to inputs that hold them (not integers or bools; not float4_e2m1fn);
- bool inputs take bools, or numbers that are all 0 or 1;
- integers and floats must lie within the range of an integer input (no wraparound).

Allowed and silent, as TensorFlow's own conversions are: float -> integer truncates toward zero
(1.5 -> 1), int64 -> float32 and float64 -> float32 (or bfloat16, float16) round to the nearest
representable value.
"""

import enum
from typing import Any, Callable, Dict, FrozenSet, Optional, Tuple

import numpy as np


class InputCastError(TypeError):
  """An input cannot be given to the function without changing what it means."""


class Kind(enum.Enum):
  """What the values of a dtype mean, whichever library defines it."""
  BOOL = "bool"
  INTEGER = "integer"
  FLOAT = "float"
  COMPLEX = "complex"
  STRING = "string"
  TIME = "date/time"
  OBJECT = "Python object"
  OTHER = "record"


_REALS = frozenset((Kind.BOOL, Kind.INTEGER, Kind.FLOAT))
_NUMBERS = _REALS | {Kind.COMPLEX}

# The casting table: the kinds of data an input of each kind takes (the value rules come after).
_ALLOWED: Dict[Kind, FrozenSet[Kind]] = {
    Kind.BOOL: _REALS,
    Kind.INTEGER: _REALS,
    Kind.FLOAT: _REALS,
    Kind.COMPLEX: _NUMBERS,
    Kind.STRING: frozenset((Kind.STRING,)),
    Kind.TIME: frozenset(),
    Kind.OBJECT: frozenset(),
    Kind.OTHER: frozenset(),
}

_NUMPY_KINDS = {"b": Kind.BOOL, "i": Kind.INTEGER, "u": Kind.INTEGER, "f": Kind.FLOAT,
                "c": Kind.COMPLEX, "U": Kind.STRING, "S": Kind.STRING, "O": Kind.OBJECT,
                "M": Kind.TIME, "m": Kind.TIME}


def _is_ml_dtype(dtype: np.dtype) -> bool:
  """One of ml_dtypes' types (numpy kind 'V', 'W' or even 'f', so the kind letter cannot tell)."""
  return getattr(dtype.type, "__module__", "") == "ml_dtypes"


def _ml_kind(dtype: np.dtype) -> Kind:
  import ml_dtypes
  try:
    ml_dtypes.iinfo(dtype)
    return Kind.INTEGER
  except ValueError:
    pass
  if "complex" in dtype.name:
    return Kind.COMPLEX
  try:
    ml_dtypes.finfo(dtype)
    return Kind.FLOAT
  except ValueError:
    return Kind.OTHER


def kind_of(dtype: np.dtype) -> Kind:
  """The kind of the values of `dtype` (numpy's or ml_dtypes')."""
  dtype = np.dtype(dtype)
  if _is_ml_dtype(dtype):
    return _ml_kind(dtype)
  return _NUMPY_KINDS.get(dtype.kind, Kind.OTHER)


def _integer_range(dtype: np.dtype) -> Tuple[int, int]:
  if _is_ml_dtype(dtype):
    import ml_dtypes
    info = ml_dtypes.iinfo(dtype)
  else:
    info = np.iinfo(dtype)
  return int(info.min), int(info.max)


def _kind_rule(values: np.ndarray, source: Kind, dtype: np.dtype, target: Kind) -> Optional[str]:
  if source in _ALLOWED[target]:
    return None
  if source is Kind.COMPLEX and target in _NUMBERS:
    return f"is complex, and {dtype} would drop its imaginary part"
  if source is Kind.TIME:
    return (f"is {values.dtype} data (dates or durations), which cannot become {dtype}: numpy "
            "would pass its internal counts (e.g. days since 1970); pass numbers")
  if source is Kind.OBJECT:
    return (f"is {values.dtype} data (Python objects), which cannot become {dtype}; pass numbers "
            "or a numeric array")
  return f"is {values.dtype} data, which cannot become {dtype}"


def _lost(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
  """Which of `values` (NaNs and infinities) do not survive the cast to `dtype` unchanged."""
  with np.errstate(all="ignore"):
    back = values.astype(dtype).astype(values.dtype)
  return ~((np.isnan(values) & np.isnan(back)) | (values == back))


def _non_finite_rule(values: np.ndarray, source: Kind, dtype: np.dtype,
                     target: Kind) -> Optional[str]:
  if source not in (Kind.FLOAT, Kind.COMPLEX) or target is Kind.COMPLEX:
    return None
  non_finite = values[~np.isfinite(values)]
  if target is Kind.FLOAT:  # float4_e2m1fn has neither; float8_e4m3fn no infinity.
    non_finite = non_finite[_lost(non_finite, dtype)]
    found = " and ".join(name for name, lost in (("NaN", np.isnan(non_finite).any()),
                                                 ("infinity", np.isinf(non_finite).any())) if lost)
  else:
    found = "NaN or infinity"
  return f"contains {found}, which {dtype} cannot hold" if non_finite.size else None


def _bool_rule(values: np.ndarray, source: Kind, dtype: np.dtype, target: Kind) -> Optional[str]:
  if target is Kind.BOOL and source is not Kind.BOOL and not np.all((values == 0) | (values == 1)):
    return "has values other than 0 and 1 for a bool input"
  return None


def _range_rule(values: np.ndarray, source: Kind, dtype: np.dtype, target: Kind) -> Optional[str]:
  if target is not Kind.INTEGER or source not in _REALS or values.size == 0:  # True into int1 too.
    return None
  low_bound, high_bound = _integer_range(dtype)
  low, high = values.min(), values.max()
  if low < low_bound or high > high_bound:
    return f"has values in [{low}, {high}], outside {dtype}'s range [{low_bound}, {high_bound}]"
  return None


# Checked in order; the first problem found is the error (the value rules assume an allowed
# kind). numpy's functions work on ml_dtypes' values as on its own.
_RULES: Tuple[Callable[[np.ndarray, Kind, np.dtype, Kind], Optional[str]], ...] = (
    _kind_rule, _non_finite_rule, _bool_rule, _range_rule)


def problem(array: np.ndarray, dtype: np.dtype) -> Optional[str]:
  """Why `array` cannot become `dtype` without loss of meaning (None when it can)."""
  dtype = np.dtype(dtype)
  source, target = kind_of(array.dtype), kind_of(dtype)
  return next((found for rule in _RULES if (found := rule(array, source, dtype, target))), None)


def _contains_none(value: Any) -> bool:
  if value is None:
    return True
  if isinstance(value, (list, tuple)):
    return any(_contains_none(item) for item in value)
  if isinstance(value, np.ndarray) and value.dtype == object:
    return any(item is None for item in value.flat)
  return False


def cast(value: Any, dtype: np.dtype, where: str) -> np.ndarray:
  """`value` as an array of `dtype`; InputCastError naming `where` if its meaning would change."""
  if _contains_none(value):
    raise InputCastError(
        f"{where} contains None, which no tensor can hold; pass a number or array.")
  if dtype.kind == "O":  # string inputs stay as given.
    array = np.asarray(value, dtype=object)
    if not all(isinstance(item, (str, bytes)) for item in array.flat):
      raise InputCastError(f"{where} is a string input, but was given non-string values.")
    return array
  try:
    array = np.asarray(value)
  except ValueError as e:  # ragged nested lists
    raise InputCastError(f"{where} is not a rectangular array: {e}") from None
  if array.dtype == dtype:
    return array
  found = problem(array, dtype)
  if found:
    raise InputCastError(f"{where} {found}.")
  with np.errstate(all="ignore"):
    return array.astype(dtype)
