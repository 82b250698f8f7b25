"""keras.applications.InceptionV3 (random weights) on one 75x75 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

InceptionV3 = app_models.module_class("InceptionV3")


@tf_test_utils.compile_module(InceptionV3, exported_names=["predict"])
class InceptionV3Test(app_models.PredictTest):
  MODEL = "InceptionV3"


if __name__ == "__main__":
  tf.test.main()
