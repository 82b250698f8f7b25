"""keras.applications.NASNetMobile (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

NASNetMobile = app_models.module_class("NASNetMobile")


@tf_test_utils.compile_module(NASNetMobile, exported_names=["predict"])
class NASNetMobileTest(app_models.PredictTest):
  MODEL = "NASNetMobile"


if __name__ == "__main__":
  tf.test.main()
