"""Casting a call's input to its signature's dtype, refusing values whose meaning would be lost.

A trace that passes `None` or `"abc"` to a float32 function would otherwise become NaN on every
backend, and NaN equals NaN: the comparison passes having tested nothing. The rules, in order
(README.md "Guarantees" lists them for users):

- `None` anywhere in the value is an error (TensorFlow raises TypeError for it too);
- strings go only to string inputs, and string inputs take only strings;
- complex values go only to complex inputs (the imaginary part would be dropped);
- NaN or infinity go only to float or complex inputs;
- bool inputs take bools, or numbers that are all 0 or 1;
- integers and floats must lie within the range of an integer input (no wraparound).

Allowed and silent, as TensorFlow's own conversions are: float -> integer truncates toward zero
(1.5 -> 1), int64 -> float32 and float64 -> float32 round to the nearest representable value.
"""

from typing import Any, Callable, List, Optional, Tuple

import numpy as np


class InputCastError(TypeError):
  """An input cannot be given to the function without changing what it means."""


def _contains_none(value: Any) -> bool:
  if value is None:
    return True
  if isinstance(value, (list, tuple)):
    return any(_contains_none(item) for item in value)
  if isinstance(value, np.ndarray) and value.dtype == object:
    return any(item is None for item in value.flat)
  return False


def _is_string(dtype: np.dtype) -> bool:
  return dtype.kind in "USO"


def _is_float_like(dtype: np.dtype) -> bool:
  """float, complex, or one of ml_dtypes' floats (numpy kind 'V', e.g. bfloat16)."""
  return dtype.kind in "fcV"


def _string_rule(array: np.ndarray, dtype: np.dtype) -> Optional[str]:
  if _is_string(array.dtype) != _is_string(dtype):
    return f"is {array.dtype} data, which cannot become {dtype}"
  return None


def _complex_rule(array: np.ndarray, dtype: np.dtype) -> Optional[str]:
  if array.dtype.kind == "c" and dtype.kind != "c":
    return f"is complex, and {dtype} would drop its imaginary part"
  return None


def _non_finite_rule(array: np.ndarray, dtype: np.dtype) -> Optional[str]:
  if array.dtype.kind in "fc" and not _is_float_like(dtype) and not np.all(np.isfinite(array)):
    return f"contains NaN or infinity, which {dtype} cannot hold"
  return None


def _bool_rule(array: np.ndarray, dtype: np.dtype) -> Optional[str]:
  if dtype.kind == "b" and array.dtype.kind != "b" and not np.all((array == 0) | (array == 1)):
    return "has values other than 0 and 1 for a bool input"
  return None


def _range_rule(array: np.ndarray, dtype: np.dtype) -> Optional[str]:
  if dtype.kind not in "iu" or array.dtype.kind not in "iuf" or array.size == 0:
    return None
  info = np.iinfo(dtype)
  low, high = array.min(), array.max()
  if low < info.min or high > info.max:
    return f"has values in [{low}, {high}], outside {dtype}'s range [{info.min}, {info.max}]"
  return None


# Checked in order on the value as numpy sees it; the first problem found is the error.
_RULES: Tuple[Callable[[np.ndarray, np.dtype], Optional[str]], ...] = (
    _string_rule, _complex_rule, _non_finite_rule, _bool_rule, _range_rule)


def problems(array: np.ndarray, dtype: np.dtype) -> List[str]:
  """Why `array` cannot become `dtype` without loss of meaning (empty when it can)."""
  return [problem for rule in _RULES if (problem := rule(array, dtype))]


def cast(value: Any, dtype: np.dtype, where: str) -> np.ndarray:
  """`value` as an array of `dtype`; InputCastError naming `where` if its meaning would change."""
  if _contains_none(value):
    raise InputCastError(f"{where} contains None, which no tensor can hold; pass a number or array.")
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
  found = problems(array, dtype)
  if found:
    raise InputCastError(f"{where} {found[0]}.")
  with np.errstate(all="ignore"):
    return array.astype(dtype)
