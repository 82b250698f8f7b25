"""Evenly spaced sequences: tf.linspace with runtime endpoints, tf.range with runtime limits."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class LinspaceModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([], tf.float32),
      tf.TensorSpec([], tf.float32),
  ])
  def linspace(self, start, stop):
    return tf.linspace(start, stop, 6)

  @tf.function(input_signature=[
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([2], tf.float32),
  ])
  def linspace_batched(self, start, stop):
    """One sequence per start/stop pair, along a new last axis."""
    return tf.linspace(start, stop, 5, axis=-1)

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def range_runtime_limit(self, limit):
    return tf.range(limit)

  @tf.function(input_signature=[
      tf.TensorSpec([], tf.float32),
      tf.TensorSpec([], tf.float32),
  ])
  def range_float_step(self, start, delta):
    return tf.range(start, start + 4.0 * delta - delta / 2.0, delta)


@tf_test_utils.compile_module(LinspaceModule)
class LinspaceTest(tf_test_utils.TracedModuleTestCase):

  def test_linspace(self):

    def linspace(module):
      module.linspace(np.float32(0.), np.float32(1.), rtol=1e-6, atol=1e-6)
      module.linspace(np.float32(10.), np.float32(-5.), rtol=1e-6, atol=1e-6)

    self.compare_backends(linspace)

  def test_linspace_batched(self):

    def linspace_batched(module):
      module.linspace_batched(np.array([0., 1.], dtype=np.float32),
                              np.array([4., -3.], dtype=np.float32),
                              atol=1e-6)

    self.compare_backends(linspace_batched)

  def test_range_runtime_limit(self):

    def range_runtime_limit(module):
      module.range_runtime_limit(np.int32(5))
      module.range_runtime_limit(np.int32(1))

    self.compare_backends(range_runtime_limit)

  def test_range_float_step(self):

    def range_float_step(module):
      module.range_float_step(np.float32(1.), np.float32(0.5), atol=1e-6)

    self.compare_backends(range_float_step)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
