"""Matrix ops on statically shaped operands: transpose, reshape, transposed and batched matmul,
einsum, band part, diagonal and trace."""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class MatrixOpsStaticModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2, 3, 4], tf.float32)])
  def transpose(self, x):
    return tf.transpose(x, perm=[2, 0, 1])

  @tf.function(input_signature=[tf.TensorSpec([2, 6], tf.float32)])
  def reshape(self, x):
    return tf.reshape(x, [3, 2, 2]), tf.reshape(x, [-1])

  @tf.function(input_signature=[
      tf.TensorSpec([4, 2], tf.float32),
      tf.TensorSpec([3, 4], tf.float32),
  ])
  def matmul_both_transposed(self, lhs, rhs):
    return tf.matmul(lhs, rhs, transpose_a=True, transpose_b=True)

  @tf.function(input_signature=[
      tf.TensorSpec([3, 2, 4], tf.float32),
      tf.TensorSpec([4, 5], tf.float32),
  ])
  def matmul_broadcast_batch(self, lhs, rhs):
    """A batched lhs against one shared rhs."""
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([2, 3], tf.float32),
      tf.TensorSpec([3, 4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def einsum_chain(self, a, b, v):
    return tf.einsum("ij,jk,k->i", a, b, v)

  @tf.function(input_signature=[tf.TensorSpec([4, 4], tf.float32)])
  def band_part(self, x):
    return tf.linalg.band_part(x, 1, 0), tf.linalg.band_part(x, 0, -1)

  @tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])
  def diag_and_trace(self, x):
    return tf.linalg.diag_part(x), tf.linalg.trace(x), tf.linalg.diag(x[0])


@tf_test_utils.compile_module(MatrixOpsStaticModule)
class MatrixOpsStaticTest(tf_test_utils.TracedModuleTestCase):

  def test_transpose(self):

    def transpose(module):
      module.transpose(tf_utils.ndarange([2, 3, 4]))

    self.compare_backends(transpose)

  def test_reshape(self):

    def reshape(module):
      module.reshape(tf_utils.ndarange([2, 6]))

    self.compare_backends(reshape)

  def test_matmul_both_transposed(self):

    def matmul_both_transposed(module):
      module.matmul_both_transposed(tf_utils.uniform([4, 2]),
                                    tf_utils.uniform([3, 4]),
                                    rtol=1e-5)

    self.compare_backends(matmul_both_transposed)

  def test_matmul_broadcast_batch(self):

    def matmul_broadcast_batch(module):
      module.matmul_broadcast_batch(tf_utils.uniform([3, 2, 4]),
                                    tf_utils.uniform([4, 5]),
                                    rtol=1e-5)

    self.compare_backends(matmul_broadcast_batch)

  def test_einsum_chain(self):

    def einsum_chain(module):
      module.einsum_chain(tf_utils.uniform([2, 3]), tf_utils.uniform([3, 4]),
                          tf_utils.uniform([4]), rtol=1e-5)

    self.compare_backends(einsum_chain)

  def test_band_part(self):

    def band_part(module):
      module.band_part(tf_utils.ndarange([4, 4]) + 1.)

    self.compare_backends(band_part)

  def test_diag_and_trace(self):

    def diag_and_trace(module):
      module.diag_and_trace(tf_utils.ndarange([3, 3]))

    self.compare_backends(diag_and_trace)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
