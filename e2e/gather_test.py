"""Gathering: tf.gather along axes, with batch_dims, and tf.gather_nd."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class GatherModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([6], tf.float32),
      tf.TensorSpec([], tf.int32),
  ])
  def gather_scalar_index(self, params, index):
    return tf.gather(params, index)

  @tf.function(input_signature=[
      tf.TensorSpec([5, 3], tf.float32),
      tf.TensorSpec([4], tf.int32),
  ])
  def gather_rows(self, params, indices):
    return tf.gather(params, indices)

  @tf.function(input_signature=[
      tf.TensorSpec([2, 5], tf.float32),
      tf.TensorSpec([2, 2], tf.int32),
  ])
  def gather_columns_2d_indices(self, params, indices):
    return tf.gather(params, indices, axis=1)

  @tf.function(input_signature=[
      tf.TensorSpec([3, 4, 2], tf.float32),
      tf.TensorSpec([3, 2], tf.int32),
  ])
  def gather_batch_dims(self, params, indices):
    return tf.gather(params, indices, axis=1, batch_dims=1)

  @tf.function(input_signature=[
      tf.TensorSpec([3, 4], tf.float32),
      tf.TensorSpec([5, 2], tf.int32),
  ])
  def gather_nd(self, params, indices):
    return tf.gather_nd(params, indices)

  @tf.function(input_signature=[
      tf.TensorSpec([8, 4], tf.float32),
      tf.TensorSpec([None], tf.int32),
  ])
  def embedding_lookup(self, table, ids):
    return tf.nn.embedding_lookup(table, ids)


@tf_test_utils.compile_module(GatherModule)
class GatherTest(tf_test_utils.TracedModuleTestCase):

  def test_gather_scalar_index(self):

    def gather_scalar_index(module):
      params = tf_utils.ndarange([6]) * 1.5
      module.gather_scalar_index(params, np.int32(0))
      module.gather_scalar_index(params, np.int32(4))

    self.compare_backends(gather_scalar_index)

  def test_gather_rows(self):

    def gather_rows(module):
      module.gather_rows(tf_utils.ndarange([5, 3]),
                         np.array([4, 0, 2, 2], dtype=np.int32))

    self.compare_backends(gather_rows)

  def test_gather_columns_2d_indices(self):

    def gather_columns_2d_indices(module):
      module.gather_columns_2d_indices(tf_utils.uniform([2, 5]),
                                       np.array([[0, 4], [3, 1]], dtype=np.int32))

    self.compare_backends(gather_columns_2d_indices)

  def test_gather_batch_dims(self):

    def gather_batch_dims(module):
      module.gather_batch_dims(tf_utils.ndarange([3, 4, 2]),
                               np.array([[0, 3], [2, 2], [1, 0]], dtype=np.int32))

    self.compare_backends(gather_batch_dims)

  def test_gather_nd(self):

    def gather_nd(module):
      module.gather_nd(
          tf_utils.ndarange([3, 4]),
          np.array([[0, 0], [2, 3], [1, 2], [0, 3], [2, 0]], dtype=np.int32))

    self.compare_backends(gather_nd)

  def test_embedding_lookup(self):

    def embedding_lookup(module):
      table = tf_utils.uniform([8, 4])
      module.embedding_lookup(table, np.array([7, 1, 1], dtype=np.int32))
      module.embedding_lookup(table, np.array([0, 2, 4, 6, 5], dtype=np.int32))

    self.compare_backends(embedding_lookup)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
