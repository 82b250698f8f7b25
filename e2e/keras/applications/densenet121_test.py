"""keras.applications.DenseNet121 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

DenseNet121 = app_models.module_class("DenseNet121")


@tf_test_utils.compile_module(DenseNet121, exported_names=["predict"])
class DenseNet121Test(app_models.PredictTest):
  MODEL = "DenseNet121"


if __name__ == "__main__":
  tf.test.main()
