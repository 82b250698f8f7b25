"""2-D convolution (NHWC): padding, strides, dilation, batch and channel variations."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class Conv2dModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([1, 5, 5, 1], tf.float32),
      tf.TensorSpec([3, 3, 1, 1], tf.float32),
  ])
  def conv_1451x3311_valid(self, img, kernel):
    return tf.nn.conv2d(img, kernel, strides=[1, 1, 1, 1], padding="VALID")

  @tf.function(input_signature=[
      tf.TensorSpec([1, 5, 5, 2], tf.float32),
      tf.TensorSpec([3, 3, 2, 3], tf.float32),
  ])
  def conv_same(self, img, kernel):
    return tf.nn.conv2d(img, kernel, strides=[1, 1, 1, 1], padding="SAME")

  @tf.function(input_signature=[
      tf.TensorSpec([2, 6, 6, 2], tf.float32),
      tf.TensorSpec([2, 2, 2, 4], tf.float32),
  ])
  def conv_batch2_stride2(self, img, kernel):
    return tf.nn.conv2d(img, kernel, strides=[1, 2, 2, 1], padding="VALID")

  @tf.function(input_signature=[
      tf.TensorSpec([1, 7, 7, 1], tf.float32),
      tf.TensorSpec([3, 3, 1, 2], tf.float32),
  ])
  def conv_dilated(self, img, kernel):
    return tf.nn.conv2d(img, kernel, strides=1, padding="VALID", dilations=2)

  @tf.function(input_signature=[
      tf.TensorSpec([1, 4, 4, 3], tf.float32),
      tf.TensorSpec([1, 1, 3, 2], tf.float32),
  ])
  def conv_pointwise(self, img, kernel):
    return tf.nn.conv2d(img, kernel, strides=1, padding="VALID")

  @tf.function(input_signature=[
      tf.TensorSpec([1, 5, 4, 2], tf.float32),
      tf.TensorSpec([2, 3, 2, 2], tf.float32),
      tf.TensorSpec([2], tf.float32),
  ])
  def conv_bias_relu_same_stride2(self, img, kernel, bias):
    y = tf.nn.conv2d(img, kernel, strides=[1, 2, 2, 1], padding="SAME")
    return tf.nn.relu(tf.nn.bias_add(y, bias))


@tf_test_utils.compile_module(Conv2dModule)
class Conv2dTest(tf_test_utils.TracedModuleTestCase):

  def test_valid_single_channel(self):

    def valid_single_channel(module):
      img = tf_utils.ndarange([1, 5, 5, 1])
      kernel = np.ones([3, 3, 1, 1], dtype=np.float32)
      module.conv_1451x3311_valid(img, kernel)

    self.compare_backends(valid_single_channel)

  def test_same(self):

    def same(module):
      module.conv_same(tf_utils.uniform([1, 5, 5, 2]),
                       tf_utils.uniform([3, 3, 2, 3]),
                       rtol=1e-5)

    self.compare_backends(same)

  def test_batch2_stride2(self):

    def batch2_stride2(module):
      module.conv_batch2_stride2(tf_utils.uniform([2, 6, 6, 2]),
                                 tf_utils.uniform([2, 2, 2, 4]),
                                 rtol=1e-5)

    self.compare_backends(batch2_stride2)

  def test_dilated(self):

    def dilated(module):
      module.conv_dilated(tf_utils.ndarange([1, 7, 7, 1]),
                          tf_utils.ndarange([3, 3, 1, 2]) / 10.,
                          rtol=1e-5)

    self.compare_backends(dilated)

  def test_pointwise(self):

    def pointwise(module):
      module.conv_pointwise(tf_utils.uniform([1, 4, 4, 3]),
                            tf_utils.uniform([1, 1, 3, 2]),
                            rtol=1e-5)

    self.compare_backends(pointwise)

  def test_bias_relu_same_stride2(self):

    def bias_relu_same_stride2(module):
      module.conv_bias_relu_same_stride2(
          tf_utils.uniform([1, 5, 4, 2]) - 0.5,
          tf_utils.uniform([2, 3, 2, 2]) - 0.5,
          np.array([0.1, -0.2], dtype=np.float32),
          rtol=1e-5,
          atol=1e-6)

    self.compare_backends(bias_relu_same_stride2)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
