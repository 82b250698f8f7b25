"""keras.applications.EfficientNetV2B0 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

EfficientNetV2B0 = app_models.module_class("EfficientNetV2B0")


@tf_test_utils.compile_module(EfficientNetV2B0, exported_names=["predict"])
class EfficientNetV2B0Test(app_models.PredictTest):
  MODEL = "EfficientNetV2B0"


if __name__ == "__main__":
  tf.test.main()
