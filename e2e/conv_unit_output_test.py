"""Strided VALID convolutions whose output has one position while rows of the image are read by
no window (keras.applications.ResNet50V2's 3x3 stride-2 convolution over a 4x4 map at 32x32),
beside the shapes where every row is read or the output is wider."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

_IMAGE_4 = tf.TensorSpec([1, 4, 4, 4], tf.float32)
_KERNEL = tf.TensorSpec([3, 3, 4, 4], tf.float32)


class ConvUnitOutputModule(tf.Module):

  @tf.function(input_signature=[_IMAGE_4, _KERNEL])
  def unread_rows(self, image, kernel):  # 4x4 -> 1x1: the last row and column unread.
    return tf.nn.conv2d(image, kernel, strides=2, padding="VALID")

  @tf.function(input_signature=[_IMAGE_4, tf.TensorSpec([3, 3, 4, 1], tf.float32)])
  def depthwise_unread_rows(self, image, kernel):
    return tf.nn.depthwise_conv2d(image, kernel, strides=[1, 2, 2, 1], padding="VALID")

  @tf.function(input_signature=[tf.TensorSpec([1, 3, 3, 4], tf.float32), _KERNEL])
  def every_row_read(self, image, kernel):  # 3x3 -> 1x1
    return tf.nn.conv2d(image, kernel, strides=2, padding="VALID")

  @tf.function(input_signature=[tf.TensorSpec([1, 5, 5, 4], tf.float32), _KERNEL])
  def wider_output(self, image, kernel):  # 5x5 -> 2x2
    return tf.nn.conv2d(image, kernel, strides=2, padding="VALID")


@tf_test_utils.compile_module(ConvUnitOutputModule)
class ConvUnitOutputTest(tf_test_utils.TracedModuleTestCase):

  def _conv(self, method, image, kernel):

    def trace(module):
      tf_utils.set_random_seed()  # the same image and kernel for every backend
      getattr(module, method)(tf_utils.uniform(image, low=-1.0, high=1.0).astype(np.float32),
                              tf_utils.uniform(kernel, low=-1.0, high=1.0).astype(np.float32),
                              rtol=1e-5, atol=1e-5)

    trace.__name__ = method  # the trace's name in reports: the method it calls
    self.compare_backends(trace)

  def test_unread_rows(self):
    self._conv("unread_rows", [1, 4, 4, 4], [3, 3, 4, 4])

  def test_depthwise_unread_rows(self):
    self._conv("depthwise_unread_rows", [1, 4, 4, 4], [3, 3, 4, 1])

  def test_every_row_read(self):
    self._conv("every_row_read", [1, 3, 3, 4], [3, 3, 4, 4])

  def test_wider_output(self):
    self._conv("wider_output", [1, 5, 5, 4], [3, 3, 4, 4])


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
