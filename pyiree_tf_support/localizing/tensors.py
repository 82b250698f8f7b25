"""Traced tensors read back and measured a chunk at a time: what keeps the localizer's memory a
small multiple of its largest tensor (docs/localizing.md, Cost). Numpy only.

A tensor a run saved is read memory-mapped (`load`); a mapped page that was read counts in the
process's RSS until the mapping goes, so whoever walks a mapped tensor chunk by chunk drops
its pages as it goes (`release_pages`; both from comparing/mapped_arrays.py, which the reducer
shares). Comparisons (events.tensor_error), digests and stats work on CHUNK_ELEMENTS at a time:
done whole, the float64 copies and masks of one comparison of a 64 MiB float32 pair took 12.75x
its size (0.23x chunk-wise; tracemalloc).
"""

import hashlib

import numpy as np

from pyiree_tf_support.comparing import mapped_arrays

# Elements compared at once: each float64 temporary of a chunk is 2 MiB.
CHUNK_ELEMENTS = mapped_arrays.CHUNK_ELEMENTS
# Mapped tensors are read and dropped as comparing.mapped_arrays does it (the reducer's too).
release_pages = mapped_arrays.release_pages
load = mapped_arrays.load
MAP_BYTES = mapped_arrays.MAP_BYTES


def flat(array: np.ndarray) -> np.ndarray:
  """The array in C order, one dimension (a view when it is C-contiguous, as saved ones are)."""
  return array.reshape(-1)


def digest(array: np.ndarray) -> str:
  """The sha256 of the array's bytes in C order, hashed chunk-wise (never a whole copy)."""
  contiguous = np.ascontiguousarray(array)  # a view unless the array is not C-contiguous.
  raw = flat(contiguous).view(np.uint8) if contiguous.size else np.zeros(0, np.uint8)
  hashed = hashlib.sha256()
  step = CHUNK_ELEMENTS * 8
  for start in range(0, raw.size, step):
    hashed.update(raw[start:start + step].data)
    release_pages(array)
  return hashed.hexdigest()
