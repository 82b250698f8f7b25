"""Sparse updates applied in place to resource variables: Variable.scatter_nd_update / _add and
scatter_update with IndexedSlices."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class VariableScatterModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.table = tf.Variable(np.zeros([4, 2], dtype=np.float32))

  @tf.function(input_signature=[
      tf.TensorSpec([2, 1], tf.int32),
      tf.TensorSpec([2, 2], tf.float32),
  ])
  def scatter_nd_update_rows(self, indices, rows):
    self.table.scatter_nd_update(indices, rows)
    return self.table.read_value()

  @tf.function(input_signature=[
      tf.TensorSpec([3, 2], tf.int32),
      tf.TensorSpec([3], tf.float32),
  ])
  def scatter_nd_add_elements(self, indices, values):
    self.table.scatter_nd_add(indices, values)
    return self.table.read_value()

  @tf.function(input_signature=[
      tf.TensorSpec([1], tf.int32),
      tf.TensorSpec([1, 2], tf.float32),
  ])
  def scatter_update_slices(self, indices, rows):
    self.table.scatter_update(tf.IndexedSlices(rows, indices))
    return self.table.read_value()


@tf_test_utils.compile_module(VariableScatterModule)
class VariableScatterTest(tf_test_utils.TracedModuleTestCase):

  def test_scatter_nd_update_rows(self):

    def scatter_nd_update_rows(module):
      module.scatter_nd_update_rows(np.array([[3], [0]], dtype=np.int32),
                                    np.array([[1., 2.], [3., 4.]], dtype=np.float32))
      module.scatter_nd_update_rows(np.array([[0], [1]], dtype=np.int32),
                                    np.array([[5., 6.], [7., 8.]], dtype=np.float32))

    self.compare_backends(scatter_nd_update_rows)

  def test_scatter_nd_add_elements(self):

    def scatter_nd_add_elements(module):
      indices = np.array([[0, 0], [2, 1], [0, 0]], dtype=np.int32)
      module.scatter_nd_add_elements(indices, np.array([1., 2., 3.], dtype=np.float32))
      module.scatter_nd_add_elements(indices, np.array([-1., 0.5, 0.], dtype=np.float32))

    self.compare_backends(scatter_nd_add_elements)

  def test_scatter_update_slices(self):

    def scatter_update_slices(module):
      module.scatter_update_slices(np.array([2], dtype=np.int32),
                                   np.array([[9., -9.]], dtype=np.float32))

    self.compare_backends(scatter_update_slices)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
