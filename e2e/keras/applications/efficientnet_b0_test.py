"""keras.applications.EfficientNetB0 (random weights) on one 32x32 image: see app_models.py."""

import app_models
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

EfficientNetB0 = app_models.module_class("EfficientNetB0")


@tf_test_utils.compile_module(EfficientNetB0, exported_names=["predict"])
class EfficientNetB0Test(app_models.PredictTest):
  MODEL = "EfficientNetB0"


if __name__ == "__main__":
  tf.test.main()
