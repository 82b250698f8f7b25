"""A filesystem that never follows a symlink below a root: every write is atomic (temp file +
rename), and every write, removal, lock and read walks from the root's descriptor.

Why no symlink is followed: a link where a directory of the layout belongs would turn "empty this
repro directory" into "empty the directory the link names", and a write into one into a write
elsewhere; another local user who planted one would have a victim's run delete the victim's files.
So every write, removal, lock and read below a root walks there one directory at a time from the
root's descriptor (O_DIRECTORY | O_NOFOLLOW per component; creates, renames and unlinks relative
to the directory's descriptor; `shutil.rmtree(dir_fd=...)`, which never follows links): a link
where a directory belongs is removed (its target untouched) and a real directory made, a link
where a file is written is replaced by the rename, and reads refuse links. The root itself (the
`--artifacts_dir`, `--out` or bundle dir a user names) may be a link of the user's (or root's);
the way to it is walked from '/' the same way, refusing another user's link and a directory on
the way another user could change (theirs, or every user's to write without the sticky bit),
since either lets that user point the root, now or mid-run, at a directory of ours. The root and
every module directory must belong to the current user and not be writable by every user
(`module_dirs`).
"""

import collections
import contextlib
import ctypes
import errno
import fcntl
import os
import pwd
import secrets
import shutil
import stat
import tempfile
import threading
from typing import Any, BinaryIO, Callable, FrozenSet, Iterator, List, Optional, Set, Tuple

from absl import logging

from pyiree_tf_support.core import faults


class ArtifactsDirError(faults.OwnFault, OSError):
  """The artifacts directory cannot be used; the message names the path and why."""


# --- Roots and the walk below them ------------------------------------------------------------

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO planted as a file never blocks.
_ATTEMPTS = 5  # a link removed and planted again this often: someone is racing us; give up.
_MAX_LINKS = 40  # symlinks on the way to a root, as the kernel allows in one lookup.
_roots: Set[str] = set()
_roots_lock = threading.Lock()


def _user(uid: int) -> str:
  try:
    return f"user '{pwd.getpwuid(uid).pw_name}' (uid {uid})"
  except KeyError:
    return f"uid {uid}"


def refuse_foreign(path: str, status: os.stat_result, what: str, error: Callable[[str], Exception],
                   refusal: str, fix: str, writers: int = stat.S_IWOTH) -> None:
  """Raises `error` (one line naming `path`, `refusal` and `fix`) when the file or directory
  `path` (`status`) is another user's or writable by others (the `writers` mode bits): either
  could plant links or swap entries under our writes, removals and reads."""
  uid = os.geteuid()
  if status.st_uid != uid:
    raise error(f"{what} '{path}' belongs to {_user(status.st_uid)}, not to you ({_user(uid)}); "
                f"{refusal} (remove it or {fix}).")
  if status.st_mode & writers:
    who, bits = ("every user", "o") if writers == stat.S_IWOTH else ("other users", "go")
    raise error(f"{what} '{path}' is writable by {who} (mode {stat.S_IMODE(status.st_mode):04o}); "
                f"{refusal} (chmod {bits}-w it or {fix}).")


def check_ours(path: str, status: os.stat_result, what: str) -> None:
  """Refuses a directory another user owns or every user may write."""
  refuse_foreign(path, status, what, ArtifactsDirError, "refusing to write or delete there",
                 "choose another directory")


def _trusted_uids() -> FrozenSet[int]:
  """Who may own a directory or link on the way to a root: this user and root. Inside a user
  namespace that does not map root (Bazel's linux-sandbox), every file of an unmapped owner,
  root's included, shows as the overflow uid: who owns it cannot be known there, so it counts as
  root's (outside such a namespace it is `nobody`, as untrusted as anyone)."""
  uids = {os.geteuid(), 0}
  try:
    with open("/proc/self/uid_map") as f:  # lines "inside outside count"
      maps_root = any(int(line.split()[1]) == 0 for line in f if line.strip())
    with open("/proc/sys/kernel/overflowuid") as f:
      overflow = int(f.read())
  except (OSError, ValueError):
    return frozenset(uids)
  return frozenset(uids | (set() if maps_root else {overflow}))


