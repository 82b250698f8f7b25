"""A Keras 2 LSTM over sequences of any length: the time dimension is dynamic (None), so the
recurrence is a while loop over a TensorList.

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macros).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

BATCH = 2
FEATURES = 4
UNITS = 3


class LstmModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(batch_size=BATCH, shape=(None, FEATURES))
    outputs = tf.keras.layers.LSTM(UNITS, return_sequences=True)(inputs)
    self.m = tf.keras.Model(inputs, outputs)
    self.predict = tf.function(
        input_signature=[tf.TensorSpec([BATCH, None, FEATURES], tf.float32)])(self.m.call)


@tf_test_utils.compile_module(LstmModule, exported_names=["predict"])
class LstmTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      for steps in (1, 5):
        sequence = tf_utils.ndarange([BATCH, steps, FEATURES]) / (BATCH * steps * FEATURES)
        module.predict(sequence.astype(np.float32), rtol=1e-5, atol=1e-6)

    self.compare_backends(predict)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
