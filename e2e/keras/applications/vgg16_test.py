"""keras.applications.VGG16 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

VGG16 = app_models.module_class("VGG16")


@tf_test_utils.compile_module(VGG16, exported_names=["predict"])
class VGG16Test(app_models.PredictTest):
  MODEL = "VGG16"


if __name__ == "__main__":
  tf.test.main()
