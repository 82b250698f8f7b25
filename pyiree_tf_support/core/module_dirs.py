"""Module directories: the default artifacts root, private to the user, and the directory of
one module's artifacts under a root, claimed by the first module of that name (`.owner`).

Both are walked to and written with `safe_files`: no link below the root is followed, and the
root and every module directory must be the user's and not writable by every user.
"""

import errno
import hashlib
import os

from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.safe_files import ArtifactsDirError


def default_root() -> str:
  """$TEST_UNDECLARED_OUTPUTS_DIR under Bazel, else a directory private to the user (created
  0700): $XDG_CACHE_HOME/pyiree_tf_support/modules (~/.cache/... without it or when it is
  relative: `safe_files.user_cache_dir`), or with no home <tmp>/pyiree_tf_support-<uid>/modules
  (refused unless a real 0700 directory of the user). Never a name another user could plant
  first in a shared temp dir."""
  outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
  if outputs:
    return outputs
  base = safe_files.user_cache_dir()
  parent = base and os.path.join(base, "pyiree_tf_support")
  try:
    if parent:
      os.makedirs(parent, exist_ok=True)
  except OSError:  # a home that cannot be written (e.g. /nonexistent of a service user).
    parent = None
  if not parent:
    parent = safe_files.private_temp_dir("The default artifacts dir's parent",
                                         "pass --artifacts_dir")
  root = os.path.join(parent, "modules")
  try:
    os.mkdir(root, 0o700)
  except FileExistsError:
    pass
  return root


def _open_module_dir(root: str, name: str, path: str) -> int:
  """`<root>/<name>` created if missing and opened: a real directory of this user."""
  root_descriptor = os.open(root, safe_files.DIR_FLAGS)
  try:
    try:
      os.mkdir(name, 0o777, dir_fd=root_descriptor)
    except FileExistsError:
      pass
    except OSError as e:
      raise ArtifactsDirError(
          f"The module's artifacts dir '{path}' cannot be created: {e.strerror} (pass a writable "
          "directory as --artifacts_dir).") from None
    try:
      descriptor = os.open(name, safe_files.DIR_FLAGS | os.O_NOFOLLOW, dir_fd=root_descriptor)
    except OSError as e:
      if e.errno == errno.ELOOP or safe_files.is_link_at(root_descriptor, name):
        raise ArtifactsDirError(f"The module's artifacts dir '{path}' is a symlink; refusing to "
                                "follow it out of the artifacts dir (remove it or choose another "
                                "--artifacts_dir).") from None
      raise ArtifactsDirError(f"The module's artifacts dir '{path}' is a file, not a directory "
                              "(remove it or choose another --artifacts_dir).") from None
  finally:
    os.close(root_descriptor)
  try:
    safe_files.check_ours(path, os.fstat(descriptor), "The module's artifacts dir")
    if not os.access(path, os.W_OK | os.X_OK):
      raise ArtifactsDirError(f"The module's artifacts dir '{path}' is not writable (pass a "
                              "writable directory as --artifacts_dir).")
  except BaseException:
    os.close(descriptor)
    raise
  return descriptor


def _owner(directory: int, path: str, identity: str) -> str:
  """The identity recorded in the module dir's `.owner`, recording `identity` if none is."""
  owner = os.path.join(path, ".owner")
  try:
    descriptor = safe_files.open_file_at(directory, ".owner", owner, os.O_RDONLY,
                                         replace_links=False)
  except FileNotFoundError:
    with faults.writing(owner):
      temp_descriptor, temp = safe_files.create_temp(directory, ".tmp-owner-")
      with os.fdopen(temp_descriptor, "w") as f:
        f.write(identity)
      try:  # atomic, and fails if another process claimed it first.
        os.link(temp, ".owner", src_dir_fd=directory, dst_dir_fd=directory,
                follow_symlinks=False)
      except FileExistsError:
        pass
      finally:
        os.unlink(temp, dir_fd=directory)
    descriptor = safe_files.open_file_at(directory, ".owner", owner, os.O_RDONLY,
                                         replace_links=False)
  with os.fdopen(descriptor) as f:
    return f.read()


def claim_module_dir(root: str, module_name: str, identity: str) -> str:
  """The directory of one module's artifacts under `root`, created if needed.

  `<root>/<module_name>` belongs to the first module that used it (its identity, the defining
  file's absolute path and the class's qualified name, is recorded in `.owner`); a different
  module that happens to have the same name gets
  `<root>/<module_name>__<8 hex digits of its identity>`, so the two never overwrite each other.
  The root and the module directory must be this user's and not writable by every user, and the
  module directory not a symlink (safe_files.ArtifactsDirError, one line naming the path).
  """
  root = safe_files.open_root(root)
  path = os.path.join(root, module_name)
  descriptor = _open_module_dir(root, module_name, path)
  try:
    if _owner(descriptor, path, identity) == identity:
      return path
  finally:
    os.close(descriptor)
  digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:8]
  path = os.path.join(root, f"{module_name}__{digest}")
  os.close(_open_module_dir(root, f"{module_name}__{digest}", path))
  return path
