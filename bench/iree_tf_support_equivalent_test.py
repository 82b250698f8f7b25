"""The simple_arithmetic e2e test written against IREE's own `iree.tf.support` (run as its own
process).

Used only by bench/run_benchmark.py (ratio 5). Never import this from pyiree_tf_support: IREE's
package defines absl flags with the same names as ours.
"""

from iree.tf.support import tf_test_utils
from iree.tf.support import tf_utils
import numpy as np
import tensorflow.compat.v2 as tf


class SimpleArithmeticModule(tf.Module):
  """Element-wise multiply and a large matmul (same as e2e/simple_arithmetic_test.py)."""

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def simple_mul(self, a, b):
    """a * b."""
    return a * b

  @tf.function(input_signature=[
      tf.TensorSpec([128, 3072], tf.float32),
      tf.TensorSpec([3072, 256], tf.float32),
  ])
  def simple_matmul(self, a, b):
    """a @ b."""
    return tf.matmul(a, b)


class SimpleArithmeticTest(tf_test_utils.TracedModuleTestCase):
  """The same two traces as e2e/simple_arithmetic_test.py."""

  @classmethod
  def setUpClass(cls) -> None:
    """Compiles the module for the reference and the --target_backends once."""
    super().setUpClass()
    cls._modules = tf_test_utils.compile_tf_module(SimpleArithmeticModule)

  def test_simple_mul(self) -> None:
    """Two chained element-wise multiplies."""

    def simple_mul(module) -> None:
      a = np.array([1., 2., 3., 4.], dtype=np.float32)
      b = np.array([400., 5., 6., 7.], dtype=np.float32)
      c = module.simple_mul(a, b)
      module.simple_mul(a, c)

    self.compare_backends(simple_mul, self._modules)

  def test_simple_matmul(self) -> None:
    """A 128x3072 @ 3072x256 matmul of small random values."""

    def simple_matmul(module) -> None:
      a = tf_utils.uniform((128, 3072)) * 1e-3
      b = tf_utils.uniform((3072, 256)) * 1e-3
      module.simple_matmul(a, b)

    self.compare_backends(simple_matmul, self._modules)


if __name__ == "__main__":
  tf.test.main()
