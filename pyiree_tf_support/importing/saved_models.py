"""Temporary SavedModels of a tf.Module for TF's MLIR importer, and the SavedModel users keep with
--keep_saved_model.

A temporary SavedModel lives in `$TMPDIR/pyiree_tf_support_saved_model_locked_*/saved_model`,
locked by its process for its life (`locked_dirs`): ones left by killed processes are removed by
the next import, in whatever PID namespace it runs, and live ones never are.

A kept SavedModel records which module it is (the SHA-256 of the `iree_input.mlir` it imports to,
in `assets.extra/`, where SavedModels hold files their loaders ignore): a run of the same module
keeps it, a run of a changed module replaces it whole, in one step. TF's own fingerprint cannot
tell: it leaves function bodies out (`x * 2` and `x + 2` fingerprint alike), and the bytes of
saved_model.pb change with every save (function names carry a per-process counter).
"""

import contextlib
import os
import secrets
import shutil
import tempfile
from typing import Callable, Iterator, Optional

import tensorflow as tf

from pyiree_tf_support.core import safe_files
from pyiree_tf_support.importing import locked_dirs

_PREFIX = "pyiree_tf_support_saved_model_"
# Not a pid after the prefix: earlier versions' cleaners judge such names by pid liveness.
_LOCKED_PREFIX = _PREFIX + "locked_"
IDENTITY_FILE = os.path.join("assets.extra", "pyiree_tf_support.iree_input.sha256")


def save(module: tf.Module, directory: str) -> None:
  """Saves `module` as the SavedModel the importer reads."""
  tf.saved_model.save(module, directory, options=tf.saved_model.SaveOptions(save_debug_info=False))


def remove_stale() -> None:
  """Removes temporary SavedModels whose process is gone (killed during an import)."""
  locked_dirs.remove_stale(tempfile.gettempdir(), _PREFIX)


@contextlib.contextmanager
def temporary(module: tf.Module) -> Iterator[str]:
  """A temporary SavedModel of `module`, removed when the `with` block ends."""
  remove_stale()
  with locked_dirs.owned(tempfile.gettempdir(), _LOCKED_PREFIX) as directory:
    saved_model_dir = os.path.join(directory, "saved_model")
    save(module, saved_model_dir)
    yield saved_model_dir


def kept_identity(destination: str) -> Optional[str]:
  """The identity recorded in a kept SavedModel (None: none, or no SavedModel there)."""
  if os.path.islink(destination):
    return None
  try:
    with open(os.path.join(destination, IDENTITY_FILE)) as f:
      return f.read().strip()
  except (OSError, UnicodeDecodeError):
    return None


def keep(destination: str, identity: Optional[str], write: Callable[[str], None]) -> bool:
  """Makes `destination` the SavedModel of the module `identity` names; True if it was written.

  Kept when it already records `identity`; else `write(path)` writes a SavedModel at a new path
  beside it, which then replaces it in one step (`safe_files.replace_dir`). `identity` None (the
  module did not import whole, so nothing names it) always writes.
  """
  if identity is not None and kept_identity(destination) == identity:
    return False
  parent, name = os.path.split(os.path.abspath(destination))
  os.makedirs(parent, exist_ok=True)
  staging = os.path.join(parent, f".tmp-{name}-{secrets.token_hex(6)}")
  try:
    write(staging)
    if identity is not None:
      safe_files.write_text(os.path.join(staging, IDENTITY_FILE), identity + "\n")
    safe_files.replace_dir(staging, destination)
  finally:
    shutil.rmtree(staging, ignore_errors=True)
  return True


def copy_of(saved_model_dir: str) -> Callable[[str], None]:
  """A `write` for `keep`: copies `saved_model_dir`."""

  def write(path: str) -> None:
    shutil.copytree(saved_model_dir, path)

  return write


def save_of(make_module: Callable[[], tf.Module]) -> Callable[[str], None]:
  """A `write` for `keep`: saves a module built by `make_module` (only when it is needed)."""
  return lambda path: save(make_module(), path)
