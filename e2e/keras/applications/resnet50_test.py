"""keras.applications.ResNet50 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

ResNet50 = app_models.module_class("ResNet50")


@tf_test_utils.compile_module(ResNet50, exported_names=["predict"])
class ResNet50Test(app_models.PredictTest):
  MODEL = "ResNet50"


if __name__ == "__main__":
  tf.test.main()
