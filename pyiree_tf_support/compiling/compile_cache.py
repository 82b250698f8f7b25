"""A content-addressed, size-bounded, multi-process-safe cache of compiled .vmfb files.

Entries are written atomically (temp file + rename) and carry a digest of their payload that is
checked on every read, so a torn or corrupted entry is a miss, never a wrong module. Made to be
shared (a directory on shared storage): entries are 0666 and directories 0777 less the umask, as
any file of the user's, and a write that fails removes its temp file; eviction also removes temp
files older than an hour (left by killed processes).
"""

import hashlib
import logging
import os
import tempfile
import time
from typing import Optional

from pyiree_tf_support.core import artifacts

_DIGEST_BYTES = 32
_MAGIC = b"PYIREE-TF-CACHE-1\n"
_TEMP_PREFIX = ".tmp-"
# A temp file this old is no write in progress (writing an entry takes well under a second).
STALE_TEMP_SECONDS = 3600.0


def default_cache_dir() -> Optional[str]:
  """$PYIREE_TF_SUPPORT_CACHE_DIR, else $XDG_CACHE_HOME or ~/.cache, else the temp dir.

  None under a Bazel test (TEST_TMPDIR set) unless the variable is set: a test there must not
  depend on files another test left behind.
  """
  explicit = os.environ.get("PYIREE_TF_SUPPORT_CACHE_DIR")
  if explicit:
    return explicit
  if os.environ.get("TEST_TMPDIR"):
    return None
  base = os.environ.get("XDG_CACHE_HOME")
  if not base and os.environ.get("HOME"):
    base = os.path.join(os.environ["HOME"], ".cache")
  return os.path.join(base or tempfile.gettempdir(), "pyiree_tf_support", "compile_cache")


class CompileCache:
  """Maps a key (hex digest of everything that determines the output) to vmfb bytes."""

  def __init__(self, directory: str, max_bytes: int = 2 << 30):
    self.directory = directory
    self.max_bytes = max_bytes
    self.hits = 0
    self.misses = 0

  def _path(self, key: str) -> str:
    return os.path.join(self.directory, key[:2], key + ".vmfb")

  def get(self, key: str) -> Optional[bytes]:
    path = self._path(key)
    try:
      with open(path, "rb") as f:
        data = f.read()
    except OSError:
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

  def put(self, key: str, payload: bytes) -> None:
    path = self._path(key)
    tmp = None
    try:
      os.makedirs(os.path.dirname(path), exist_ok=True)
      fd, tmp = artifacts.create_temp_file(os.path.dirname(path), _TEMP_PREFIX)
      with os.fdopen(fd, "wb") as f:
        f.write(_MAGIC + hashlib.sha256(payload).digest() + payload)
      os.replace(tmp, path)
    except BaseException as e:
      if tmp is not None:
        _remove_quietly(tmp)
      if not isinstance(e, OSError):
        raise
      # A cache that cannot be written only costs time.
      logging.warning("Could not write compile cache entry %s: %s", path, e)
      return
    self.evict()

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
            stat = os.stat(path)
          except OSError:
            continue
          if name.startswith(_TEMP_PREFIX):
            if stat.st_mtime < stale_before:
              _remove_quietly(path)
            continue
          entries.append((stat.st_mtime, stat.st_size, path))
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

