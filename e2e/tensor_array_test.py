"""tf.TensorArray with static sizes and element shapes: written and read in a tf.range loop,
unstacked and stacked, gathered, concatenated.

In the corpus because a TensorArray becomes TF TensorList ops on a `!tf_type.variant` handle
(`tf.TensorListReserve`, `SetItem`, `GetItem`, `Stack`, ...), which TF's lowering to StableHLO
does not convert: in a loop the variant stays a loop-carried value of the `mhlo.while` (which
rejects it), without one the ops are left as they are. Every size here is a compile-time
constant, so the importer's 'tensor-lists' pipeline (TF's tensor-list-ops-decomposition,
docs/import_pipeline.md) turns the lists into plain tensors: this file guards that path. The same ops carry a rolled Keras LSTM's outputs
(keras/lstm_rolled_static_test.py).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

STEPS = 4
FEATURES = 3


class TensorArrayModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([FEATURES], tf.float32)])
  def running_powers(self, x):
    """Row i is x ** (i + 1), each written in a tf.range loop from the previous one read back."""
    ta = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES])
    ta = ta.write(0, x)
    for i in tf.range(1, STEPS):
      ta = ta.write(i, ta.read(i - 1) * x)
    return ta.stack()

  @tf.function(input_signature=[tf.TensorSpec([STEPS, FEATURES], tf.float32)])
  def reverse_rows(self, x):
    """Unstacks the rows, writes them into a second array back to front, stacks it."""
    rows = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES]).unstack(x)
    reversed_rows = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES])
    for i in tf.range(STEPS):
      reversed_rows = reversed_rows.write(STEPS - 1 - i, rows.read(i))
    return reversed_rows.stack()

  @tf.function(input_signature=[
      tf.TensorSpec([STEPS, FEATURES], tf.float32),
      tf.TensorSpec([2], tf.int32),
  ])
  def gather_rows(self, x, indices):
    return tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES]).unstack(x).gather(indices)

  @tf.function(input_signature=[tf.TensorSpec([STEPS, FEATURES], tf.float32)])
  def concat_scaled(self, x):
    """Row i scaled by i + 1, concatenated into one vector of STEPS * FEATURES."""
    ta = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES])
    for i in tf.range(STEPS):
      ta = ta.write(i, x[i] * tf.cast(i + 1, tf.float32))
    return ta.concat()


@tf_test_utils.compile_module(TensorArrayModule)
class TensorArrayTest(tf_test_utils.TracedModuleTestCase):

  def test_running_powers(self):

    def running_powers(module):
      module.running_powers(np.array([0.5, -1., 1.5], dtype=np.float32), rtol=1e-6)

    self.compare_backends(running_powers)

  def test_reverse_rows(self):

    def reverse_rows(module):
      module.reverse_rows(tf_utils.ndarange([STEPS, FEATURES]))

    self.compare_backends(reverse_rows)

  def test_gather_rows(self):

    def gather_rows(module):
      module.gather_rows(tf_utils.ndarange([STEPS, FEATURES]), np.array([3, 1], dtype=np.int32))

    self.compare_backends(gather_rows)

  def test_concat_scaled(self):

    def concat_scaled(module):
      module.concat_scaled(tf_utils.uniform([STEPS, FEATURES]), rtol=1e-6)

    self.compare_backends(concat_scaled)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
