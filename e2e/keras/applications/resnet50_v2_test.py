"""keras.applications.ResNet50V2 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

ResNet50V2 = app_models.module_class("ResNet50V2")


@tf_test_utils.compile_module(ResNet50V2, exported_names=["predict"])
class ResNet50V2Test(app_models.PredictTest):
  MODEL = "ResNet50V2"


if __name__ == "__main__":
  tf.test.main()
