"""Data-dependent control flow: while loops and conditionals (autograph -> tf.while / tf.cond)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class ControlFlowModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def collatz_steps(self, n):
    """Number of Collatz steps from n down to 1."""
    steps = tf.constant(0)
    while n > 1:
      if n % 2 == 0:
        n = n // 2
      else:
        n = 3 * n + 1
      steps += 1
    return steps

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def factorial(self, n):
    result = tf.constant(1.0)
    for i in tf.range(1, n + 1):
      result *= tf.cast(i, tf.float32)
    return result

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.float32),
      tf.TensorSpec([], tf.int32),
  ])
  def repeated_affine(self, x, iterations):
    """x <- 0.5 * x + 1, `iterations` times, on a vector loop variable."""
    i = tf.constant(0)
    while i < iterations:
      x = 0.5 * x + 1.0
      i += 1
    return x

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def sign_dependent(self, x):
    if tf.reduce_sum(x) > 0:
      return x * 2.0
    else:
      return -x

  @tf.function(input_signature=[
      tf.TensorSpec([], tf.bool),
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([2], tf.float32),
  ])
  def select_branch(self, pred, a, b):
    return tf.cond(pred, lambda: a + b, lambda: a * b)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def geometric_series(self, ratio):
    """Sums ratio**k until the terms drop below 1e-4 (data-dependent trip count)."""
    total = tf.constant(0.0)
    term = tf.constant(1.0)
    while term > 1e-4:
      total += term
      term *= ratio
    return total


@tf_test_utils.compile_module(ControlFlowModule)
class ControlFlowTest(tf_test_utils.TracedModuleTestCase):

  def test_collatz_steps(self):

    def collatz_steps(module):
      for n in [1, 6, 7, 27]:
        module.collatz_steps(np.int32(n))

    self.compare_backends(collatz_steps)

  def test_factorial(self):

    def factorial(module):
      module.factorial(np.int32(0))
      module.factorial(np.int32(5))
      module.factorial(np.int32(10), rtol=1e-6)

    self.compare_backends(factorial)

  def test_repeated_affine(self):

    def repeated_affine(module):
      x = np.array([0., 1., -4., 100.], dtype=np.float32)
      module.repeated_affine(x, np.int32(0))
      module.repeated_affine(x, np.int32(3))
      module.repeated_affine(x, np.int32(20), rtol=1e-5)

    self.compare_backends(repeated_affine)

  def test_sign_dependent(self):

    def sign_dependent(module):
      module.sign_dependent(np.array([1., 2., -0.5], dtype=np.float32))
      module.sign_dependent(np.array([-1., 0.25, -0.5], dtype=np.float32))

    self.compare_backends(sign_dependent)

  def test_select_branch(self):

    def select_branch(module):
      a = np.array([2., 3.], dtype=np.float32)
      b = np.array([5., -1.], dtype=np.float32)
      module.select_branch(np.array(True), a, b)
      module.select_branch(np.array(False), a, b)

    self.compare_backends(select_branch)

  def test_geometric_series(self):

    def geometric_series(module):
      module.geometric_series(np.float32(0.5), rtol=1e-5)
      module.geometric_series(np.float32(0.9), rtol=1e-5)
      module.geometric_series(np.float32(0.0))

    self.compare_backends(geometric_series)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