def _shared_dir_problem(root: str, path: str, status: os.stat_result, trusted: FrozenSet[int],
                        what: str) -> Optional[str]:
  """Why another user could swap what the directory `path`, on the way to `root`, holds for a
  link to a directory of ours (None: only we and root can): it is theirs, or every user may
  write it without the sticky bit (which keeps each entry its owner's)."""
  if status.st_uid not in trusted:
    return (f"{what} '{root}' is inside '{path}', which belongs to {_user(status.st_uid)}: they "
            "could replace it by a link to a directory of yours; refusing it (choose a "
            "directory of your own).")
  if status.st_mode & stat.S_IWOTH and not status.st_mode & stat.S_ISVTX:
    return (f"{what} '{root}' is inside '{path}', which is writable by every user without the "
            f"sticky bit (mode {stat.S_IMODE(status.st_mode):04o}): any of them could replace it "
            "by a link; refusing it (chmod o-w or +t it, or choose another directory).")
  return None


def _walk_to_root(root: str, what: str) -> Tuple[int, Optional[str]]:
  """The directory `root` (absolute) opened, what is missing of it created, reached from '/' one
  component at a time: a symlink on the way is followed only when it is ours (or root's), and
  each directory on the way is checked (`_shared_dir_problem`). The first problem found is
  returned with the descriptor, so that the root's own (`check_ours`) is said first; past one
  nothing is created."""
  trusted = _trusted_uids()
  pending = collections.deque(root.split(os.sep))
  path, links, problem = os.sep, 0, None
  descriptor = os.open(os.sep, DIR_FLAGS)
  try:
    while pending:
      name = pending.popleft()
      if name in ("", "."):
        continue
      if name != "..":
        problem = problem or _shared_dir_problem(root, path, os.fstat(descriptor), trusted, what)
      entry = os.path.normpath(os.path.join(path, name))
      try:
        status = os.stat(name, dir_fd=descriptor, follow_symlinks=False)
      except FileNotFoundError:
        if problem:
          raise ArtifactsDirError(problem) from None
        with contextlib.suppress(FileExistsError):  # made meanwhile: looked at again.
          os.mkdir(name, 0o777, dir_fd=descriptor)
        pending.appendleft(name)
        continue
      if stat.S_ISLNK(status.st_mode):
        if status.st_uid not in trusted:
          link = "is a symlink" if entry == root else f"goes through the symlink '{entry}'"
          raise ArtifactsDirError(f"{what} '{root}' {link} of {_user(status.st_uid)}, not yours; "
                                  "refusing to follow it (remove it or choose another directory).")
        links += 1
        if links > _MAX_LINKS:
          raise ArtifactsDirError(f"{what} '{root}' goes through more than {_MAX_LINKS} symlinks "
                                  "(a loop); refusing it (choose another directory).")
        target = os.readlink(name, dir_fd=descriptor)
        if os.path.isabs(target):
          os.close(descriptor)
          descriptor, path = os.open(os.sep, DIR_FLAGS), os.sep
        pending.extendleft(reversed(target.split(os.sep)))
        continue
      child = os.open(name, DIR_FLAGS | os.O_NOFOLLOW, dir_fd=descriptor)
      os.close(descriptor)
      descriptor, path = child, entry
  except BaseException:
    os.close(descriptor)
    raise
  return descriptor, problem


def open_root(root: str, what: str = "The artifacts dir") -> str:
  """Creates `root` if needed and checks that it is a writable directory of this user that not
  every user can write; walks to paths below it start there. Its absolute path.

  The root may be a symlink (the user named it) when it is the user's or root's, and so may a
  directory on the way to it; a link of another user is not followed, and a directory on the way
  must not be another user's nor writable by every user without the sticky bit: either would let
  that user point the root, now or mid-run, at a directory of ours (`_walk_to_root`). Nothing
  below the root is followed.
  """
  root = os.path.abspath(root)
  try:
    descriptor, problem = _walk_to_root(root, what)
  except ArtifactsDirError:
    raise
  except NotADirectoryError:
    if os.path.isfile(root):
      raise ArtifactsDirError(f"{what} '{root}' is a file, not a directory (pass a directory as "
                              "--artifacts_dir).") from None
    raise ArtifactsDirError(f"{what} '{root}' cannot be created: a file is on the way (pass a "
                            "directory as --artifacts_dir).") from None
  except OSError as e:
    raise ArtifactsDirError(f"{what} '{root}' cannot be created: {e.strerror} "
                            "(pass a writable directory as --artifacts_dir).") from None
  try:
    check_ours(root, os.fstat(descriptor), what)
  finally:
    os.close(descriptor)
  if problem:
    raise ArtifactsDirError(problem)
  if not os.access(root, os.W_OK | os.X_OK):
    raise ArtifactsDirError(f"{what} '{root}' is not writable (pass a writable directory as "
                            "--artifacts_dir).")
  with _roots_lock:
    _roots.add(root)
  return root


