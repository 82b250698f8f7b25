"""Integer dtypes: int32 arithmetic, floor division and modulo with negatives, bitwise ops and
shifts, int8 / uint8 / int16 inputs, int64, and float <-> int casts."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class IntegerModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([5], tf.int32),
      tf.TensorSpec([5], tf.int32),
  ])
  def arithmetic(self, a, b):
    return a + b, a - b, a * b, tf.maximum(a, b)

  @tf.function(input_signature=[
      tf.TensorSpec([6], tf.int32),
      tf.TensorSpec([6], tf.int32),
  ])
  def floor_div_mod(self, a, b):
    return tf.math.floordiv(a, b), tf.math.floormod(a, b), tf.truncatediv(a, b)

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.int32),
      tf.TensorSpec([4], tf.int32),
  ])
  def bitwise(self, a, b):
    return (tf.bitwise.bitwise_and(a, b), tf.bitwise.bitwise_or(a, b),
            tf.bitwise.bitwise_xor(a, b), tf.bitwise.invert(a))

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.int32),
      tf.TensorSpec([4], tf.int32),
  ])
  def shifts(self, a, amount):
    return tf.bitwise.left_shift(a, amount), tf.bitwise.right_shift(a, amount)

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.int8),
      tf.TensorSpec([4], tf.uint8),
      tf.TensorSpec([4], tf.int16),
  ])
  def narrow_ints(self, i8, u8, i16):
    return i8 * 2, u8 + 3, tf.cast(i8, tf.int16) + i16

  @tf.function(input_signature=[tf.TensorSpec([3], tf.int64)])
  def int64_square(self, x):
    return x * x

  @tf.function(input_signature=[tf.TensorSpec([6], tf.float32)])
  def float_int_casts(self, x):
    as_int = tf.cast(x, tf.int32)  # truncates toward zero
    return as_int, tf.cast(as_int, tf.float32) * 0.5

  @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.int32)])
  def reduce_ints(self, x):
    return tf.reduce_sum(x, axis=0), tf.reduce_max(x), tf.argmin(x, axis=1, output_type=tf.int32)


@tf_test_utils.compile_module(IntegerModule)
class IntegerTest(tf_test_utils.TracedModuleTestCase):

  def test_arithmetic(self):

    def arithmetic(module):
      module.arithmetic(np.array([1, -2, 300, 0, 7], dtype=np.int32),
                        np.array([5, 6, -7, 0, -100000], dtype=np.int32))

    self.compare_backends(arithmetic)

  def test_floor_div_mod(self):

    def floor_div_mod(module):
      module.floor_div_mod(np.array([7, -7, 7, -7, 0, 13], dtype=np.int32),
                           np.array([2, 2, -2, -2, 3, 5], dtype=np.int32))

    self.compare_backends(floor_div_mod)

  def test_bitwise(self):

    def bitwise(module):
      module.bitwise(np.array([0b1100, 255, -1, 0], dtype=np.int32),
                     np.array([0b1010, 15, 12345, 7], dtype=np.int32))

    self.compare_backends(bitwise)

  def test_shifts(self):

    def shifts(module):
      module.shifts(np.array([1, 64, -64, 12345], dtype=np.int32),
                    np.array([0, 3, 2, 5], dtype=np.int32))

    self.compare_backends(shifts)

  def test_narrow_ints(self):

    def narrow_ints(module):
      module.narrow_ints(np.array([-5, 0, 60, 127], dtype=np.int8),
                         np.array([0, 10, 200, 255], dtype=np.uint8),
                         np.array([1000, -1000, 0, 32000], dtype=np.int16))

    self.compare_backends(narrow_ints)

  def test_int64_square(self):

    def int64_square(module):
      module.int64_square(np.array([3, -40000, 100], dtype=np.int64))

    self.compare_backends(int64_square)

  def test_float_int_casts(self):

    def float_int_casts(module):
      module.float_int_casts(np.array([-2.7, -0.5, 0., 0.5, 3.99, 100.2], dtype=np.float32))

    self.compare_backends(float_int_casts)

  def test_reduce_ints(self):

    def reduce_ints(module):
      module.reduce_ints(tf_utils.ndarange([3, 4], dtype=np.int32) * 7 % 5)

    self.compare_backends(reduce_ints)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
