"""Elementwise binary math ops on float32 tensors."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

SPEC = [tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([2, 3], tf.float32)]

LHS = np.array([[-3.5, -1.0, 0.0], [0.5, 2.0, 7.25]], dtype=np.float32)
RHS = np.array([[2.0, -4.0, 1.5], [0.25, 3.0, -2.0]], dtype=np.float32)


class BinaryMathModule(tf.Module):

  @tf.function(input_signature=SPEC)
  def add_sub_mul(self, a, b):
    return a + b, a - b, a * b

  @tf.function(input_signature=SPEC)
  def divide(self, a, b):
    return a / b

  @tf.function(input_signature=SPEC)
  def floor_div_mod(self, a, b):
    return tf.math.floordiv(a, b), tf.math.floormod(a, b)

  @tf.function(input_signature=SPEC)
  def maximum_minimum(self, a, b):
    return tf.maximum(a, b), tf.minimum(a, b)

  @tf.function(input_signature=SPEC)
  def pow(self, a, b):
    return tf.pow(a, b)

  @tf.function(input_signature=SPEC)
  def atan2(self, a, b):
    return tf.math.atan2(a, b)

  @tf.function(input_signature=SPEC)
  def squared_difference(self, a, b):
    return tf.math.squared_difference(a, b)

  @tf.function(input_signature=SPEC)
  def polynomial(self, x, y):
    """A fused chain: 3x^2 - 2xy + y / 4 - 1."""
    return 3.0 * x * x - 2.0 * x * y + y / 4.0 - 1.0


@tf_test_utils.compile_module(BinaryMathModule)
class BinaryMathTest(tf_test_utils.TracedModuleTestCase):

  def test_add_sub_mul(self):

    def add_sub_mul(module):
      module.add_sub_mul(LHS, RHS)

    self.compare_backends(add_sub_mul)

  def test_divide(self):

    def divide(module):
      module.divide(LHS, RHS)

    self.compare_backends(divide)

  def test_floor_div_mod(self):

    def floor_div_mod(module):
      module.floor_div_mod(LHS, RHS, atol=1e-6)

    self.compare_backends(floor_div_mod)

  def test_maximum_minimum(self):

    def maximum_minimum(module):
      module.maximum_minimum(LHS, RHS)

    self.compare_backends(maximum_minimum)

  def test_pow(self):

    def pow_(module):
      base = np.abs(LHS) + 0.5
      module.pow(base, RHS, rtol=1e-5)

    self.compare_backends(pow_)

  def test_atan2(self):

    def atan2(module):
      module.atan2(LHS, RHS, rtol=1e-5, atol=1e-6)

    self.compare_backends(atan2)

  def test_squared_difference(self):

    def squared_difference(module):
      module.squared_difference(tf_utils.uniform([2, 3]), tf_utils.uniform([2, 3]))

    self.compare_backends(squared_difference)

  def test_polynomial(self):

    def polynomial(module):
      module.polynomial(tf_utils.uniform([2, 3]) * 4. - 2.,
                        tf_utils.uniform([2, 3]) * 4. - 2.,
                        rtol=1e-5,
                        atol=1e-5)

    self.compare_backends(polynomial)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
