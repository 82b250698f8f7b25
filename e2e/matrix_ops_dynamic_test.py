"""Matrix ops whose operands have dynamic (None) dimensions: matmul, transpose and row
reductions; each function is called with several shapes. (Ops whose lowering needs runtime shape
arithmetic are in dynamic_shapes_test.py.)"""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class MatrixOpsDynamicModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([None, 4], tf.float32),
      tf.TensorSpec([4, None], tf.float32),
  ])
  def matmul_dynamic_outer(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([None, None], tf.float32),
      tf.TensorSpec([None, None], tf.float32),
  ])
  def matmul_fully_dynamic(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
  def transpose_dynamic(self, x):
    return tf.transpose(x)

  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
  def row_sums(self, x):
    return tf.reduce_sum(x, axis=1)


@tf_test_utils.compile_module(MatrixOpsDynamicModule)
class MatrixOpsDynamicTest(tf_test_utils.TracedModuleTestCase):

  def test_matmul_dynamic_outer(self):

    def matmul_dynamic_outer(module):
      module.matmul_dynamic_outer(tf_utils.uniform([3, 4]),
                                  tf_utils.uniform([4, 2]), rtol=1e-5)
      module.matmul_dynamic_outer(tf_utils.uniform([1, 4]),
                                  tf_utils.uniform([4, 5]), rtol=1e-5)

    self.compare_backends(matmul_dynamic_outer)

  def test_matmul_fully_dynamic(self):

    def matmul_fully_dynamic(module):
      module.matmul_fully_dynamic(tf_utils.ndarange([2, 3]),
                                  tf_utils.ndarange([3, 4]))
      module.matmul_fully_dynamic(tf_utils.uniform([5, 1]),
                                  tf_utils.uniform([1, 2]), rtol=1e-5)

    self.compare_backends(matmul_fully_dynamic)

  def test_transpose_dynamic(self):

    def transpose_dynamic(module):
      module.transpose_dynamic(tf_utils.ndarange([2, 5]))
      module.transpose_dynamic(tf_utils.ndarange([3, 1]))

    self.compare_backends(transpose_dynamic)

  def test_row_sums(self):

    def row_sums(module):
      module.row_sums(tf_utils.ndarange([3, 4]))
      module.row_sums(tf_utils.uniform([2, 7]), rtol=1e-5)

    self.compare_backends(row_sums)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
