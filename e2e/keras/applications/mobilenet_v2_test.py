"""keras.applications.MobileNetV2 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

MobileNetV2 = app_models.module_class("MobileNetV2")


@tf_test_utils.compile_module(MobileNetV2, exported_names=["predict"])
class MobileNetV2Test(app_models.PredictTest):
  MODEL = "MobileNetV2"


if __name__ == "__main__":
  tf.test.main()