def _anchor(path: str, root: Optional[str], outside: str) -> Tuple[str, List[str]]:
  """Where a walk to the directory `path` starts, and the components below it: `root` if given,
  else the deepest root `open_root` checked that holds `path`, else `outside` (a directory a
  caller named outside any root, followed as named)."""
  path = os.path.abspath(path)
  if root is None:
    with _roots_lock:
      holding = [r for r in _roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
    root = max(holding, key=len, default=outside)
  root = os.path.abspath(root)
  relative = os.path.relpath(path, root)
  parts = [] if relative == "." else relative.split(os.sep)
  if ".." in parts:
    raise ArtifactsDirError(f"'{path}' is not below '{root}'.")
  return root, parts


def is_link_at(directory: int, name: str) -> bool:
  try:
    return stat.S_ISLNK(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode)
  except FileNotFoundError:
    return False


def _remove_link(directory: int, name: str, path: str) -> None:
  """Removes the symlink `name` (never its target), saying so."""
  try:
    target = os.readlink(name, dir_fd=directory)
    os.unlink(name, dir_fd=directory)
  except FileNotFoundError:
    return
  logging.warning("Removed the symlink %s (-> %s): artifacts are never written through links; "
                  "its target is untouched.", path, target)


def _refuse_link(path: str) -> ArtifactsDirError:
  return ArtifactsDirError(f"'{path}' is a symlink; refusing to follow it out of its directory "
                           "(remove it).")


def _open_child(parent: int, name: str, path: str, create: bool, replace_links: bool) -> int:
  """The directory `name` in `parent`, opened without following a link there."""
  for _ in range(_ATTEMPTS):
    if create:
      try:
        os.mkdir(name, 0o777, dir_fd=parent)
      except FileExistsError:
        pass
    try:
      return os.open(name, DIR_FLAGS | os.O_NOFOLLOW, dir_fd=parent)
    except OSError as e:
      if e.errno not in (errno.ELOOP, errno.ENOTDIR):
        raise
    if not is_link_at(parent, name):
      raise ArtifactsDirError(f"'{path}' is a file where the artifacts need a directory "
                              "(remove it).")
    if not replace_links:
      raise _refuse_link(path)
    _remove_link(parent, name, path)
  raise _refuse_link(path)


@contextlib.contextmanager
def _directory(path: str, *, create: bool, replace_links: bool, root: Optional[str] = None,
               follow_unrooted: bool = True) -> Iterator[int]:
  """A descriptor of the directory `path`, reached from its root one component at a time.

  `create`: make missing directories; `replace_links`: a link on the way is removed (and, with
  `create`, replaced by a directory), else refused. FileNotFoundError when it does not exist.
  A `path` outside every root starts the walk at itself, or with `follow_unrooted=False` at its
  parent (a directory about to be emptied is never entered through a link).
  """
  absolute = os.path.abspath(path)
  anchor, parts = _anchor(absolute, root,
                          absolute if follow_unrooted else os.path.dirname(absolute))
  if create:
    try:
      os.makedirs(anchor, exist_ok=True)
    except FileExistsError:
      pass  # a file: os.open says so.
  descriptor = os.open(anchor, DIR_FLAGS)
  try:
    for i, name in enumerate(parts):
      child = _open_child(descriptor, name, os.path.join(anchor, *parts[:i + 1]), create,
                          replace_links)
      os.close(descriptor)
      descriptor = child
    yield descriptor
  finally:
    os.close(descriptor)


def open_file_at(directory: int, name: str, path: str, flags: int, replace_links: bool) -> int:
  """The regular file `name` in `directory`, opened with `flags`, never through a link."""
  for _ in range(_ATTEMPTS):
    try:
      descriptor = os.open(name, flags | _FILE_FLAGS, 0o666, dir_fd=directory)
    except OSError as e:
      if e.errno != errno.ELOOP:
        raise
      if not replace_links:
        raise _refuse_link(path) from None
      _remove_link(directory, name, path)
      continue
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
      os.close(descriptor)
      raise ArtifactsDirError(f"'{path}' is not a regular file (remove it).")
    return descriptor
  raise _refuse_link(path)


def create_temp(directory: int, prefix: str, mode: int = 0o666) -> Tuple[int, str]:
  """A new file in `directory`, open for writing (and reading back): (fd, name).

  Unlike tempfile.mkstemp (always 0600), the file gets `mode` less the umask, by default 0666
  as any file the user creates would, so the artifacts it becomes after a rename are readable by
  CI uploaders and colleagues when the umask allows it.
  """
  while True:
    name = f"{prefix}{secrets.token_hex(6)}"
    try:
      return os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | _FILE_FLAGS, mode,
                     dir_fd=directory), name
    except FileExistsError:
      continue


