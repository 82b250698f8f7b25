"""keras.applications.MobileNetV3Large (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

MobileNetV3Large = app_models.module_class("MobileNetV3Large")


@tf_test_utils.compile_module(MobileNetV3Large, exported_names=["predict"])
class MobileNetV3LargeTest(app_models.PredictTest):
  MODEL = "MobileNetV3Large"


if __name__ == "__main__":
  tf.test.main()
