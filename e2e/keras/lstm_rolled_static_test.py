"""A Keras 2 LSTM with every shape static (batch 2, 5 time steps, 4 features) and the
recurrence rolled (Keras' default, `unroll=False`).

In the corpus because a rolled Keras RNN runs a while loop that reads its inputs from and writes
its outputs to TensorArrays (TensorList ops on `!tf_type.variant` values) even when every size is
known, and TF's lowering to StableHLO leaves those variants in the loop. lstm_static_test.py is
the same model unrolled (straight-line code, passes); lstm_test.py has a static batch but a
dynamic (None) time dimension. This file separates "TensorList with static sizes" (imported by the 'tensor-lists' pipeline,
docs/import_pipeline.md) from "dynamic shapes" (lstm_test.py, still failing).

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


class LstmRolledStaticModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(batch_size=BATCH, shape=(STEPS, FEATURES))
    outputs = tf.keras.layers.LSTM(UNITS, return_sequences=True)(inputs)
    self.m = tf.keras.Model(inputs, outputs)
    self.predict = tf.function(
        input_signature=[tf.TensorSpec([BATCH, STEPS, FEATURES], tf.float32)])(self.m.call)


@tf_test_utils.compile_module(LstmRolledStaticModule, exported_names=["predict"])
class LstmRolledStaticTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      sequence = tf_utils.ndarange([BATCH, STEPS, FEATURES]) / (BATCH * STEPS * FEATURES)
      module.predict(sequence.astype(np.float32), rtol=1e-5, atol=1e-6)

    self.compare_backends(predict)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
