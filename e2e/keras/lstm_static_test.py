"""A Keras 2 LSTM over a fixed-length sequence: batch, time steps and features all static, and
the recurrence unrolled (`unroll=True`) into straight-line code. (Rolled, Keras keeps its outputs
in a TensorList inside a while loop, which TF's lowering to StableHLO leaves as a
`!tf_type.variant` the `mhlo.while` rejects: see lstm_test.py, listed as failing.)

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macros).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

BATCH = 2
STEPS = 5
FEATURES = 4
UNITS = 3


class LstmStaticModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(batch_size=BATCH, shape=(STEPS, FEATURES))
    outputs = tf.keras.layers.LSTM(UNITS, return_sequences=True, unroll=True)(inputs)
    self.m = tf.keras.Model(inputs, outputs)
    self.predict = tf.function(
        input_signature=[tf.TensorSpec([BATCH, STEPS, FEATURES], tf.float32)])(self.m.call)


@tf_test_utils.compile_module(LstmStaticModule, exported_names=["predict"])
class LstmStaticTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      sequence = tf_utils.ndarange([BATCH, STEPS, FEATURES]) / (BATCH * STEPS * FEATURES)
      module.predict(sequence.astype(np.float32), rtol=1e-5, atol=1e-6)

    self.compare_backends(predict)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
