"""Concatenation and stacking along different axes, static and dynamic shapes."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class ConcatModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([2, 3], tf.float32),
      tf.TensorSpec([4, 3], tf.float32),
  ])
  def concat_axis0(self, a, b):
    return tf.concat([a, b], axis=0)

  @tf.function(input_signature=[
      tf.TensorSpec([2, 1], tf.float32),
      tf.TensorSpec([2, 3], tf.float32),
      tf.TensorSpec([2, 2], tf.float32),
  ])
  def concat_three_axis1(self, a, b, c):
    return tf.concat([a, b, c], axis=1)

  @tf.function(input_signature=[
      tf.TensorSpec([1, 2, 3], tf.int32),
      tf.TensorSpec([1, 2, 2], tf.int32),
  ])
  def concat_int_last_axis(self, a, b):
    return tf.concat([a, b], axis=-1)

  @tf.function(input_signature=[
      tf.TensorSpec([3], tf.float32),
      tf.TensorSpec([3], tf.float32),
  ])
  def stack(self, a, b):
    return tf.stack([a, b, a + b], axis=1)

  @tf.function(input_signature=[
      tf.TensorSpec([None, 2], tf.float32),
      tf.TensorSpec([None, 2], tf.float32),
  ])
  def concat_dynamic(self, a, b):
    return tf.concat([a, b], axis=0)


@tf_test_utils.compile_module(ConcatModule)
class ConcatTest(tf_test_utils.TracedModuleTestCase):

  def test_concat_axis0(self):

    def concat_axis0(module):
      module.concat_axis0(tf_utils.ndarange([2, 3]), tf_utils.uniform([4, 3]))

    self.compare_backends(concat_axis0)

  def test_concat_three_axis1(self):

    def concat_three_axis1(module):
      module.concat_three_axis1(tf_utils.ndarange([2, 1]),
                                tf_utils.ndarange([2, 3]) + 10.,
                                tf_utils.ndarange([2, 2]) + 100.)

    self.compare_backends(concat_three_axis1)

  def test_concat_int_last_axis(self):

    def concat_int_last_axis(module):
      module.concat_int_last_axis(tf_utils.ndarange([1, 2, 3], dtype=np.int32),
                                  -tf_utils.ndarange([1, 2, 2], dtype=np.int32))

    self.compare_backends(concat_int_last_axis)

  def test_stack(self):

    def stack(module):
      module.stack(np.array([1., 2., 3.], dtype=np.float32),
                   np.array([10., 20., 30.], dtype=np.float32))

    self.compare_backends(stack)

  def test_concat_dynamic(self):

    def concat_dynamic(module):
      module.concat_dynamic(tf_utils.ndarange([1, 2]), tf_utils.uniform([3, 2]))
      module.concat_dynamic(tf_utils.uniform([4, 2]), tf_utils.ndarange([2, 2]))

    self.compare_backends(concat_dynamic)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
