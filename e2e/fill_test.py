"""Filling tensors: tf.fill with static and runtime dims, zeros_like / ones_like, tf.ones."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class FillModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def fill_static(self, value):
    return tf.fill([2, 3], value)

  @tf.function(input_signature=[
      tf.TensorSpec([2], tf.int32),
      tf.TensorSpec([], tf.float32),
  ])
  def fill_runtime_dims(self, dims, value):
    """The result's shape comes from the values of `dims`."""
    return tf.fill(dims, value)

  @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.int32)])
  def zeros_and_ones_like(self, x):
    return tf.zeros_like(x), tf.ones_like(x) * 7

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def fill_then_add(self, x):
    return tf.ones([3, 4], tf.float32) * 2.5 + x


@tf_test_utils.compile_module(FillModule)
class FillTest(tf_test_utils.TracedModuleTestCase):

  def test_fill_static(self):

    def fill_static(module):
      module.fill_static(np.float32(3.25))
      module.fill_static(np.float32(-1.0))

    self.compare_backends(fill_static)

  def test_fill_runtime_dims(self):

    def fill_runtime_dims(module):
      module.fill_runtime_dims(np.array([2, 3], dtype=np.int32), np.float32(42.))
      module.fill_runtime_dims(np.array([4, 1], dtype=np.int32), np.float32(-0.5))

    self.compare_backends(fill_runtime_dims)

  def test_zeros_and_ones_like(self):

    def zeros_and_ones_like(module):
      module.zeros_and_ones_like(tf_utils.ndarange([2, 3], dtype=np.int32))
      module.zeros_and_ones_like(tf_utils.ndarange([5, 3], dtype=np.int32))

    self.compare_backends(zeros_and_ones_like)

  def test_fill_then_add(self):

    def fill_then_add(module):
      module.fill_then_add(np.array([0., 1., 2., 3.], dtype=np.float32))

    self.compare_backends(fill_then_add)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
