"""A fixed-capacity ring buffer kept in tf.Variables (values, write position, fill count)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

CAPACITY = 5
FEATURES = 2


class RingBufferModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.values = tf.Variable(tf.zeros([CAPACITY, FEATURES], tf.float32))
    self.head = tf.Variable(0, dtype=tf.int32)  # next slot to write
    self.size = tf.Variable(0, dtype=tf.int32)  # number of valid slots

  @tf.function(input_signature=[tf.TensorSpec([FEATURES], tf.float32)])
  def push(self, item):
    """Writes one item, overwriting the oldest when full; returns the new size."""
    self.values.assign(
        tf.tensor_scatter_nd_update(self.values, tf.reshape(self.head, [1, 1]),
                                    tf.reshape(item, [1, FEATURES])))
    self.head.assign(tf.math.floormod(self.head + 1, CAPACITY))
    self.size.assign(tf.minimum(self.size + 1, CAPACITY))
    return self.size.read_value()

  @tf.function(input_signature=[])
  def ordered(self):
    """All slots, oldest first (slots not yet written are zero)."""
    start = tf.math.floormod(self.head - self.size + CAPACITY, CAPACITY)
    indices = tf.math.floormod(start + tf.range(CAPACITY), CAPACITY)
    return tf.gather(self.values, indices)

  @tf.function(input_signature=[])
  def newest(self):
    return tf.gather(self.values, tf.math.floormod(self.head - 1, CAPACITY))

  @tf.function(input_signature=[])
  def mean(self):
    """Mean over the valid items only."""
    # Slot i is valid iff it is among the last `size` written ones.
    age = tf.math.floormod(self.head - 1 - tf.range(CAPACITY) + CAPACITY,
                           CAPACITY)
    valid = tf.cast(age < self.size, tf.float32)
    total = tf.reduce_sum(self.values * valid[:, None], axis=0)
    return total / tf.maximum(tf.cast(self.size, tf.float32), 1.0)


@tf_test_utils.compile_module(RingBufferModule)
class RingBufferTest(tf_test_utils.TracedModuleTestCase):

  def test_partial_fill(self):

    def partial_fill(module):
      module.push(np.array([1., 10.], dtype=np.float32))
      module.push(np.array([2., 20.], dtype=np.float32))
      module.ordered()
      module.newest()
      module.mean()

    self.compare_backends(partial_fill)

  def test_wrap_around(self):

    def wrap_around(module):
      for i in range(CAPACITY + 3):
        module.push(np.array([i, -2. * i], dtype=np.float32))
      module.ordered()
      module.newest()
      module.mean(rtol=1e-5)

    self.compare_backends(wrap_around)

  def test_empty(self):

    def empty(module):
      module.ordered()
      module.mean()

    self.compare_backends(empty)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
