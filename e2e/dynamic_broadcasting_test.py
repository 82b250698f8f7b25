"""Broadcasting elementwise ops whose operands have dynamic (None) dimensions."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class DynamicBroadcastingModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([None, 3], tf.float32),
      tf.TensorSpec([3], tf.float32),
  ])
  def rows_plus_bias(self, x, bias):
    return x + bias

  @tf.function(input_signature=[
      tf.TensorSpec([None], tf.float32),
      tf.TensorSpec([None, 1], tf.float32),
  ])
  def outer_sum(self, row, col):
    return row + col

  @tf.function(input_signature=[
      tf.TensorSpec([None, None], tf.float32),
      tf.TensorSpec([], tf.float32),
  ])
  def scale_by_scalar(self, x, s):
    return x * s

  @tf.function(input_signature=[
      tf.TensorSpec([None, 4], tf.float32),
      tf.TensorSpec([None, 1], tf.float32),
  ])
  def divide_rows(self, x, denominators):
    return x / denominators


@tf_test_utils.compile_module(DynamicBroadcastingModule)
class DynamicBroadcastingTest(tf_test_utils.TracedModuleTestCase):

  def test_rows_plus_bias(self):

    def rows_plus_bias(module):
      bias = np.array([0.5, -1., 2.], dtype=np.float32)
      module.rows_plus_bias(tf_utils.uniform([4, 3]), bias)
      module.rows_plus_bias(tf_utils.uniform([1, 3]), bias)

    self.compare_backends(rows_plus_bias)

  def test_outer_sum(self):

    def outer_sum(module):
      module.outer_sum(tf_utils.ndarange([5]), tf_utils.ndarange([2, 1]) * 10.)
      module.outer_sum(tf_utils.ndarange([1]), tf_utils.ndarange([3, 1]))

    self.compare_backends(outer_sum)

  def test_scale_by_scalar(self):

    def scale_by_scalar(module):
      module.scale_by_scalar(tf_utils.ndarange([2, 5]), np.float32(-0.5))
      module.scale_by_scalar(tf_utils.ndarange([3, 1]), np.float32(4.0))

    self.compare_backends(scale_by_scalar)

  def test_divide_rows(self):

    def divide_rows(module):
      module.divide_rows(tf_utils.ndarange([3, 4]),
                         np.array([[1.], [2.], [4.]], dtype=np.float32))

    self.compare_backends(divide_rows)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
