"""A Keras 2 layer keeping a ring buffer of its inputs in non-trainable variables, written with
tf.compat.v1.scatter_update inside tf.cond.

In the corpus because this is how 2020-era streaming models kept state: a `[capacity, features]`
variable written with `scatter_update` (a ResourceScatterUpdate on the variable's handle) at
indices computed at run time from other variables (`floormod(range(start, start + rows))`: their
length is unknown to the compiler, the update's is static), inside a tf.cond that picks between
filling a free slot and overwriting the oldest. Issue 13 saw this shape fail with
'iree_linalg_ext.scatter' op mismatch in shape of indices and update value at dim#0.
ring_buffer_test.py is a plain tf.Module ring buffer (tensor_scatter_nd_update + assign, no
tf.cond), which passes; conditional_assign_test.py isolates a variable written inside tf.cond.

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macros).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

CAPACITY = 3
FEATURES = 2


class RingBufferLayer(tf.keras.layers.Layer):
  """Remembers the last CAPACITY input rows; returns them oldest first (unwritten rows zero).

  Each call writes its rows (one per call in this test: the overflow branch assumes it).
  """

  def build(self, input_shape):
    self.buffer = self.add_weight(name="buffer", shape=[CAPACITY, FEATURES],
                                  initializer="zeros", trainable=False)
    self.head = self.add_weight(name="head", shape=[], dtype=tf.int32,
                                initializer="zeros", trainable=False)  # the oldest row
    self.size = self.add_weight(name="size", shape=[], dtype=tf.int32,
                                initializer="zeros", trainable=False)  # rows held
    super().build(input_shape)

  def call(self, rows):
    count = tf.shape(rows)[0]
    start = self.head + self.size
    indices = tf.math.floormod(tf.range(start, start + count), CAPACITY)

    def append():
      tf.compat.v1.scatter_update(self.buffer, indices, rows)
      self.size.assign_add(count)
      return tf.constant(True)

    def overwrite_oldest():
      tf.compat.v1.scatter_update(self.buffer, indices, rows)
      self.head.assign(tf.math.floormod(self.head + count, CAPACITY))
      return tf.constant(False)

    appended = tf.cond(self.size + count <= CAPACITY, append, overwrite_oldest)
    with tf.control_dependencies([appended]):
      order = tf.math.floormod(self.head + tf.range(CAPACITY), CAPACITY)
      return tf.expand_dims(tf.gather(self.buffer, order), 0)


class KerasRingBufferModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(batch_size=1, shape=(FEATURES,))
    self.m = tf.keras.Model(inputs, RingBufferLayer()(inputs))
    self.push = tf.function(input_signature=[tf.TensorSpec([1, FEATURES], tf.float32)])(self.m.call)


@tf_test_utils.compile_module(KerasRingBufferModule, exported_names=["push"])
class KerasRingBufferTest(tf_test_utils.TracedModuleTestCase):

  def test_fill_and_wrap(self):

    def fill_and_wrap(module):
      for i in range(CAPACITY + 2):
        module.push(np.array([[i + 1., -(i + 1.)]], dtype=np.float32))

    self.compare_backends(fill_and_wrap)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
