"""A content-addressed, size-bounded, multi-process-safe cache of compiled .vmfb files.

Entries are written atomically (temp file + rename) and carry a digest of their payload that is
checked on every read, so a torn or corrupted entry is a miss, never a wrong module. A write that
fails removes its temp file; eviction also removes temp files older than an hour (left by killed
processes).

Why the cache trusts only its user: an entry is code (an llvm-cpu vmfb holds machine code the
runtime links into the process), and the digest cannot stop whoever writes the entry. So the
cache dir, each directory in it and each entry must belong to this user and be writable by no
one else (`CompileCacheError`, one line naming the path, never a backend's verdict), every read
opens them one by one without following links and checks what it opened, and the cache creates
them writable only by its user (0755 / 0644 less the umask). Without a home the default is in a
private per-user temp dir, never a shared name another user could create first.
"""

import contextlib
import errno
import hashlib
import logging
import os
import stat
import time
from typing import Iterator, Optional

from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files

_DIGEST_BYTES = 32
_MAGIC = b"PYIREE-TF-CACHE-1\n"
_TEMP_PREFIX = ".tmp-"
# A temp file this old is no write in progress (writing an entry takes well under a second).
STALE_TEMP_SECONDS = 3600.0
_DIR_MODE, _ENTRY_MODE = 0o755, 0o644  # less the umask: readable as it allows, ours to write.
_OTHER_WRITERS = stat.S_IWGRP | stat.S_IWOTH
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NO_FOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_REFUSAL = "a compile cache serves whatever its writers put there, so it is not used"
_FIX = "pass a --compile_cache_dir of your own, or --nocompile_cache"


class CompileCacheError(faults.OwnFault, OSError):
  """The compile cache may not be used (another user's, writable by others, not creatable); the
  one-line message names the path and what to do."""


def default_cache_dir() -> Optional[str]:
  """$PYIREE_TF_SUPPORT_CACHE_DIR, else $XDG_CACHE_HOME (if absolute) or ~/.cache
  (`safe_files.user_cache_dir`), else (no home, or one that cannot be written)
  <tmp>/pyiree_tf_support-<uid>/compile_cache, whose parent is private to the user (created 0700
  and checked, as the default artifacts root's).

  None under a Bazel test (TEST_TMPDIR set) unless the variable is set: a test there must not
  depend on files another test left behind.
  """
  explicit = os.environ.get("PYIREE_TF_SUPPORT_CACHE_DIR")
  if explicit:
    return explicit
  if os.environ.get("TEST_TMPDIR"):
    return None
  base = safe_files.user_cache_dir()
  if base:
    try:
      os.makedirs(os.path.join(base, "pyiree_tf_support"), exist_ok=True)
      return os.path.join(base, "pyiree_tf_support", "compile_cache")
    except OSError:  # a home that cannot be written (e.g. /nonexistent of a service user).
      pass
  private = safe_files.private_temp_dir("The compile cache's private temp dir",
                                       "set HOME or pass --compile_cache_dir",
                                       CompileCacheError)
  return os.path.join(private, "compile_cache")


def _check(path: str, status: os.stat_result, what: str) -> None:
  safe_files.refuse_foreign(path, status, what, CompileCacheError, _REFUSAL, _FIX, _OTHER_WRITERS)


