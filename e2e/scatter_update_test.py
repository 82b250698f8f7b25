"""Scatter into tensors: tf.tensor_scatter_nd_update / add / max on values and on slices."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class ScatterUpdateModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([8], tf.int32),
      tf.TensorSpec([3, 1], tf.int32),
      tf.TensorSpec([3], tf.int32),
  ])
  def scatter_update_1d(self, tensor, indices, updates):
    return tf.tensor_scatter_nd_update(tensor, indices, updates)

  @tf.function(input_signature=[
      tf.TensorSpec([4, 3], tf.float32),
      tf.TensorSpec([2, 2], tf.int32),
      tf.TensorSpec([2], tf.float32),
  ])
  def scatter_update_2d_elements(self, tensor, indices, updates):
    return tf.tensor_scatter_nd_update(tensor, indices, updates)

  @tf.function(input_signature=[
      tf.TensorSpec([4, 3], tf.float32),
      tf.TensorSpec([2, 1], tf.int32),
      tf.TensorSpec([2, 3], tf.float32),
  ])
  def scatter_update_rows(self, tensor, indices, updates):
    return tf.tensor_scatter_nd_update(tensor, indices, updates)

  @tf.function(input_signature=[
      tf.TensorSpec([5], tf.float32),
      tf.TensorSpec([4, 1], tf.int32),
      tf.TensorSpec([4], tf.float32),
  ])
  def scatter_add_duplicates(self, tensor, indices, updates):
    return tf.tensor_scatter_nd_add(tensor, indices, updates)

  @tf.function(input_signature=[
      tf.TensorSpec([5], tf.float32),
      tf.TensorSpec([3, 1], tf.int32),
      tf.TensorSpec([3], tf.float32),
  ])
  def scatter_max(self, tensor, indices, updates):
    return tf.tensor_scatter_nd_max(tensor, indices, updates)


@tf_test_utils.compile_module(ScatterUpdateModule)
class ScatterUpdateTest(tf_test_utils.TracedModuleTestCase):

  def test_scatter_update_1d(self):

    def scatter_update_1d(module):
      module.scatter_update_1d(
          np.zeros([8], dtype=np.int32),
          np.array([[1], [7], [4]], dtype=np.int32),
          np.array([9, 10, -11], dtype=np.int32))

    self.compare_backends(scatter_update_1d)

  def test_scatter_update_2d_elements(self):

    def scatter_update_2d_elements(module):
      module.scatter_update_2d_elements(
          tf_utils.ndarange([4, 3]),
          np.array([[0, 2], [3, 1]], dtype=np.int32),
          np.array([-1., -2.], dtype=np.float32))

    self.compare_backends(scatter_update_2d_elements)

  def test_scatter_update_rows(self):

    def scatter_update_rows(module):
      module.scatter_update_rows(
          tf_utils.ndarange([4, 3]),
          np.array([[3], [1]], dtype=np.int32),
          tf_utils.uniform([2, 3]))

    self.compare_backends(scatter_update_rows)

  def test_scatter_add_duplicates(self):

    def scatter_add_duplicates(module):
      module.scatter_add_duplicates(
          np.ones([5], dtype=np.float32),
          np.array([[0], [2], [2], [4]], dtype=np.int32),
          np.array([1., 2., 3., 4.], dtype=np.float32))

    self.compare_backends(scatter_add_duplicates)

  def test_scatter_max(self):

    def scatter_max(module):
      module.scatter_max(
          np.array([0., 5., 0., 5., 0.], dtype=np.float32),
          np.array([[1], [2], [3]], dtype=np.int32),
          np.array([3., 3., 7.], dtype=np.float32))

    self.compare_backends(scatter_max)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
