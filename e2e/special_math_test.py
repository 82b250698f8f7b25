"""Special functions: error functions, log-gamma, digamma, scaled Bessel, inverse erf."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

SPEC = [tf.TensorSpec([5], tf.float32)]

MIXED = np.array([-2.0, -0.5, 0.0, 0.3, 1.7], dtype=np.float32)
POSITIVE = np.array([0.25, 0.5, 1.0, 2.5, 7.0], dtype=np.float32)
UNIT = np.array([-0.9, -0.3, 0.0, 0.5, 0.95], dtype=np.float32)


class SpecialMathModule(tf.Module):

  @tf.function(input_signature=SPEC)
  def erf(self, x):
    return tf.math.erf(x)

  @tf.function(input_signature=SPEC)
  def erfc(self, x):
    return tf.math.erfc(x)

  @tf.function(input_signature=SPEC)
  def lgamma(self, x):
    return tf.math.lgamma(x)

  @tf.function(input_signature=SPEC)
  def digamma(self, x):
    return tf.math.digamma(x)

  @tf.function(input_signature=SPEC)
  def bessel_i0e(self, x):
    return tf.math.bessel_i0e(x)

  @tf.function(input_signature=SPEC)
  def erfinv(self, x):
    return tf.math.erfinv(x)

  @tf.function(input_signature=SPEC)
  def gelu(self, x):
    return tf.nn.gelu(x, approximate=False)


@tf_test_utils.compile_module(SpecialMathModule)
class SpecialMathTest(tf_test_utils.TracedModuleTestCase):

  def test_error_functions(self):

    def error_functions(module):
      module.erf(MIXED, rtol=1e-5, atol=1e-6)
      module.erfc(MIXED, rtol=1e-5, atol=1e-6)
      module.erfinv(UNIT, rtol=1e-5, atol=1e-6)

    self.compare_backends(error_functions)

  def test_gamma_functions(self):

    def gamma_functions(module):
      module.lgamma(POSITIVE, rtol=1e-5, atol=1e-5)
      module.digamma(POSITIVE, rtol=1e-5, atol=1e-5)

    self.compare_backends(gamma_functions)

  def test_bessel_i0e(self):

    def bessel_i0e(module):
      module.bessel_i0e(MIXED, rtol=1e-5, atol=1e-6)

    self.compare_backends(bessel_i0e)

  def test_gelu(self):

    def gelu(module):
      module.gelu(MIXED, rtol=1e-5, atol=1e-6)

    self.compare_backends(gelu)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
