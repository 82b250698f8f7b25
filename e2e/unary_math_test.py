"""Elementwise unary math ops on float32 vectors."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

SPEC = [tf.TensorSpec([6], tf.float32)]

# Values safe for every op below except the ones that need positive inputs.
MIXED = np.array([-2.5, -1.0, -0.25, 0.0, 0.75, 3.0], dtype=np.float32)
POSITIVE = np.array([0.01, 0.5, 1.0, 2.0, 10.0, 123.0], dtype=np.float32)


class UnaryMathModule(tf.Module):

  @tf.function(input_signature=SPEC)
  def abs(self, x):
    return tf.abs(x)

  @tf.function(input_signature=SPEC)
  def negative(self, x):
    return tf.negative(x)

  @tf.function(input_signature=SPEC)
  def sign(self, x):
    return tf.sign(x)

  @tf.function(input_signature=SPEC)
  def square(self, x):
    return tf.square(x)

  @tf.function(input_signature=SPEC)
  def rounding(self, x):
    return tf.floor(x), tf.math.ceil(x), tf.round(x)

  @tf.function(input_signature=SPEC)
  def exp(self, x):
    return tf.exp(x)

  @tf.function(input_signature=SPEC)
  def expm1(self, x):
    return tf.math.expm1(x)

  @tf.function(input_signature=SPEC)
  def log(self, x):
    return tf.math.log(x)

  @tf.function(input_signature=SPEC)
  def log1p(self, x):
    return tf.math.log1p(x)

  @tf.function(input_signature=SPEC)
  def sqrt_rsqrt(self, x):
    return tf.sqrt(x), tf.math.rsqrt(x)

  @tf.function(input_signature=SPEC)
  def reciprocal(self, x):
    return tf.math.reciprocal(x)

  @tf.function(input_signature=SPEC)
  def trigonometric(self, x):
    return tf.sin(x), tf.cos(x)

  @tf.function(input_signature=SPEC)
  def activations(self, x):
    return tf.tanh(x), tf.sigmoid(x), tf.nn.relu6(x * 3.), tf.nn.softplus(x)


@tf_test_utils.compile_module(UnaryMathModule)
class UnaryMathTest(tf_test_utils.TracedModuleTestCase):

  def test_exact_ops(self):

    def exact_ops(module):
      module.abs(MIXED)
      module.negative(MIXED)
      module.sign(MIXED)
      module.square(MIXED)
      module.rounding(MIXED)

    self.compare_backends(exact_ops)

  def test_exponentials(self):

    def exponentials(module):
      module.exp(MIXED, rtol=1e-5)
      module.expm1(MIXED, rtol=1e-5, atol=1e-6)

    self.compare_backends(exponentials)

  def test_logarithms(self):

    def logarithms(module):
      module.log(POSITIVE, rtol=1e-5, atol=1e-6)
      module.log1p(POSITIVE, rtol=1e-5, atol=1e-6)

    self.compare_backends(logarithms)

  def test_roots(self):

    def roots(module):
      module.sqrt_rsqrt(POSITIVE, rtol=1e-5)
      module.reciprocal(POSITIVE, rtol=1e-6)

    self.compare_backends(roots)

  def test_trigonometric(self):

    def trigonometric(module):
      module.trigonometric(MIXED, rtol=1e-5, atol=1e-6)

    self.compare_backends(trigonometric)

  def test_activations(self):

    def activations(module):
      module.activations(MIXED, rtol=1e-5, atol=1e-6)

    self.compare_backends(activations)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
