"""keras.applications.MobileNet (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

MobileNet = app_models.module_class("MobileNet")


@tf_test_utils.compile_module(MobileNet, exported_names=["predict"])
class MobileNetTest(app_models.PredictTest):
  MODEL = "MobileNet"


if __name__ == "__main__":
  tf.test.main()
