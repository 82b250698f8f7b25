"""Temporary directories in a shared directory (/tmp) that live exactly as long as their owner.

Why a lock and not a process id: pids are per PID namespace, so a process in Bazel's
linux-sandbox or in a container sharing /tmp sees the pid of a live process outside as dead (and
a recycled pid as alive). The owner instead holds an exclusive `flock` on `<dir>/lock` for the
directory's life; the kernel drops it when the owner exits or is killed, in whatever namespace,
and NFS carries it between hosts. A cleaner removes a directory only when it can take that lock.

The lock file is locked before it is renamed into place, so a `lock` that exists was locked by
its owner first: a cleaner never takes a lock its owner is about to take. A directory without
`lock` (its owner died between creating it and locking, or it was left by an older version of
this library that named it with a pid) is removed once it is older than `UNLOCKED_GRACE_SECONDS`.
"""

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from typing import Iterator

from pyiree_tf_support.core import faults

LOCK_NAME = "lock"
# Age after which a directory that never got its lock is taken as abandoned (its owner locks it
# microseconds after creating it).
UNLOCKED_GRACE_SECONDS = 3600.0

_NO_FOLLOW = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def owned(root: str, prefix: str) -> Iterator[str]:
  """A new directory `<root>/<prefix><random>` (0700), locked by this process until the `with`
  block ends; then it is removed, and only then unlocked."""
  directory = tempfile.mkdtemp(prefix=prefix, dir=root)
  staging = os.path.join(directory, ".lock-staging")
  fd = os.open(staging, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NO_FOLLOW, 0o600)
  try:
    faults.lock(fd, staging, "set TMPDIR to a directory on a local disk")
    os.rename(staging, os.path.join(directory, LOCK_NAME))
    yield directory
  finally:
    shutil.rmtree(directory, ignore_errors=True)
    os.close(fd)  # releases the lock, after the directory is gone.


def remove_stale(root: str, prefix: str) -> None:
  """Removes the directories `<root>/<prefix>*` whose owner is gone (see the module's doc)."""
  try:
    names = os.listdir(root)
  except OSError:
    return
  for name in names:
    if name.startswith(prefix):
      _remove_if_stale(os.path.join(root, name))


def _remove_if_stale(path: str) -> None:
  try:
    if not os.path.isdir(path) or os.path.islink(path):
      return
    fd = os.open(os.path.join(path, LOCK_NAME), os.O_RDWR | _NO_FOLLOW)
  except FileNotFoundError:
    try:
      age = time.time() - os.lstat(path).st_mtime
    except OSError:
      return
    if age > UNLOCKED_GRACE_SECONDS:
      shutil.rmtree(path, ignore_errors=True)
    return
  except OSError:  # another user's, or not ours to judge.
    return
  try:
    try:
      fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held: its owner is alive, in whatever PID namespace or host.
      return
    shutil.rmtree(path, ignore_errors=True)
  finally:
    os.close(fd)
