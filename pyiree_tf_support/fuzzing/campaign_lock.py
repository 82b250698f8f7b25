"""One process at a time in a campaign's directory: an exclusive lock on DIR/.campaign.lock.

Why: two campaigns (or a campaign and a `merge`) in one DIR each save DIR/findings.json from
their own state after every module: the last writer wins, the other's modules, hits and
findings are lost, and both exit 0. A `flock`, not a pid file: the kernel drops it when its
holder exits or is killed, so a crashed campaign never leaves DIR locked; the holder writes its
pid into the file only to name it to the process it refuses. With `--jobs` the parent holds
DIR's lock and each worker its shard dir's (DIR/jobs/I), so a second campaign is refused by
either; `merge --out=DIR` takes DIR's too.
"""

import contextlib
import fcntl
import os
from typing import Iterator

from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.fuzzing.findings import FuzzError

LOCK_NAME = ".campaign.lock"


def _holder(descriptor: int) -> str:
  pid = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
  return f"pid {pid}" if pid.isdigit() else "a process that has not yet written its pid"


@contextlib.contextmanager
def held(directory: str, what: str) -> Iterator[None]:
  """Holds DIR's lock for the `with` block; FuzzError (one line naming `what`, DIR and the
  holder's pid) when another process holds it. The lock file is opened without following a
  link at its name (`safe_files`)."""
  path = os.path.join(directory, LOCK_NAME)
  with faults.writing(path):
    parent = os.open(directory, safe_files.DIR_FLAGS)
    try:
      descriptor = safe_files.open_file_at(parent, LOCK_NAME, path, os.O_RDWR | os.O_CREAT,
                                           replace_links=True)
    finally:
      os.close(parent)
  try:
    try:
      faults.lock(descriptor, path, "put the campaign's --out on a local disk",
                  fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
      raise FuzzError(f"{what}: {directory} is in use by another campaign or merge "
                      f"({_holder(descriptor)}, holding {path}): wait for it to end or stop "
                      "it, or name another --out.") from None
    with faults.writing(path):
      os.ftruncate(descriptor, 0)
      os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)
    yield
  finally:
    os.close(descriptor)  # releases the lock.
