"""Slicing: strided slices with steps and negative strides, tf.slice with runtime begin,
reverse, split, and padding."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class SliceModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4, 6], tf.float32)])
  def strided(self, x):
    return x[1:3, ::2], x[:, -1], x[::-1, 1::3]

  @tf.function(input_signature=[tf.TensorSpec([2, 3, 4], tf.float32)])
  def new_axis_and_ellipsis(self, x):
    return x[..., 1], x[:, tf.newaxis, 0, :2]

  @tf.function(input_signature=[
      tf.TensorSpec([5, 4], tf.float32),
      tf.TensorSpec([2], tf.int32),
  ])
  def slice_runtime_begin(self, x, begin):
    return tf.slice(x, begin, [2, 3])

  @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.float32)])
  def reverse(self, x):
    return tf.reverse(x, axis=[1]), tf.reverse(x, axis=[0, 1])

  @tf.function(input_signature=[tf.TensorSpec([6, 2], tf.float32)])
  def split(self, x):
    a, b, c = tf.split(x, [1, 2, 3], axis=0)
    return a, b, c

  @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
  def pad(self, x):
    return (tf.pad(x, [[1, 0], [0, 2]], constant_values=-1.),
            tf.pad(x, [[1, 1], [2, 2]], mode="REFLECT"))


@tf_test_utils.compile_module(SliceModule)
class SliceTest(tf_test_utils.TracedModuleTestCase):

  def test_strided(self):

    def strided(module):
      module.strided(tf_utils.ndarange([4, 6]))

    self.compare_backends(strided)

  def test_new_axis_and_ellipsis(self):

    def new_axis_and_ellipsis(module):
      module.new_axis_and_ellipsis(tf_utils.ndarange([2, 3, 4]))

    self.compare_backends(new_axis_and_ellipsis)

  def test_slice_runtime_begin(self):

    def slice_runtime_begin(module):
      x = tf_utils.ndarange([5, 4])
      module.slice_runtime_begin(x, np.array([0, 0], dtype=np.int32))
      module.slice_runtime_begin(x, np.array([3, 1], dtype=np.int32))

    self.compare_backends(slice_runtime_begin)

  def test_reverse(self):

    def reverse(module):
      module.reverse(tf_utils.ndarange([3, 4]))

    self.compare_backends(reverse)

  def test_split(self):

    def split(module):
      module.split(tf_utils.ndarange([6, 2]))

    self.compare_backends(split)

  def test_pad(self):

    def pad(module):
      module.pad(tf_utils.ndarange([2, 3]) + 1.)

    self.compare_backends(pad)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
