"""Temporary SavedModels of a tf.Module for TF's MLIR importer (named with the process id, so
ones left by killed processes are removed), and the SavedModel users keep with
--keep_saved_model."""

import contextlib
import os
import shutil
import tempfile
from typing import Iterator, Optional, Sequence

import tensorflow as tf

from pyiree_tf_support.core import artifacts


def save(module: tf.Module, directory: str) -> None:
  """Saves `module` as the SavedModel the importer reads."""
  tf.saved_model.save(module, directory, options=tf.saved_model.SaveOptions(save_debug_info=False))


_SAVED_MODEL_PREFIX = "pyiree_tf_support_saved_model_"


def _remove_stale_saved_models() -> None:
  """Removes temporary SavedModels left by killed processes (their pid is in the name)."""
  root = tempfile.gettempdir()
  for name in os.listdir(root):
    pid = name[len(_SAVED_MODEL_PREFIX):].split("_")[0]
    if not name.startswith(_SAVED_MODEL_PREFIX) or not pid.isdigit():
      continue
    try:
      os.kill(int(pid), 0)
    except ProcessLookupError:
      shutil.rmtree(os.path.join(root, name), ignore_errors=True)
    except PermissionError:  # alive, another user's.
      pass


@contextlib.contextmanager
def temporary(module: tf.Module, keep_saved_model_at: Optional[Sequence[str]]) -> Iterator[str]:
  """A temporary SavedModel of `module` (copied to each of `keep_saved_model_at`)."""
  _remove_stale_saved_models()
  saved_model_dir = tempfile.mkdtemp(prefix=f"{_SAVED_MODEL_PREFIX}{os.getpid()}_")
  try:
    save(module, saved_model_dir)
    for destination in keep_saved_model_at or ():
      artifacts.copy_tree(saved_model_dir, destination)  # a link there is replaced, not followed.
    yield saved_model_dir
  finally:
    shutil.rmtree(saved_model_dir, ignore_errors=True)


def keep(module: tf.Module, destination: str) -> None:
  """Saves `module` as the SavedModel --keep_saved_model keeps at `destination` (replacing what is
  there, a link too, never its target)."""
  with temporary(module, [destination]):
    pass
