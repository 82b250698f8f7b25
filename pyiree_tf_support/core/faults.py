"""Failures that are ours, the machine's or the test's, never a backend's verdict.

A backend's verdict (MISMATCH, IMPORT / COMPILE / RUNTIME ERROR) says the compiler or runtime did
something wrong; it is recorded with its phase in report.json, and the failing lists are updated
from it. A full disk, a read-only artifacts dir, a message the worker protocol refuses or a trace
whose inputs change from run to run says nothing about a backend. Such an error is an `OwnFault`:
nothing turns it into an outcome (the set-up steps, the target loop and the trace runner let it
through, the pytest plugin never makes it an xfail), so the test errors with its one-line message
and report.json records no phase for it.

Dependency-free: the runtime worker imports it too.
"""

import contextlib
import errno
import fcntl
from typing import Iterator


class OwnFault(Exception):
  """A failure that is no backend's verdict: the test errors with this message."""


class ArtifactWriteError(OwnFault, OSError):
  """An artifact could not be written (disk full, read-only, no permission); names the path."""

  def __init__(self, path: str, cause: OSError):
    code = errno.errorcode.get(cause.errno, "?") if cause.errno is not None else "?"
    super().__init__(cause.errno, cause.strerror or str(cause), path)
    self.path = path
    self.message = (f"Writing the artifact '{path}' failed: {code} (errno {cause.errno}, "
                    f"{cause.strerror or cause}). This is the artifacts dir's failure, not a "
                    "backend's: no verdict was recorded (free space, or pass a writable "
                    "--artifacts_dir).")

  def __str__(self) -> str:
    return self.message


class LockError(OwnFault, OSError):
  """A file could not be locked because its file system gives no locks; names the file, the
  errno and what to do."""

  def __init__(self, path: str, cause: OSError, fix: str):
    super().__init__(cause.errno, cause.strerror or str(cause), path)
    self.path = path
    code = errno.errorcode.get(cause.errno, "?") if cause.errno is not None else "?"
    self.message = (f"Cannot lock '{path}': {code} (errno {cause.errno}, "
                    f"{cause.strerror or cause}); its file system gives no locks (NFS without "
                    f"its lock daemon?), which runs sharing it need: {fix}.")

  def __str__(self) -> str:
    return self.message


# What a file system without locks answers: NFS without its lock daemon (ENOLCK), some FUSE and
# network file systems (EOPNOTSUPP, ENOSYS).
_NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS)


def lock(descriptor: int, path: str, fix: str, operation: int = fcntl.LOCK_EX) -> None:
  """`fcntl.flock(descriptor, operation)` on the file `path`; where its file system gives no
  locks, a LockError (one line naming `path`, the errno and `fix`) instead of a raw OSError on
  every test. Other errors (EWOULDBLOCK of a held non-blocking lock) propagate unchanged."""
  try:
    fcntl.flock(descriptor, operation)
  except OSError as e:
    if e.errno not in _NO_LOCKS:
      raise
    raise LockError(path, e, fix) from None


class InvalidSettingError(OwnFault, ValueError):
  """A setting of the run (not a backend) is malformed, e.g. a PYIREE_TF_SUPPORT_* variable."""


class NondeterministicTraceError(OwnFault):
  """A trace function gave different inputs when run again: comparing backends means nothing."""


@contextlib.contextmanager
def writing(path: str) -> Iterator[None]:
  """Turns an OSError raised inside (not already an OwnFault) into the ArtifactWriteError of
  `path`."""
  try:
    yield
  except OwnFault:
    raise
  except OSError as e:
    raise ArtifactWriteError(path, e) from e