class CompileCache:
  """Maps a key (hex digest of everything that determines the output) to vmfb bytes."""

  def __init__(self, directory: str, max_bytes: int = 2 << 30):
    self.directory = directory
    self.max_bytes = max_bytes
    self.hits = 0
    self.misses = 0
    os.close(self._open_root())  # refused before anything is compiled, with one line.

  def _path(self, key: str) -> str:
    return os.path.join(self.directory, key[:2], key + ".vmfb")

  def _open_root(self) -> int:
    """The cache dir, created if missing, opened and checked. The path itself may be a link (a
    user named it); nothing below it is followed."""
    try:
      os.makedirs(self.directory, _DIR_MODE, exist_ok=True)
    except FileExistsError:
      pass  # a file: said below.
    except OSError as e:
      raise CompileCacheError(f"The compile cache dir '{self.directory}' cannot be created: "
                              f"{e.strerror} ({_FIX}).") from None
    try:
      descriptor = os.open(self.directory, _DIR_FLAGS)
    except OSError as e:
      raise CompileCacheError(f"The compile cache dir '{self.directory}' cannot be opened: "
                              f"{e.strerror} ({_FIX}).") from None
    try:
      _check(self.directory, os.fstat(descriptor), "The compile cache dir")
    except BaseException:
      os.close(descriptor)
      raise
    return descriptor

  @contextlib.contextmanager
  def _shard(self, key: str, create: bool) -> Iterator[int]:
    """The open, checked directory holding `key`'s entry (FileNotFoundError when missing)."""
    root = self._open_root()
    try:
      if create:
        try:
          os.mkdir(key[:2], _DIR_MODE, dir_fd=root)
        except FileExistsError:
          pass
      path = os.path.join(self.directory, key[:2])
      try:
        descriptor = os.open(key[:2], _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=root)
      except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
          raise CompileCacheError(f"'{path}' in the compile cache is a link or a file, not a "
                                  f"directory; {_REFUSAL} (remove it or {_FIX}).") from None
        raise
    finally:
      os.close(root)
    try:
      _check(path, os.fstat(descriptor), "The compile cache's directory")
      yield descriptor
    finally:
      os.close(descriptor)

  def get(self, key: str) -> Optional[bytes]:
    """The payload stored under `key`, None on a miss (or a corrupt entry, then removed).
    CompileCacheError when the cache, its directory or the entry could be another user's."""
    path = self._path(key)
    try:
      with self._shard(key, create=False) as shard:
        data = self._read(shard, os.path.basename(path), path)
    except FileNotFoundError:
      data = None
    except CompileCacheError:
      raise
    except OSError:
      data = None
    if data is None:
      self.misses += 1
      return None
    header = len(_MAGIC) + _DIGEST_BYTES
    payload = data[header:]
    if (not data.startswith(_MAGIC) or len(data) <= header
        or hashlib.sha256(payload).digest() != data[len(_MAGIC):header]):
      logging.warning("Compile cache entry %s is corrupt; discarding it.", path)
      _remove_quietly(path)
      self.misses += 1
      return None
    try:
      os.utime(path)  # marks it recently used for eviction.
    except OSError:
      pass
    self.hits += 1
    return payload

  @staticmethod
  def _read(shard: int, name: str, path: str) -> Optional[bytes]:
    """The entry's bytes once it is checked to be a regular file of ours no one else may write;
    None when it is no regular file (a link is never followed: the next put replaces it)."""
    try:
      descriptor = os.open(name, os.O_RDONLY | _NO_FOLLOW, dir_fd=shard)
    except OSError as e:
      if e.errno == errno.ELOOP:
        return None
      raise
    with os.fdopen(descriptor, "rb") as f:
      status = os.fstat(f.fileno())
      if not stat.S_ISREG(status.st_mode):
        return None
      _check(path, status, "The compile cache entry")
      return f.read()

  def put(self, key: str, payload: bytes) -> None:
    path = self._path(key)
    try:
      with self._shard(key, create=True) as shard:
        self._write(shard, os.path.basename(path), payload)
    except CompileCacheError:
      raise
    except OSError as e:  # A cache that cannot be written only costs time.
      logging.warning("Could not write compile cache entry %s: %s", path, e)
      return
    self.evict()

  @staticmethod
  def _write(shard: int, name: str, payload: bytes) -> None:
    """Writes the entry `name` atomically (a temp file renamed over it; removed on failure)."""
    fd, temp = safe_files.create_temp(shard, _TEMP_PREFIX, _ENTRY_MODE)
    try:
      with os.fdopen(fd, "wb") as f:
        f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
      os.replace(temp, name, src_dir_fd=shard, dst_dir_fd=shard)
    except BaseException:
      with contextlib.suppress(OSError):
        os.unlink(temp, dir_fd=shard)
      raise

  def evict(self) -> None:
    """Deletes least recently used entries until the cache fits in max_bytes, and temp files of
    writes that cannot be in progress any more."""
    entries = []
    stale_before = time.time() - STALE_TEMP_SECONDS
    for root, _, files in os.walk(self.directory):
      for name in files:
        path = os.path.join(root, name)
        if name.endswith(".vmfb") or name.startswith(_TEMP_PREFIX):
          try:
            status = os.stat(path)
          except OSError:
            continue
          if name.startswith(_TEMP_PREFIX):
            if status.st_mtime < stale_before:
              _remove_quietly(path)
            continue
          entries.append((status.st_mtime, status.st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
      if total <= self.max_bytes:
        break
      _remove_quietly(path)
      total -= size


def _remove_quietly(path: str) -> None:
  try:
    os.remove(path)
  except OSError:
    pass

