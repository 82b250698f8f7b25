"""Complex numbers: built from real parts, complex64 inputs and outputs, arithmetic, abs, conj."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class ComplexModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def square_parts(self, real, imag):
    """Builds z = real + i*imag inside the function; returns the parts of z*z and |z|."""
    z = tf.complex(real, imag)
    z2 = z * z
    return tf.math.real(z2), tf.math.imag(z2), tf.abs(z)

  @tf.function(input_signature=[
      tf.TensorSpec([3], tf.complex64),
      tf.TensorSpec([3], tf.complex64),
  ])
  def complex_arithmetic(self, a, b):
    return a + b, a * b, a - tf.math.conj(b)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.complex64)])
  def complex_magnitude(self, z):
    return tf.abs(z)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.complex64)])
  def complex_exp(self, z):
    return tf.exp(z)


@tf_test_utils.compile_module(ComplexModule)
class ComplexTest(tf_test_utils.TracedModuleTestCase):

  def test_square_parts(self):

    def square_parts(module):
      module.square_parts(np.array([1., -2., 0., 3.], dtype=np.float32),
                          np.array([0.5, 1., -4., 0.], dtype=np.float32),
                          rtol=1e-5)

    self.compare_backends(square_parts)

  def test_complex_arithmetic(self):

    def complex_arithmetic(module):
      a = np.array([1 + 2j, -3 + 0.5j, 4j], dtype=np.complex64)
      b = np.array([2 - 1j, 1 + 1j, -1.5 + 0j], dtype=np.complex64)
      module.complex_arithmetic(a, b, rtol=1e-6)

    self.compare_backends(complex_arithmetic)

  def test_complex_magnitude(self):

    def complex_magnitude(module):
      module.complex_magnitude(np.array([3 + 4j, -1j, 0.5 - 0.5j], dtype=np.complex64),
                               rtol=1e-6)

    self.compare_backends(complex_magnitude)

  def test_complex_exp(self):

    def complex_exp(module):
      module.complex_exp(np.array([0j, 1 + 1j, -0.5 + 3j], dtype=np.complex64),
                         rtol=1e-5, atol=1e-6)

    self.compare_backends(complex_exp)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
