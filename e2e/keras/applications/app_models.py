"""The keras.applications models of this directory's test files: each built with random weights
(`weights=None`: nothing is downloaded) on the smallest image it accepts, and one trace calling
it on one batch.

Each `<model>_test.py` beside this file is one model, so that every model is a file of its own
in the suite, its lists and the coverage page; TF 2.21's own Keras (Keras 3) builds them, and
Keras 2 (TF_USE_LEGACY_KERAS=1) builds the same names.
"""

from typing import Dict, Tuple, Type

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow as tf

# Model -> the smallest square image it accepts with random weights (Keras' own minimum: 32,
# 75 for InceptionV3, 71 for Xception) and extra constructor arguments (the narrow MobileNets
# keep vmvx, the slowest backend, within seconds).
MODELS: Dict[str, Tuple[int, Dict[str, float]]] = {
    "ConvNeXtTiny": (32, {}),
    "DenseNet121": (32, {}),
    "EfficientNetB0": (32, {}),
    "EfficientNetV2B0": (32, {}),
    "InceptionV3": (75, {}),
    "MobileNet": (32, {"alpha": 0.25}),
    "MobileNetV2": (32, {"alpha": 0.35}),
    "MobileNetV3Large": (32, {}),
    "MobileNetV3Small": (32, {}),
    "NASNetMobile": (32, {}),
    "ResNet50": (32, {}),
    "ResNet50V2": (32, {}),
    "VGG16": (32, {}),
    "Xception": (71, {}),
}
CLASSES = 10
BATCH = 1
# Softmax outputs of a random network: about 1/CLASSES each; an ulp-level difference in a deep
# stack of convolutions stays far below these.
RTOL, ATOL = 1e-3, 1e-4


def image_shape(model: str) -> Tuple[int, int, int, int]:
  size = MODELS[model][0]
  return (BATCH, size, size, 3)


def module_class(model: str) -> Type[tf.Module]:
  """A tf.Module class named `model` holding it, with its inference call as `predict`."""
  if model not in MODELS:
    raise ValueError(f"unknown keras.applications model {model!r}; one of {sorted(MODELS)}")
  shape = image_shape(model)

  def __init__(self):
    tf.Module.__init__(self)
    tf_utils.set_random_seed()  # every backend's instance starts from the same weights
    constructor = getattr(tf.keras.applications, model)
    self.model = constructor(weights=None, include_top=True, classes=CLASSES,
                             input_shape=shape[1:], **MODELS[model][1])
    self.predict = tf.function(input_signature=[tf.TensorSpec(shape, tf.float32)])(
        lambda images: self.model(images, training=False))

  return type(model, (tf.Module,), {"__init__": __init__, "__module__": __name__})


class PredictTest(tf_test_utils.TracedModuleTestCase):
  """One image through the model: a test class of a model's file derives from this one."""

  def test_predict(self):
    shape = tuple(self.module_shape())

    def predict(module):
      tf_utils.set_random_seed()
      # Images as the models' own preprocessing leaves them, in [-1, 1] (EfficientNet and
      # ConvNeXt rescale inside the model and see the same values).
      images = tf_utils.uniform(shape, low=-1.0, high=1.0).astype(np.float32)
      module.predict(images, rtol=RTOL, atol=ATOL)

    self.compare_backends(predict)

  @classmethod
  def module_shape(cls) -> Tuple[int, int, int, int]:
    return image_shape(cls.MODEL)
