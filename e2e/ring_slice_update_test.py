"""A ring buffer in a tf.Variable written a runtime-sized slice at a time: the rows go to
`floormod(range(head, head + count))`, indices whose length the compiler does not know while the
rows' is static (how 2020-era streaming modules kept state; a tf.Module without Keras or
tf.cond, unlike keras/keras_ring_buffer_test.py)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

CAPACITY = 3
FEATURES = 2


class RingSliceModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.buffer = tf.Variable(tf.zeros([CAPACITY, FEATURES], tf.float32))
    self.head = tf.Variable(0, dtype=tf.int32)  # the next row to write

  @tf.function(input_signature=[tf.TensorSpec([1, FEATURES], tf.float32)])
  def push(self, rows):
    """Writes `rows` at the head, wrapping; returns the buffer."""
    count = tf.shape(rows)[0]
    slots = tf.math.floormod(tf.range(self.head, self.head + count), CAPACITY)
    self.buffer.assign(tf.tensor_scatter_nd_update(self.buffer, tf.expand_dims(slots, 1), rows))
    self.head.assign(tf.math.floormod(self.head + count, CAPACITY))
    return self.buffer.read_value()


@tf_test_utils.compile_module(RingSliceModule)
class RingSliceTest(tf_test_utils.TracedModuleTestCase):

  def test_fill_and_wrap(self):

    def fill_and_wrap(module):
      for i in range(CAPACITY + 2):
        module.push(np.array([[i + 1., -(i + 1.)]], np.float32))

    self.compare_backends(fill_and_wrap)


if __name__ == "__main__":
  tf.test.main()
