"""Saved arrays memory-mapped and walked a chunk at a time, never read whole: what keeps the
localizer's and the reducer's memory a small multiple of their largest tensor
(docs/localizing.md, Cost; docs/reducing.md, Memory). Numpy only.

A saved .npy is read memory-mapped (`load`); a mapped page that was read counts in the
process's RSS until the mapping goes, so whoever walks a mapped array chunk by chunk drops its
pages as it goes (`release_pages`). `write_raw` writes an array's bytes as iree-run-module reads
them a block at a time (`tobytes` of a 64 MiB mapped tensor held it twice: its pages and the
copy), and `raw` maps such a file back.
"""

import mmap
import os
from typing import BinaryIO, Tuple

import numpy as np

# Elements walked at once: each float64 temporary of a chunk is 2 MiB.
CHUNK_ELEMENTS = 1 << 18


def release_pages(*arrays: np.ndarray) -> None:
  """Drops the resident pages of memory-mapped arrays (np.load's mmap_mode, np.memmap): a read
  page of a mapped file counts in the process's RSS until the mapping goes, so reading a mapped
  tensor chunk-wise would still make it resident whole. The file's pages stay in the page cache;
  a later read maps them again. Arrays that are not mapped are left as they are."""
  for array in arrays:
    base = array
    while base is not None and not isinstance(base, mmap.mmap):
      base = getattr(base, "base", None)
    if isinstance(base, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
      base.madvise(mmap.MADV_DONTNEED)


# Saved arrays at least this big are memory-mapped, smaller ones read: each mapping counts
# against the process's vm.max_map_count (65530 by default), and a localizer's run keeps at most
# its 1 GiB budget as arrays (traced_run.MAX_TOTAL_BYTES): 16384 mappings of this size.
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


def write_raw(f: BinaryIO, array: np.ndarray) -> None:
  """Writes `array`'s bytes in C order into `f`, CHUNK_ELEMENTS at a time (any view: mapped,
  windowed or broadcast), dropping a mapped array's pages after each block."""
  array = np.asarray(array)
  if array.ndim == 0 or array.size == 0:
    f.write(array.tobytes())
    return
  row = max(1, array.size // array.shape[0])
  rows = max(1, CHUNK_ELEMENTS // row)
  for start in range(0, array.shape[0], rows):
    f.write(np.ascontiguousarray(array[start:start + rows]).tobytes())
    release_pages(array)


def raw(path: str, dtype: np.dtype, shape: Tuple[int, ...]) -> np.ndarray:
  """The array `write_raw` wrote at `path`: read-only and mapped when it is MAP_BYTES or more."""
  dtype = np.dtype(dtype)
  if os.path.getsize(path) >= MAP_BYTES:
    return np.memmap(path, dtype=dtype, mode="r", shape=tuple(shape))
  return np.fromfile(path, dtype=dtype).reshape(shape)