def _remove_entry(directory: int, name: str) -> None:
  """Removes `name` from `directory`: a directory with everything below it, anything else
  (a link too, never its target) unlinked. Tolerates others removing it concurrently."""
  try:
    if stat.S_ISDIR(os.stat(name, dir_fd=directory, follow_symlinks=False).st_mode):
      shutil.rmtree(name, ignore_errors=True, dir_fd=directory)  # never follows links below.
    else:
      os.unlink(name, dir_fd=directory)
  except FileNotFoundError:
    pass


def make_dirs(path: str) -> None:
  """Creates the directory `path` and its parents below their root (links replaced)."""
  with _directory(path, create=True, replace_links=True):
    pass


def remove_other_entries(directory: str, keep: Set[str]) -> None:
  """Removes what `directory` holds besides `keep` (left by earlier runs). Tolerates processes
  doing the same concurrently; never follows symlinks (a link at `directory` is removed)."""
  try:
    with _directory(directory, create=False, replace_links=True,
                    follow_unrooted=False) as descriptor:
      for name in set(os.listdir(descriptor)) - set(keep):
        _remove_entry(descriptor, name)
  except FileNotFoundError:
    return


def remove_tree(path: str) -> None:
  """Removes `path` (a directory with its contents, a file or a link, never a link's target)."""
  try:
    with _directory(os.path.dirname(path), create=False, replace_links=True) as descriptor:
      _remove_entry(descriptor, os.path.basename(path))
  except FileNotFoundError:
    return


def open_read(path: str, root: Optional[str] = None) -> BinaryIO:
  """The regular file `path` open for reading, reached from `root` (by default the root holding
  it) without following a link: for a reader that streams or maps it rather than hold it whole.
  FileNotFoundError when missing; ArtifactsDirError naming a link on the way."""
  with _directory(os.path.dirname(path), create=False, replace_links=False,
                  root=root) as directory:
    descriptor = open_file_at(directory, os.path.basename(path), path, os.O_RDONLY,
                            replace_links=False)
  return os.fdopen(descriptor, "rb")


def open_append(path: str) -> BinaryIO:
  """The regular file `path` open for appending (created if missing), reached as `_write`
  reaches a file: a link on the way or at `path` is replaced, never followed (a worker's log
  under a campaign dir, appended to across --resume runs)."""
  with faults.writing(path), _directory(os.path.dirname(path), create=True,
                                        replace_links=True) as directory:
    descriptor = open_file_at(directory, os.path.basename(path), path,
                              os.O_WRONLY | os.O_APPEND | os.O_CREAT, replace_links=True)
  return os.fdopen(descriptor, "ab")


def read_bytes(path: str, root: Optional[str] = None) -> bytes:
  """The regular file `path` (see `open_read`), read whole."""
  with open_read(path, root) as f:
    return f.read()


_NO_LOCKS_FIX = "pass an --artifacts_dir on a local disk, or start the NFS lock service (rpc.statd)"


@contextlib.contextmanager
def locked(path: str, waiting: Optional[Callable[[], None]] = None) -> Iterator[None]:
  """Holds an exclusive lock on the file `path` (created if missing; a link there replaced).

  `waiting` is called once when another process holds it, before this one waits: a command
  that would otherwise hang without a word says whose turn it waits for."""
  with faults.writing(path), _directory(os.path.dirname(path), create=True,
                                        replace_links=True) as directory:
    descriptor = open_file_at(directory, os.path.basename(path), path, os.O_RDWR | os.O_CREAT,
                            replace_links=True)
  try:
    try:
      faults.lock(descriptor, path, _NO_LOCKS_FIX,
                  fcntl.LOCK_EX | (fcntl.LOCK_NB if waiting else 0))
    except BlockingIOError:  # only the non-blocking attempt raises it.
      if waiting is not None:
        waiting()
      faults.lock(descriptor, path, _NO_LOCKS_FIX)
    yield
  finally:
    os.close(descriptor)  # releases the lock.


