"""Batch normalization: inference form, moments-based (training-style) form, fused NHWC op."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class BatchNormModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([4, 6], tf.float32),
      tf.TensorSpec([6], tf.float32),
      tf.TensorSpec([6], tf.float32),
      tf.TensorSpec([6], tf.float32),
      tf.TensorSpec([6], tf.float32),
  ])
  def batch_norm_inference(self, x, mean, variance, offset, scale):
    return tf.nn.batch_normalization(x, mean, variance, offset, scale,
                                     variance_epsilon=1e-4)

  @tf.function(input_signature=[tf.TensorSpec([8, 3], tf.float32)])
  def normalize_batch(self, x):
    """Normalizes with the batch's own statistics; returns them too."""
    mean, variance = tf.nn.moments(x, axes=[0])
    y = tf.nn.batch_normalization(x, mean, variance, offset=None, scale=None,
                                  variance_epsilon=1e-3)
    return y, mean, variance

  @tf.function(input_signature=[
      tf.TensorSpec([1, 3, 3, 2], tf.float32),
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([2], tf.float32),
  ])
  def fused_batch_norm_inference(self, x, scale, offset, mean, variance):
    y, _, _ = tf.compat.v1.nn.fused_batch_norm(
        x, scale, offset, mean=mean, variance=variance, epsilon=1e-3,
        is_training=False)
    return y

  @tf.function(input_signature=[
      tf.TensorSpec([2, 2, 2, 3], tf.float32),
      tf.TensorSpec([3], tf.float32),
      tf.TensorSpec([3], tf.float32),
  ])
  def fused_batch_norm_training(self, x, scale, offset):
    y, mean, variance = tf.compat.v1.nn.fused_batch_norm(
        x, scale, offset, epsilon=1e-3, is_training=True)
    return y, mean, variance


@tf_test_utils.compile_module(BatchNormModule)
class BatchNormTest(tf_test_utils.TracedModuleTestCase):

  def test_batch_norm_inference(self):

    def batch_norm_inference(module):
      x = tf_utils.uniform([4, 6]) * 10.
      mean = np.linspace(0., 5., 6, dtype=np.float32)
      variance = np.linspace(0.5, 3., 6, dtype=np.float32)
      offset = tf_utils.uniform([6])
      scale = tf_utils.uniform([6]) + 0.5
      module.batch_norm_inference(x, mean, variance, offset, scale,
                                  rtol=1e-5, atol=1e-5)

    self.compare_backends(batch_norm_inference)

  def test_normalize_batch(self):

    def normalize_batch(module):
      module.normalize_batch(tf_utils.uniform([8, 3]) * 4. - 2.,
                             rtol=1e-4, atol=1e-5)

    self.compare_backends(normalize_batch)

  def test_fused_batch_norm_inference(self):

    def fused_batch_norm_inference(module):
      module.fused_batch_norm_inference(
          tf_utils.ndarange([1, 3, 3, 2]),
          np.array([1.0, 0.5], dtype=np.float32),
          np.array([0.0, 1.0], dtype=np.float32),
          np.array([8.0, 9.0], dtype=np.float32),
          np.array([2.0, 4.0], dtype=np.float32),
          rtol=1e-5,
          atol=1e-5)

    self.compare_backends(fused_batch_norm_inference)

  def test_fused_batch_norm_training(self):

    def fused_batch_norm_training(module):
      module.fused_batch_norm_training(
          tf_utils.uniform([2, 2, 2, 3]),
          np.array([1.0, 2.0, 0.5], dtype=np.float32),
          np.array([0.0, -1.0, 1.0], dtype=np.float32),
          rtol=1e-4,
          atol=1e-5)

    self.compare_backends(fused_batch_norm_training)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
