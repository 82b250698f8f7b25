"""A Keras 2 GRU text model whose batch dim is None: an embedding, then a GRU over fixed time
steps, as a user's classifier is usually declared (`Input(shape=(STEPS,))`).

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macros).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

STEPS = 5
VOCABULARY = 10
EMBEDDING = 4
UNITS = 3


class GruModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(shape=(STEPS,), dtype=tf.int32)
    embedded = tf.keras.layers.Embedding(VOCABULARY, EMBEDDING)(inputs)
    outputs = tf.keras.layers.GRU(UNITS)(embedded)
    self.m = tf.keras.Model(inputs, outputs)
    self.predict = tf.function(
        input_signature=[tf.TensorSpec([None, STEPS], tf.int32)])(self.m.call)


@tf_test_utils.compile_module(GruModule, exported_names=["predict"])
class GruTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      for batch in (2, 1):
        tokens = np.arange(batch * STEPS, dtype=np.int32).reshape([batch, STEPS]) % VOCABULARY
        module.predict(tokens, rtol=1e-5, atol=1e-6)

    self.compare_backends(predict)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
