"""A saved trace's arrays.npz checked a chunk at a time and its arrays memory-mapped, never read
whole: what keeps loading a trace from costing a multiple of its size (docs/localizing.md, Cost).

np.load reads a member of an .npz into memory (its `mmap_mode` does not apply to an archive's
members), and checking the file the way replay did (hashing its bytes, then loading every
member for its CRC) held the file and a member at once; with the arrays then read again and
copied into the trace's calls, loading a trace of one [4096, 4096] float32 input and output
(T = 64 MiB) peaked at 4 T above the loader's baseline and kept 2 T; now 0.03 T
(bench/trace_load_memory.py). Here the sha256 is taken over the file in chunks,
each member's header, size and CRC are checked by reading the member in chunks through zipfile
(which verifies the CRC at its end), and a member stored uncompressed (np.savez writes no other)
is a read-only array mapped from the file at its data's offset: pages are read when used and, as
the clean pages of a file, can be dropped (`mapped_arrays.release_pages`). A compressed or
empty member is read as np.load would.

Everything goes through one open file: what was hashed and checked is what is mapped (the
library replaces a saved trace by renaming a new file over it, which leaves this one's inode as
it was). A mapped array is read-only and need not be aligned for its dtype (members start where
the zip headers before them end): numpy, TensorFlow and IREE's runtime read such arrays, and a
caller that wants to change one copies it. Arrays are read with allow_pickle=False: an object
array is refused, never unpickled.
"""

import dataclasses
import hashlib
import math
import mmap
import struct
from typing import BinaryIO, Dict, List, Optional, Tuple
import zipfile
import zlib

import numpy as np

_CHUNK_BYTES = 1 << 20  # read at once while checking: bounded whatever the member's size.
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., file name length, extra length.
_LOCAL_SIGNATURE = b"PK\x03\x04"
# What reading a broken archive or member raises (zlib.error: a corrupt compressed member).
_UNREADABLE = (zipfile.BadZipFile, EOFError, OSError, ValueError, RuntimeError,
               NotImplementedError, zlib.error, struct.error)


class ArchiveError(ValueError):
  """The file is no readable zip archive (truncated or corrupt): why, as `Type: message`."""


class MemberError(ValueError):
  """One member is unreadable or an object array; `key` names it, `reason` says why."""

  def __init__(self, key: str, reason: str, object_array: bool = False):
    super().__init__(f"array '{key}' is {reason}")
    self.key = key
    self.reason = reason
    self.object_array = object_array


@dataclasses.dataclass(frozen=True)
class _Member:
  """A checked member: its array's layout, and where its data starts in the file when it is
  stored uncompressed (None: compressed or empty, read instead)."""
  key: str
  info: zipfile.ZipInfo
  dtype: np.dtype
  shape: Tuple[int, ...]
  fortran_order: bool
  data_offset: Optional[int]


def _why(error: BaseException) -> str:
  return f"{type(error).__name__}: {error}"


class Npz:
  """An arrays.npz open for checking and mapping; use as a context manager (closing it closes
  the file; mapped arrays stay valid)."""

  def __init__(self, file: BinaryIO):
    self._file = file
    try:
      self._zip = zipfile.ZipFile(file)
    except _UNREADABLE as e:
      raise ArchiveError(_why(e)) from None
    self._members: Optional[List[_Member]] = None

  @classmethod
  def open(cls, path: str) -> "Npz":
    """The archive at `path` (a plain open: callers that refuse links open the file)."""
    file = open(path, "rb")  # noqa: SIM115  closed by close().
    try:
      return cls(file)
    except BaseException:
      file.close()
      raise

  def __enter__(self) -> "Npz":
    return self

  def __exit__(self, *_) -> None:
    self.close()

  def close(self) -> None:
    self._zip.close()
    self._file.close()

  def sha256(self) -> str:
    """The file's sha256, read in chunks."""
    self._file.seek(0)
    # typeshed's file_digest wants readinto, which typing.BinaryIO does not declare; the file is
    # a buffered one, which has it.
    return hashlib.file_digest(self._file, "sha256").hexdigest()  # pyright: ignore

  def check(self) -> None:
    """Reads every member in chunks: its .npy header, that it holds the bytes its header says,
    its CRC; MemberError names the first that fails (an object array is one)."""
    if self._members is None:
      self._members = [self._check_member(info) for info in self._zip.infolist()]

  def arrays(self) -> Dict[str, np.ndarray]:
    """Every member's array by key (its name without `.npy`, as np.load names them): mapped
    read-only from the file when stored uncompressed, else read. Checks first (`check`)."""
    self.check()
    assert self._members is not None
    mapped = any(member.data_offset is not None for member in self._members)
    view = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if mapped else None
    arrays = {}
    for member in self._members:
      if member.data_offset is None or view is None:
        arrays[member.key] = self._read(member)
        continue
      end = member.data_offset + member.dtype.itemsize * math.prod(member.shape)
      if end > len(view):  # the file changed size since the check: not the file checked.
        raise MemberError(member.key, "unreadable (the file is shorter than its zip index says)")
      arrays[member.key] = np.ndarray(member.shape, member.dtype, buffer=view,
                                      offset=member.data_offset,
                                      order="F" if member.fortran_order else "C")
    return arrays

  def _read(self, member: _Member) -> np.ndarray:
    try:
      with self._zip.open(member.info) as f:
        return np.lib.format.read_array(f, allow_pickle=False)
    except _UNREADABLE as e:
      raise MemberError(member.key, f"unreadable ({_why(e)})") from None

  def _check_member(self, info: zipfile.ZipInfo) -> _Member:
    key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
    try:
      with self._zip.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
          shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
          shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(f)
        else:
          raise MemberError(key, f"unreadable (.npy format {version[0]}.{version[1]}, which "
                            "np.savez writes only for structured dtypes with non-Latin-1 names)")
        if dtype.hasobject:
          raise MemberError(key, "an object array", object_array=True)
        header = f.tell()
        size = dtype.itemsize * math.prod(shape)
        if info.file_size != header + size:
          raise MemberError(key, f"unreadable (its header says {size} bytes of data, it holds "
                            f"{info.file_size - header})")
        while f.read(_CHUNK_BYTES):  # zipfile checks the CRC at the member's end.
          pass
    except MemberError:
      raise
    except _UNREADABLE as e:
      raise MemberError(key, f"unreadable ({_why(e)})") from None
    offset = None
    if info.compress_type == zipfile.ZIP_STORED and size:
      offset = self._data_start(info, key) + header
    return _Member(key, info, dtype, tuple(shape), fortran_order, offset)

  def _data_start(self, info: zipfile.ZipInfo, key: str) -> int:
    """Where a member's bytes start in the file: after its local header, whose name and extra
    field (zip64 sizes) have lengths of their own (zipfile read and checked it on open)."""
    self._file.seek(info.header_offset)
    try:
      signature, name_length, extra_length = _LOCAL_HEADER.unpack(
          self._file.read(_LOCAL_HEADER.size))
    except struct.error as e:
      raise MemberError(key, f"unreadable ({_why(e)})") from None
    if signature != _LOCAL_SIGNATURE:
      raise MemberError(key, "unreadable (no local header where the zip index says)")
    return info.header_offset + _LOCAL_HEADER.size + name_length + extra_length
