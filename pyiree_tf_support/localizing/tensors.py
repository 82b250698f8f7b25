"""Traced tensors read back and measured a chunk at a time: what keeps the localizer's memory a
small multiple of its largest tensor (docs/localizing.md, Cost). Numpy only.

A tensor a run saved is read memory-mapped (`load`); a mapped page that was read counts in the
process's RSS until the mapping goes, so whoever walks a mapped tensor chunk by chunk drops
its pages as it goes (`release_pages`). Comparisons (events.tensor_error), digests and stats
work on CHUNK_ELEMENTS at a time: done whole, the float64 copies and masks of one comparison
of a 64 MiB float32 pair took 12.75x its size (0.23x chunk-wise; tracemalloc).
"""

import hashlib
import mmap
import os

import numpy as np

# Elements compared at once: each float64 temporary of a chunk is 2 MiB.
CHUNK_ELEMENTS = 1 << 18


def flat(array: np.ndarray) -> np.ndarray:
  """The array in C order, one dimension (a view when it is C-contiguous, as saved ones are)."""
  return array.reshape(-1)


def release_pages(*arrays: np.ndarray) -> None:
  """Drops the resident pages of memory-mapped arrays (np.load's mmap_mode): a read page of a
  mapped file counts in the process's RSS until the mapping goes, so reading a mapped tensor
  chunk-wise would still make it resident whole. The file's pages stay in the page cache; a
  later read maps them again."""
  for array in arrays:
    base = array
    while base is not None and not isinstance(base, mmap.mmap):
      base = getattr(base, "base", None)
    if isinstance(base, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
      base.madvise(mmap.MADV_DONTNEED)


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


# Saved tensors at least this big are memory-mapped, smaller ones read: each mapping counts
# against the process's vm.max_map_count (65530 by default), and a run keeps at most its 1 GiB
# budget as arrays (traced_run.MAX_TOTAL_BYTES): 16384 mappings of this size.
MAP_BYTES = 64 << 10


def load(path: str) -> np.ndarray:
  """A saved .npy: memory-mapped when it is MAP_BYTES or more (an empty one, which cannot be
  mapped, is read), else read."""
  if os.path.getsize(path) >= MAP_BYTES:
    try:
      return np.load(path, mmap_mode="r", allow_pickle=False)
    except ValueError:
      pass
  return np.load(path, allow_pickle=False)
