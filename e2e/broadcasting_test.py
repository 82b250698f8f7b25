"""NumPy-style broadcasting of statically shaped operands in elementwise ops, and tf.broadcast_to."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class BroadcastingModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([3, 1], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def column_plus_row(self, col, row):
    return col + row

  @tf.function(input_signature=[
      tf.TensorSpec([2, 3, 4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def scale_last_axis(self, x, scale):
    return x * scale

  @tf.function(input_signature=[
      tf.TensorSpec([2, 1, 4], tf.float32),
      tf.TensorSpec([1, 3, 1], tf.float32),
  ])
  def both_sides(self, a, b):
    return a - b

  @tf.function(input_signature=[
      tf.TensorSpec([3], tf.float32),
      tf.TensorSpec([], tf.float32),
  ])
  def with_scalar(self, x, s):
    return tf.maximum(x, s) / (s + 1.0)

  @tf.function(input_signature=[tf.TensorSpec([1, 3], tf.float32)])
  def broadcast_to(self, x):
    return tf.broadcast_to(x, [4, 3])


@tf_test_utils.compile_module(BroadcastingModule)
class BroadcastingTest(tf_test_utils.TracedModuleTestCase):

  def test_column_plus_row(self):

    def column_plus_row(module):
      module.column_plus_row(tf_utils.ndarange([3, 1]) * 10.,
                             tf_utils.ndarange([4]))

    self.compare_backends(column_plus_row)

  def test_scale_last_axis(self):

    def scale_last_axis(module):
      module.scale_last_axis(tf_utils.uniform([2, 3, 4]),
                             np.array([1., -1., 2., 0.5], dtype=np.float32))

    self.compare_backends(scale_last_axis)

  def test_both_sides(self):

    def both_sides(module):
      module.both_sides(tf_utils.uniform([2, 1, 4]), tf_utils.uniform([1, 3, 1]))

    self.compare_backends(both_sides)

  def test_with_scalar(self):

    def with_scalar(module):
      module.with_scalar(np.array([-1., 2., 5.], dtype=np.float32), 1.5)

    self.compare_backends(with_scalar)

  def test_broadcast_to(self):

    def broadcast_to(module):
      module.broadcast_to(np.array([[1., 2., 3.]], dtype=np.float32))

    self.compare_backends(broadcast_to)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
