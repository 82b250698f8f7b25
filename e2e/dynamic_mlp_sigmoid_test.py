"""A multi-layer perceptron with a dynamic (None) batch and sigmoid hidden layers.

In the corpus as the sigmoid twin of dynamic_mlp_test.py (relu): `x @ w + b` with a None batch
is a broadcasting add on a dynamic dimension, which TF's lowering to StableHLO emits as an
unannotated `stablehlo.dynamic_broadcast_in_dim` that IREE's input conversion rejects. The
sigmoid (a logistic, i.e. exp and a division) keeps the failure from being relu-specific once the
broadcast imports.
The importer's dynamic-broadcast rewrite (docs/dynamic_broadcasts.md) makes these compile without
assuming anything that could compute a wrong answer: this file guards it.
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

LAYER_SIZES = [6, 10, 8, 3]


class DynamicMlpSigmoidModule(tf.Module):

  def __init__(self):
    super().__init__()
    # Seeded weights: every instantiation of the module is identical.
    rng = np.random.RandomState(4321)
    self.weights = []
    self.biases = []
    for fan_in, fan_out in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:]):
      scale = np.sqrt(1.0 / fan_in)
      self.weights.append(
          tf.Variable(rng.normal(scale=scale, size=[fan_in, fan_out]).astype(np.float32)))
      self.biases.append(
          tf.Variable(rng.uniform(-0.5, 0.5, size=[fan_out]).astype(np.float32)))

  def _logits(self, x):
    for i, (w, b) in enumerate(zip(self.weights, self.biases)):
      x = tf.matmul(x, w) + b
      if i < len(self.weights) - 1:
        x = tf.sigmoid(x)
    return x

  @tf.function(input_signature=[tf.TensorSpec([None, LAYER_SIZES[0]], tf.float32)])
  def predict(self, x):
    return tf.nn.softmax(self._logits(x))

  @tf.function(input_signature=[tf.TensorSpec([None, LAYER_SIZES[0]], tf.float32)])
  def hidden(self, x):
    """The first hidden layer's activations alone: one broadcast add, one sigmoid."""
    return tf.sigmoid(tf.matmul(x, self.weights[0]) + self.biases[0])


@tf_test_utils.compile_module(DynamicMlpSigmoidModule)
class DynamicMlpSigmoidTest(tf_test_utils.TracedModuleTestCase):

  def test_predict_batch_sizes(self):

    def predict_batch_sizes(module):
      for batch in [1, 4]:
        module.predict(tf_utils.uniform([batch, LAYER_SIZES[0]]) * 4. - 2.,
                       rtol=1e-5, atol=1e-6)

    self.compare_backends(predict_batch_sizes)

  def test_hidden(self):

    def hidden(module):
      module.hidden(tf_utils.uniform([3, LAYER_SIZES[0]]) * 4. - 2., rtol=1e-5, atol=1e-6)

    self.compare_backends(hidden)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
