"""keras.applications.MobileNetV3Small (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

MobileNetV3Small = app_models.module_class("MobileNetV3Small")


@tf_test_utils.compile_module(MobileNetV3Small, exported_names=["predict"])
class MobileNetV3SmallTest(app_models.PredictTest):
  MODEL = "MobileNetV3Small"


if __name__ == "__main__":
  tf.test.main()