@contextlib.contextmanager
def published_dir(destination: str, waiting: Optional[Callable[[str], None]] = None
                  ) -> Iterator[str]:
  """A private directory to fill in place of `destination`, which it replaces whole when the
  block ends without an exception (`replace_dir`); removed whatever happens.

  Why: a command that empties its output dir and refills it leaves nothing when it is stopped
  half-way (Ctrl-C, a crash), and two of it at once empty each other's files. Here readers see
  the last complete result until the next one is complete, and one command at a time works on
  `destination`: the others wait on `.<name>.lock` beside it (`waiting(lock path)` is called
  first), so the work dir `.<name>.new` is theirs alone, and one a killed run left is removed.
  """
  parent, name = os.path.split(os.path.abspath(destination))
  lock, work = os.path.join(parent, f".{name}.lock"), os.path.join(parent, f".{name}.new")
  with locked(lock, waiting and (lambda: waiting(lock))):
    remove_tree(work)
    try:
      make_dirs(work)
      yield work
      with faults.writing(destination):
        replace_dir(work, destination)
    finally:
      remove_tree(work)


def _write(path: str, fill: Callable[[BinaryIO], Any]) -> None:
  """Writes `path` atomically: a temp file beside it (open for reading too), filled by `fill`,
  renamed over it (a link there replaced, never followed)."""
  with faults.writing(path):  # disk full, read-only: the path's fault, not a backend's.
    with _directory(os.path.dirname(path), create=True, replace_links=True) as directory:
      name = os.path.basename(path)
      descriptor, temp = create_temp(directory, f".tmp-{name}-")
      try:
        with os.fdopen(descriptor, "w+b") as f:
          fill(f)
        os.replace(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
      except BaseException:
        with contextlib.suppress(FileNotFoundError):
          os.unlink(temp, dir_fd=directory)
        raise


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(first: str, second: str) -> bool:
  """Swaps two paths in one step (Linux renameat2); False where the system cannot."""
  try:
    renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
  except (AttributeError, OSError):
    return False
  renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
  if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second),
               _RENAME_EXCHANGE) == 0:
    return True
  error = ctypes.get_errno()
  if error in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
    return False
  raise OSError(error, os.strerror(error), second)


def replace_dir(new: str, destination: str) -> None:
  """Moves directory `new` (beside `destination`) to `destination`, replacing what is there.

  Readers see the old directory or the new one whole, never a mix: a rename when `destination`
  is free, else an atomic exchange (where the file system has none, two renames: for a moment
  nothing is there). A symlink at `destination` is replaced, never followed.
  """
  if os.path.islink(destination) or os.path.isfile(destination):
    os.remove(destination)
  for _ in range(10):  # other processes may be replacing it at the same time.
    try:
      os.rename(new, destination)
      return
    except OSError as e:
      if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
        raise
    if _exchange(new, destination):
      shutil.rmtree(new)  # now the old one.
      return
    old = f"{new}.old"
    try:
      os.rename(destination, old)
    except FileNotFoundError:
      continue
    shutil.rmtree(old)
  raise OSError(errno.EBUSY, "kept being replaced by other processes", destination)


def write_text(path: str, text: str) -> None:
  """Writes `text` so that readers see the old file or the whole new one, never a mix."""
  _write(path, lambda f: f.write(text.encode("utf-8")))


def write_bytes(path: str, data: bytes) -> None:
  _write(path, lambda f: f.write(data))


def file_identity(status: os.stat_result) -> Tuple[int, ...]:
  """What `link_file` checks a file is still the one written: device, inode, size and mtime (an
  inode number alone may be reused by a new file once the old one is removed)."""
  return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


