"""A small multi-layer perceptron with a dynamic batch dimension and fixed weights."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

LAYER_SIZES = [8, 16, 12, 4]


class DynamicMlpModule(tf.Module):

  def __init__(self):
    super().__init__()
    # Deterministic weights, so every instantiation of the module is identical.
    rng = np.random.RandomState(1234)
    self.weights = []
    self.biases = []
    for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]):
      scale = np.sqrt(2.0 / fan_in)
      self.weights.append(
          tf.Variable(rng.normal(scale=scale, size=[fan_in, fan_out]).astype(np.float32)))
      self.biases.append(
          tf.Variable(rng.uniform(-0.1, 0.1, size=[fan_out]).astype(np.float32)))

  def _logits(self, x):
    for i, (w, b) in enumerate(zip(self.weights, self.biases)):
      x = tf.matmul(x, w) + b
      if i < len(self.weights) - 1:
        x = tf.nn.relu(x)
    return x

  @tf.function(input_signature=[tf.TensorSpec([None, LAYER_SIZES[0]], tf.float32)])
  def predict(self, x):
    return tf.nn.softmax(self._logits(x))

  @tf.function(input_signature=[tf.TensorSpec([None, LAYER_SIZES[0]], tf.float32)])
  def classify(self, x):
    return tf.argmax(self._logits(x), axis=1, output_type=tf.int32)


@tf_test_utils.compile_module(DynamicMlpModule)
class DynamicMlpTest(tf_test_utils.TracedModuleTestCase):

  def test_predict_batch_sizes(self):

    def predict_batch_sizes(module):
      for batch in [1, 3, 8]:
        module.predict(tf_utils.uniform([batch, LAYER_SIZES[0]]) * 2. - 1.,
                       rtol=1e-5, atol=1e-6)

    self.compare_backends(predict_batch_sizes)

  def test_classify(self):

    def classify(module):
      module.classify(tf_utils.uniform([6, LAYER_SIZES[0]]) * 2. - 1.)

    self.compare_backends(classify)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
