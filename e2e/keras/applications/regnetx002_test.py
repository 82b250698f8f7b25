"""keras.applications.RegNetX002 (random weights) on one 32x32 image: see app_models.py."""

import tensorflow as tf

import app_models
from pyiree_tf_support import tf_test_utils

RegNetX002 = app_models.module_class("RegNetX002")


@tf_test_utils.compile_module(RegNetX002, exported_names=["predict"])
class RegNetX002Test(app_models.PredictTest):
  MODEL = "RegNetX002"


if __name__ == "__main__":
  tf.test.main()