def link_file(source: str, destination: str, identity: Tuple[int, ...]) -> bool:
  """Makes `destination` a hard link of the regular file `source` (replacing what is there) when
  `source` is still the file `identity` (`file_identity`) names; False, with nothing done, when
  it is not or the file system cannot link. Links of neither kind are followed on the way. A
  later atomic write of either path replaces that path alone, so sharing never changes the
  other's contents."""
  with faults.writing(destination):
    try:
      with _directory(os.path.dirname(source), create=False, replace_links=False) as source_dir, \
          _directory(os.path.dirname(destination), create=True, replace_links=True) as target_dir:
        source_name, name = os.path.basename(source), os.path.basename(destination)
        temp = f".tmp-{name}-{secrets.token_hex(6)}"
        os.link(source_name, temp, src_dir_fd=source_dir, dst_dir_fd=target_dir,
                follow_symlinks=False)
        linked = os.stat(temp, dir_fd=target_dir, follow_symlinks=False)
        if not stat.S_ISREG(linked.st_mode) or file_identity(linked) != identity:
          os.unlink(temp, dir_fd=target_dir)  # `source` was replaced since: not what we want.
          return False
        os.replace(temp, name, src_dir_fd=target_dir, dst_dir_fd=target_dir)
        return True
    except (FileNotFoundError, ArtifactsDirError):
      return False
    except OSError as e:
      if e.errno in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EOPNOTSUPP, errno.EACCES):
        return False
      raise


def output_file_problem(path: str) -> Optional[str]:
  """Why the file `path` a command was told to write cannot be written ("its directory '...'
  does not exist", "is a directory", ...), or None: asked before the work whose result it
  records, so that a typo costs a line, not the work."""
  parent = os.path.dirname(os.path.abspath(path))
  if os.path.isdir(path):
    return "is a directory (name a file)"
  if not os.path.isdir(parent):
    what = "is not a directory" if os.path.exists(parent) else "does not exist"
    return f"its directory '{parent}' {what} (name a file in an existing directory)"
  if not os.access(parent, os.W_OK | os.X_OK):
    return f"its directory '{parent}' is not writable"
  return None


def write_with(path: str, fill: Callable[[BinaryIO], Any]) -> None:
  """Writes `path` atomically with what `fill` writes into the file it is given (which it may
  also read back): a large artifact goes to disk as it is made, never whole in memory."""
  _write(path, fill)


def rename(source: str, destination: str) -> None:
  """Moves the file `source` to `destination` (a link at either is moved or replaced, not
  followed)."""
  with _directory(os.path.dirname(source), create=False, replace_links=False) as source_dir, \
      _directory(os.path.dirname(destination), create=True, replace_links=True) as target_dir:
    os.replace(os.path.basename(source), os.path.basename(destination), src_dir_fd=source_dir,
               dst_dir_fd=target_dir)


def user_cache_dir() -> Optional[str]:
  """The user's cache dir, where the package's defaults go below `pyiree_tf_support/`:
  $XDG_CACHE_HOME when it is an absolute path, else $HOME/.cache (None without a home). The XDG
  spec says a relative one is to be ignored: it would name another cache below every working
  directory a run starts in (and `../cache` one outside it)."""
  base = os.environ.get("XDG_CACHE_HOME")
  if base and os.path.isabs(base):
    return base
  home = os.environ.get("HOME")
  return os.path.join(home, ".cache") if home else None


def private_temp_dir(what: str, fix: str,
                     error: Callable[[str], Exception] = ArtifactsDirError) -> str:
  """`<tmp>/pyiree_tf_support-<uid>`, created 0700, or the existing one checked to be a real
  directory only this user can enter: in a shared temp dir another user may have made it first,
  or planted a link. `what` names it in an `error`, `fix` says what to do instead."""
  path = os.path.join(tempfile.gettempdir(), f"pyiree_tf_support-{os.geteuid()}")
  try:
    os.mkdir(path, 0o700)
  except FileExistsError:
    pass
  status = os.lstat(path)
  if stat.S_ISLNK(status.st_mode) or not stat.S_ISDIR(status.st_mode):
    raise error(f"{what} '{path}' is not a directory (a link or a file); refusing it (remove it "
                f"or {fix}).")
  refuse_foreign(path, status, what, error, "refusing to use it", fix)
  if status.st_mode & 0o077:
    raise error(f"{what} '{path}' is open to other users (mode {stat.S_IMODE(status.st_mode):04o}, "
                f"expected 0700); refusing it (chmod 700 it or {fix}).")
  return path
