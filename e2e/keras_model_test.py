"""A small Keras 3 model's predict, exported through a tf.Module wrapper: a dense classifier and
a tiny convolutional network, both with deterministic weights."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

# The library first: it configures TensorFlow's logging before keras imports TensorFlow.
import keras
import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

BATCH = 2


def _set_deterministic_weights(model, seed):
  rng = np.random.RandomState(seed)
  model.set_weights([
      rng.uniform(-0.5, 0.5, size=w.shape).astype(np.float32)
      for w in model.get_weights()
  ])


class KerasModelModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.dense_model = keras.Sequential([
        keras.Input(shape=(6,)),
        keras.layers.Dense(10, activation="relu"),
        keras.layers.Dense(8, activation="tanh"),
        keras.layers.Dense(3, activation="softmax"),
    ])
    _set_deterministic_weights(self.dense_model, seed=7)
    self.conv_model = keras.Sequential([
        keras.Input(shape=(8, 8, 1)),
        keras.layers.Conv2D(4, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(5),
    ])
    _set_deterministic_weights(self.conv_model, seed=11)

  @tf.function(input_signature=[tf.TensorSpec([BATCH, 6], tf.float32)])
  def predict(self, x):
    return self.dense_model(x, training=False)

  @tf.function(input_signature=[tf.TensorSpec([BATCH, 8, 8, 1], tf.float32)])
  def predict_conv(self, images):
    return self.conv_model(images, training=False)


@tf_test_utils.compile_module(KerasModelModule, exported_names=["predict", "predict_conv"])
class KerasModelTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      module.predict(tf_utils.uniform([BATCH, 6]) * 2. - 1., rtol=1e-5, atol=1e-6)
      module.predict(tf_utils.ndarange([BATCH, 6]) / 12., rtol=1e-5, atol=1e-6)

    self.compare_backends(predict)

  def test_predict_conv(self):

    def predict_conv(module):
      module.predict_conv(tf_utils.uniform([BATCH, 8, 8, 1]), rtol=1e-5, atol=1e-5)

    self.compare_backends(predict_conv)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
