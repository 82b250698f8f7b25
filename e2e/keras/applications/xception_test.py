"""keras.applications.Xception (random weights) on one 71x71 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

Xception = app_models.module_class("Xception")


@tf_test_utils.compile_module(Xception, exported_names=["predict"])
class XceptionTest(app_models.PredictTest):
  MODEL = "Xception"


if __name__ == "__main__":
  tf.test.main()
