"""Keras 2's global learning phase, for the 2020 files that set it, under Keras 3.

2020's vision and training files call `tf.keras.backend.set_learning_phase(False)` before
building a model, so that batch norm and dropout run as at inference. Keras 3 (what `tf.keras`
is on TF 2.21 unless TF_USE_LEGACY_KERAS=1 selects the `tf-keras` package) removed the global
phase: a layer runs as at inference unless its call is given `training=True`, which is what
phase 0 meant. So under Keras 3 this module gives `tf.keras.backend` (and `keras.backend`) the
two functions back: `set_learning_phase(0 or False)` is that default, kept for
`learning_phase()`; `set_learning_phase(1)` has no Keras 3 equivalent (a global "training" for
calls that do not say) and is refused with one line naming what to do instead. Under Keras 2
nothing is touched: it has both.

Measured on TF 2.21 + Keras 3.15: `import tensorflow` imports `keras` already, so reaching
`tf.keras.backend` here costs nothing; under TF_USE_LEGACY_KERAS=1 `tf.keras` would import
tf-keras on first use (about a second), which is why the variable is read before it is touched.
"""

import os
import sys
import types
from typing import Union

import tensorflow as tf


class LearningPhaseError(ValueError):
  """set_learning_phase(1) under Keras 3, which has no global training phase."""


_phase = {"value": 0}


def set_learning_phase(value: Union[bool, int]) -> None:
  """Keras 2's `set_learning_phase` under Keras 3: 0/False is Keras 3's own default."""
  if value not in (0, 1):
    raise LearningPhaseError(f"set_learning_phase({value!r}): the learning phase is 0 "
                             "(inference) or 1 (training).")
  if value:
    raise LearningPhaseError(
        "set_learning_phase(1) has no Keras 3 equivalent (layers run as in training only when "
        "called with training=True): pass training=True to the model's call, or run with "
        "TF_USE_LEGACY_KERAS=1 for Keras 2 (the tf-keras package).")
  _phase["value"] = 0


def learning_phase() -> int:
  """Keras 2's `learning_phase` under Keras 3: always 0, the only phase it can set."""
  return _phase["value"]


def _legacy_keras_selected() -> bool:
  """TF_USE_LEGACY_KERAS as TensorFlow reads it: `tf.keras` is then the tf-keras package."""
  return os.environ.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true")


def _patch(backend: types.ModuleType) -> None:
  for name, function in (("set_learning_phase", set_learning_phase),
                         ("learning_phase", learning_phase)):
    if not hasattr(backend, name):
      setattr(backend, name, function)


def install() -> None:
  """Gives Keras 3's backend modules Keras 2's learning-phase functions where they lack them."""
  if _legacy_keras_selected() or "keras" not in sys.modules:
    return
  _patch(tf.keras.backend)
  _patch(sys.modules["keras"].backend)
