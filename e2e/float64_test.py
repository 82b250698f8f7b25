"""float64 inputs, arithmetic and outputs (IREE demotes f64 to f32 unless told not to)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class Float64Module(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([3], tf.float64),
      tf.TensorSpec([3], tf.float64),
  ])
  def add_mul(self, a, b):
    return a + b, a * b

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float64)])
  def precise_sum(self, x):
    """1 + 1e-10 is representable in float64 but not in float32."""
    return x + 1e-10

  @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float64)])
  def matmul_self(self, x):
    return tf.matmul(x, x)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def widen(self, x):
    return tf.cast(x, tf.float64) * 3.0


@tf_test_utils.compile_module(Float64Module)
class Float64Test(tf_test_utils.TracedModuleTestCase):

  def test_add_mul(self):

    def add_mul(module):
      module.add_mul(np.array([1.5, -2.25, 1e20], dtype=np.float64),
                     np.array([0.5, 4.0, 3.0], dtype=np.float64))

    self.compare_backends(add_mul)

  def test_precise_sum(self):

    def precise_sum(module):
      module.precise_sum(np.array([1.0, 0.0, -1.0], dtype=np.float64), rtol=1e-15, atol=0)

    self.compare_backends(precise_sum)

  def test_matmul_self(self):

    def matmul_self(module):
      module.matmul_self(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float64))

    self.compare_backends(matmul_self)

  def test_widen(self):

    def widen(module):
      module.widen(np.array([0.1, 2.0, -7.5], dtype=np.float32))

    self.compare_backends(widen)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
