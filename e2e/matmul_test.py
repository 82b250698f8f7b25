"""Matrix multiplication: plain, transposed, batched, with bias and activation."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class MatmulModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([3, 4], tf.float32),
      tf.TensorSpec([4, 2], tf.float32),
  ])
  def matmul(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([1, 4], tf.float32),
      tf.TensorSpec([4, 1], tf.float32),
  ])
  def dot_row_col(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([5, 3], tf.float32),
      tf.TensorSpec([3, 6], tf.float32),
      tf.TensorSpec([6], tf.float32),
  ])
  def dense_relu(self, x, w, b):
    return tf.nn.relu(tf.matmul(x, w) + b)

  @tf.function(input_signature=[
      tf.TensorSpec([2, 3, 4], tf.float32),
      tf.TensorSpec([2, 4, 5], tf.float32),
  ])
  def batch_matmul(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([3, 2], tf.float32),
      tf.TensorSpec([3, 2], tf.float32),
  ])
  def matmul_lhs_transposed(self, lhs, rhs):
    return tf.matmul(lhs, rhs, transpose_a=True)

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def outer_product(self, a, b):
    return tf.tensordot(a, b, axes=0)


@tf_test_utils.compile_module(MatmulModule)
class MatmulTest(tf_test_utils.TracedModuleTestCase):

  def test_matmul(self):

    def matmul(module):
      lhs = tf_utils.ndarange([3, 4])
      rhs = tf_utils.uniform([4, 2])
      module.matmul(lhs, rhs, rtol=1e-5)
      module.matmul(-lhs, rhs * 3., rtol=1e-5)

    self.compare_backends(matmul)

  def test_dot_row_col(self):

    def dot_row_col(module):
      module.dot_row_col(np.array([[1., 2., 3., 4.]], dtype=np.float32),
                         np.array([[4.], [3.], [2.], [1.]], dtype=np.float32))

    self.compare_backends(dot_row_col)

  def test_dense_relu(self):

    def dense_relu(module):
      x = tf_utils.uniform([5, 3]) - 0.5
      w = tf_utils.uniform([3, 6]) - 0.5
      b = tf_utils.uniform([6]) - 0.5
      module.dense_relu(x, w, b, rtol=1e-5, atol=1e-6)

    self.compare_backends(dense_relu)

  def test_batch_matmul(self):

    def batch_matmul(module):
      module.batch_matmul(tf_utils.uniform([2, 3, 4]),
                          tf_utils.uniform([2, 4, 5]),
                          rtol=1e-5)

    self.compare_backends(batch_matmul)

  def test_matmul_lhs_transposed(self):

    def matmul_lhs_transposed(module):
      module.matmul_lhs_transposed(tf_utils.ndarange([3, 2]),
                                   tf_utils.uniform([3, 2]),
                                   rtol=1e-5)

    self.compare_backends(matmul_lhs_transposed)

  def test_outer_product(self):

    def outer_product(module):
      module.outer_product(
          np.array([1., -2., 3., 0.5], dtype=np.float32),
          np.array([2., 4., -1., 10.], dtype=np.float32))

    self.compare_backends(outer_product)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
