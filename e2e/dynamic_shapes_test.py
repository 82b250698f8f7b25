"""Ops on dynamically shaped tensors whose lowering computes shapes at runtime: batch matmul
with a dynamic batch, reshape with an inferred dimension, tf.shape as data, expand/squeeze."""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class DynamicShapesModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([None, 2, 3], tf.float32),
      tf.TensorSpec([None, 3, 2], tf.float32),
  ])
  def batch_matmul_dynamic_batch(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
  def flatten(self, x):
    return tf.reshape(x, [-1])

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def split_rows_in_pairs(self, x):
    return tf.reshape(x, [-1, 2, 4])

  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
  def shape_as_data(self, x):
    shape = tf.shape(x)
    return shape, tf.cast(tf.reduce_prod(shape), tf.float32) * x

  @tf.function(input_signature=[tf.TensorSpec([None, 1, 3], tf.float32)])
  def squeeze_then_expand(self, x):
    return tf.expand_dims(tf.squeeze(x, axis=1), axis=0)


@tf_test_utils.compile_module(DynamicShapesModule)
class DynamicShapesTest(tf_test_utils.TracedModuleTestCase):

  def test_batch_matmul_dynamic_batch(self):

    def batch_matmul_dynamic_batch(module):
      module.batch_matmul_dynamic_batch(tf_utils.uniform([1, 2, 3]),
                                        tf_utils.uniform([1, 3, 2]), rtol=1e-5)
      module.batch_matmul_dynamic_batch(tf_utils.uniform([4, 2, 3]),
                                        tf_utils.uniform([4, 3, 2]), rtol=1e-5)

    self.compare_backends(batch_matmul_dynamic_batch)

  def test_flatten(self):

    def flatten(module):
      module.flatten(tf_utils.ndarange([4, 3]))
      module.flatten(tf_utils.ndarange([1, 3]))

    self.compare_backends(flatten)

  def test_split_rows_in_pairs(self):

    def split_rows_in_pairs(module):
      module.split_rows_in_pairs(tf_utils.ndarange([6, 4]))

    self.compare_backends(split_rows_in_pairs)

  def test_shape_as_data(self):

    def shape_as_data(module):
      module.shape_as_data(tf_utils.ndarange([2, 3]))
      module.shape_as_data(tf_utils.ndarange([1, 5]))

    self.compare_backends(shape_as_data)

  def test_squeeze_then_expand(self):

    def squeeze_then_expand(module):
      module.squeeze_then_expand(tf_utils.ndarange([2, 1, 3]))

    self.compare_backends(squeeze_then_expand)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
