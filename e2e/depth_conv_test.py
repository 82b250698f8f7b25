"""Depthwise 2-D convolution: channel multipliers, padding and strides."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class DepthwiseConv2dModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([1, 5, 5, 2], tf.float32),
      tf.TensorSpec([3, 3, 2, 1], tf.float32),
  ])
  def depthwise_valid(self, img, kernel):
    return tf.nn.depthwise_conv2d(img, kernel, strides=[1, 1, 1, 1],
                                  padding="VALID")

  @tf.function(input_signature=[
      tf.TensorSpec([2, 4, 4, 3], tf.float32),
      tf.TensorSpec([2, 2, 3, 2], tf.float32),
  ])
  def depthwise_multiplier2_same(self, img, kernel):
    return tf.nn.depthwise_conv2d(img, kernel, strides=[1, 1, 1, 1],
                                  padding="SAME")

  @tf.function(input_signature=[
      tf.TensorSpec([1, 6, 6, 2], tf.float32),
      tf.TensorSpec([3, 3, 2, 1], tf.float32),
  ])
  def depthwise_stride2_same(self, img, kernel):
    return tf.nn.depthwise_conv2d(img, kernel, strides=[1, 2, 2, 1],
                                  padding="SAME")

  @tf.function(input_signature=[
      tf.TensorSpec([1, 4, 4, 2], tf.float32),
      tf.TensorSpec([3, 3, 2, 1], tf.float32),
      tf.TensorSpec([1, 1, 2, 3], tf.float32),
  ])
  def separable(self, img, depthwise_kernel, pointwise_kernel):
    return tf.nn.separable_conv2d(img, depthwise_kernel, pointwise_kernel,
                                  strides=[1, 1, 1, 1], padding="SAME")


@tf_test_utils.compile_module(DepthwiseConv2dModule)
class DepthwiseConv2dTest(tf_test_utils.TracedModuleTestCase):

  def test_depthwise_valid(self):

    def depthwise_valid(module):
      module.depthwise_valid(tf_utils.ndarange([1, 5, 5, 2]),
                             np.ones([3, 3, 2, 1], dtype=np.float32))

    self.compare_backends(depthwise_valid)

  def test_depthwise_multiplier2_same(self):

    def depthwise_multiplier2_same(module):
      module.depthwise_multiplier2_same(tf_utils.uniform([2, 4, 4, 3]),
                                        tf_utils.uniform([2, 2, 3, 2]),
                                        rtol=1e-5)

    self.compare_backends(depthwise_multiplier2_same)

  def test_depthwise_stride2_same(self):

    def depthwise_stride2_same(module):
      module.depthwise_stride2_same(tf_utils.uniform([1, 6, 6, 2]),
                                    tf_utils.uniform([3, 3, 2, 1]),
                                    rtol=1e-5)

    self.compare_backends(depthwise_stride2_same)

  def test_separable(self):

    def separable(module):
      module.separable(tf_utils.uniform([1, 4, 4, 2]),
                       tf_utils.uniform([3, 3, 2, 1]),
                       tf_utils.uniform([1, 1, 2, 3]),
                       rtol=1e-5)

    self.compare_backends(separable)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
