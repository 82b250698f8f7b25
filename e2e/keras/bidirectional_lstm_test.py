"""A Keras 2 bidirectional LSTM whose batch dim is None, over fixed time steps: the forward and
the backward LSTM's last outputs concatenated.

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macros).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

STEPS = 4
FEATURES = 3
UNITS = 2


class BidirectionalLstmModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(shape=(STEPS, FEATURES))
    outputs = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(UNITS))(inputs)
    self.m = tf.keras.Model(inputs, outputs)
    self.predict = tf.function(
        input_signature=[tf.TensorSpec([None, STEPS, FEATURES], tf.float32)])(self.m.call)


@tf_test_utils.compile_module(BidirectionalLstmModule, exported_names=["predict"])
class BidirectionalLstmTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      for batch in (2, 1):
        sequence = tf_utils.ndarange([batch, STEPS, FEATURES]) / (batch * STEPS * FEATURES)
        module.predict(sequence.astype(np.float32), rtol=1e-5, atol=1e-6)

    self.compare_backends(predict)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
