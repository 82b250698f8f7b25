"""What a trace keeps of a call's values: a deep copy, so that a trace function changing an array
after the call (a buffer reused for every call) cannot change the record; except that an array
holding bit for bit what the reference backend recorded at the same place of the same call is
not copied but shared with the reference's record. So a target's inputs, and the outputs of a
target that agrees with the reference, take no memory of their own (a 200 MB
input was held twice per target, input and output, besides the reference's copies).

Records are never changed once made, so sharing an array between two of them is safe.
"""

import copy
from typing import Any, Dict, Optional

import numpy as np

_CHUNK_BYTES = 1 << 20  # bytes compared at a time: the comparison's mask stays small.
NOTHING = object()  # "no reference value here", as opposed to a recorded None.


def same_bits(value: np.ndarray, recorded: Any) -> bool:
  """Whether `recorded` is an array of the type, dtype and shape of `value` holding the same
  bytes (so -0.0 differs from 0.0, and a NaN equals the same NaN)."""
  same_type = type(recorded) is type(value)
  if not (same_type and recorded.dtype == value.dtype and recorded.shape == value.shape):
    return False
  if value.dtype.hasobject or not value.dtype.itemsize:
    return False
  if not (value.flags.c_contiguous and recorded.flags.c_contiguous):
    return False  # rare: copying costs what comparing would.
  if value.nbytes <= _CHUNK_BYTES:  # one chunk: its bytes, without array_equal's set-up.
    return value.tobytes() == recorded.tobytes()
  ours = value.reshape(-1).view(np.uint8)
  theirs = recorded.reshape(-1).view(np.uint8)
  return all(np.array_equal(ours[start:start + _CHUNK_BYTES], theirs[start:start + _CHUNK_BYTES])
             for start in range(0, ours.size, _CHUNK_BYTES))


def record(value: Any, reference: Any = NOTHING, memo: Optional[Dict[int, Any]] = None) -> Any:
  """A deep copy of `value` sharing the arrays of `reference` (the reference backend's record of
  the same value) that hold the same bits; plain dicts, lists and tuples are walked."""
  memo = {} if memo is None else memo
  if isinstance(value, np.ndarray) and same_bits(value, reference):
    return reference
  kind = type(value)
  if kind is np.ndarray and not value.dtype.hasobject:
    return _copy(value, memo)
  if kind is tuple and reference is NOTHING and all(
      type(child) is np.ndarray and not child.dtype.hasobject for child in value):
    return tuple(_copy(child, memo) for child in value)  # a call's inputs, mostly.
  if kind in (list, tuple) and type(reference) is kind and len(reference) == len(value):
    return kind(record(child, ref, memo) for child, ref in zip(value, reference))
  if type(value) is dict and type(reference) is dict:
    return {key: record(child, reference.get(key, NOTHING), memo)
            for key, child in value.items()}
  return copy.deepcopy(value, memo)


def _copy(array: np.ndarray, memo: Dict[int, Any]) -> np.ndarray:
  """What `copy.deepcopy(array, memo)` gives an array of numbers (a copy keeping its memory
  order, the same copy for the same array), without deepcopy's dispatch: every call's values."""
  copied = memo.get(id(array))
  if copied is None:
    copied = memo[id(array)] = array.copy(order="K")
  return copied
