"""Boolean tensors: comparisons, logical ops, select, any/all reductions, bool inputs and outputs."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class BoolModule(tf.Module):

  @tf.function(input_signature=[])
  def constant_true(self):
    return tf.constant(True)

  @tf.function(input_signature=[
      tf.TensorSpec([5], tf.float32),
      tf.TensorSpec([5], tf.float32),
  ])
  def comparisons(self, a, b):
    return a > b, a <= b, tf.equal(a, b), tf.not_equal(a, b)

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.bool),
      tf.TensorSpec([4], tf.bool),
  ])
  def logical_ops(self, x, y):
    return (tf.logical_and(x, y), tf.logical_or(x, y), tf.logical_not(x),
            tf.math.logical_xor(x, y))

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.bool),
      tf.TensorSpec([4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def select(self, cond, a, b):
    return tf.where(cond, a, b)

  @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.bool)])
  def any_all(self, x):
    return tf.reduce_any(x, axis=1), tf.reduce_all(x, axis=1), tf.reduce_any(x)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.bool)])
  def bool_to_numbers(self, x):
    return tf.cast(x, tf.int32), tf.cast(x, tf.float32) * 2.5


@tf_test_utils.compile_module(BoolModule)
class BoolTest(tf_test_utils.TracedModuleTestCase):

  def test_constant_true(self):

    def constant_true(module):
      module.constant_true()

    self.compare_backends(constant_true)

  def test_comparisons(self):

    def comparisons(module):
      module.comparisons(np.array([1., 2., 3., -1., 0.], dtype=np.float32),
                         np.array([1., 5., -3., -1., 0.5], dtype=np.float32))

    self.compare_backends(comparisons)

  def test_logical_ops(self):

    def logical_ops(module):
      module.logical_ops(np.array([True, True, False, False]),
                         np.array([True, False, True, False]))

    self.compare_backends(logical_ops)

  def test_select(self):

    def select(module):
      module.select(np.array([True, False, False, True]),
                    np.array([1., 2., 3., 4.], dtype=np.float32),
                    np.array([-1., -2., -3., -4.], dtype=np.float32))

    self.compare_backends(select)

  def test_any_all(self):

    def any_all(module):
      module.any_all(np.array([[True, True, True], [False, True, False]]))
      module.any_all(np.zeros([2, 3], dtype=bool))

    self.compare_backends(any_all)

  def test_bool_to_numbers(self):

    def bool_to_numbers(module):
      module.bool_to_numbers(np.array([False, True, True, False]))

    self.compare_backends(bool_to_numbers)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
