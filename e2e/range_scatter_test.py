"""A scatter whose indices come from `tf.range(n)` with a runtime `n`, wrapped into the operand
(`tf.range(n) % 8`, a ring buffer's positions), beside the same scatter at the range itself, at
indices given as an input, and the wrapped range summed instead of scattered.

The wrapped range is TF's floormod: a remainder, then a select on a mask, whose broadcasts over the
runtime length become `scf.if`s; llvm-cpu and vulkan-spirv reject the scatter reading them
(e2e/repros/findings/range_scatter_unbounded_alloca). A reversed range (`tf.range(n - 1, -1,
-1)`) is the lowering's own fault: it gives the range minus its length, which the import's
range-lengths step mends (docs/import_pipeline.md)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

_COUNT = tf.TensorSpec([], tf.int32)
_BUFFER = tf.TensorSpec([8], tf.float32)


class RangeScatterModule(tf.Module):

  @tf.function(input_signature=[_COUNT, _BUFFER])
  def wrapped_range(self, n, buffer):  # n values written at positions 0, 1, ... modulo 8.
    positions = tf.range(n)
    return tf.tensor_scatter_nd_update(buffer, tf.expand_dims(positions % 8, 1),
                                       tf.cast(positions, tf.float32))

  @tf.function(input_signature=[_COUNT, _BUFFER])
  def range_positions(self, n, buffer):  # the range itself: n <= 8.
    positions = tf.range(n)
    return tf.tensor_scatter_nd_update(buffer, tf.expand_dims(positions, 1),
                                       tf.cast(positions, tf.float32))

  @tf.function(input_signature=[_COUNT, _BUFFER])
  def reversed_range(self, n, buffer):  # n - 1 down to 0: a negative step.
    positions = tf.range(n - 1, -1, -1)
    return tf.tensor_scatter_nd_update(buffer, tf.expand_dims(positions, 1),
                                       tf.cast(positions * 10, tf.float32))

  @tf.function(input_signature=[tf.TensorSpec([None], tf.int32), _BUFFER])
  def wrapped_positions(self, positions, buffer):  # the positions given: no range.
    return tf.tensor_scatter_nd_update(buffer, tf.expand_dims(positions % 8, 1),
                                       tf.cast(positions, tf.float32))

  @tf.function(input_signature=[_COUNT])
  def wrapped_range_sum(self, n):  # the wrapped range, summed: no scatter.
    return tf.reduce_sum(tf.range(n) % 8)


@tf_test_utils.compile_module(RangeScatterModule)
class RangeScatterTest(tf_test_utils.TracedModuleTestCase):

  def test_wrapped_range(self):

    def wrapped_range(module):
      module.wrapped_range(np.int32(5), np.zeros(8, np.float32))

    self.compare_backends(wrapped_range)

  def test_range_positions(self):

    def range_positions(module):
      module.range_positions(np.int32(5), np.zeros(8, np.float32))

    self.compare_backends(range_positions)

  def test_reversed_range(self):

    def reversed_range(module):
      module.reversed_range(np.int32(5), np.zeros(8, np.float32))

    self.compare_backends(reversed_range)

  def test_wrapped_positions(self):

    def wrapped_positions(module):
      module.wrapped_positions(np.arange(5, dtype=np.int32), np.zeros(8, np.float32))

    self.compare_backends(wrapped_positions)

  def test_wrapped_range_sum(self):

    def wrapped_range_sum(module):
      module.wrapped_range_sum(np.int32(11))

    self.compare_backends(wrapped_range_sum)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
