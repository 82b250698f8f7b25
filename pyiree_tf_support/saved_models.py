"""Temporary SavedModels of a tf.Module for TF's MLIR importer, and the SavedModel users keep with
--keep_saved_model.

A temporary SavedModel lives in `$TMPDIR/pyiree_tf_support_saved_model_locked_*/saved_model`,
locked by its process for its life (`locked_dirs`): ones left by killed processes are removed by
the next import, in whatever PID namespace it runs, and live ones never are.
"""

import contextlib
import os
import shutil
import tempfile
from typing import Iterator, Optional, Sequence

import tensorflow as tf

from pyiree_tf_support import locked_dirs

_PREFIX = "pyiree_tf_support_saved_model_"
# Not a pid after the prefix: earlier versions' cleaners judge such names by pid liveness.
_LOCKED_PREFIX = _PREFIX + "locked_"


def save(module: tf.Module, directory: str) -> None:
  """Saves `module` as the SavedModel the importer reads."""
  tf.saved_model.save(module, directory, options=tf.saved_model.SaveOptions(save_debug_info=False))


def remove_stale() -> None:
  """Removes temporary SavedModels whose process is gone (killed during an import)."""
  locked_dirs.remove_stale(tempfile.gettempdir(), _PREFIX)


@contextlib.contextmanager
def temporary(module: tf.Module,
              keep_saved_model_at: Optional[Sequence[str]] = None) -> Iterator[str]:
  """A temporary SavedModel of `module` (copied to each of `keep_saved_model_at`), removed when
  the `with` block ends."""
  remove_stale()
  with locked_dirs.owned(tempfile.gettempdir(), _LOCKED_PREFIX) as directory:
    saved_model_dir = os.path.join(directory, "saved_model")
    save(module, saved_model_dir)
    for destination in keep_saved_model_at or ():
      if os.path.exists(destination):
        shutil.rmtree(destination)
      shutil.copytree(saved_model_dir, destination)
    yield saved_model_dir
