"""A ResNet50-sized Keras model (CIFAR shape 32x32x3, 10 classes, random weights: 94 MB of
float32 weights), one prediction compared. Used by bench/run_benchmark.py (figure R: bytes
written, wall time and peak RSS of a big model)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

INPUT_SHAPE = [1, 32, 32, 3]


class ResNet50Module(tf.Module):

  def __init__(self):
    super().__init__()
    tf.keras.utils.set_random_seed(0)
    self.model = tf.keras.applications.ResNet50(weights=None, input_shape=tuple(INPUT_SHAPE[1:]),
                                                classes=10)
    self.predict = tf.function(input_signature=[tf.TensorSpec(INPUT_SHAPE, tf.float32)])(
        lambda images: self.model(images, training=False))


@tf_test_utils.compile_module(ResNet50Module, exported_names=["predict"])
class ResNet50Test(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      images = np.random.RandomState(0).uniform(size=INPUT_SHAPE).astype(np.float32)
      module.predict(images, rtol=1e-3, atol=1e-3)

    self.compare_backends(predict)


if __name__ == "__main__":
  tf.test.main()
