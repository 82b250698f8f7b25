"""keras.applications.ConvNeXtTiny (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

ConvNeXtTiny = app_models.module_class("ConvNeXtTiny")


@tf_test_utils.compile_module(ConvNeXtTiny, exported_names=["predict"])
class ConvNeXtTinyTest(app_models.PredictTest):
  MODEL = "ConvNeXtTiny"


if __name__ == "__main__":
  tf.test.main()
