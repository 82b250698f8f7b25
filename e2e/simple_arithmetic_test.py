"""Element-wise multiply and a large matmul: the smallest end-to-end differential test."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class SimpleArithmeticModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([4], tf.float32),
      tf.TensorSpec([4], tf.float32),
  ])
  def simple_mul(self, a, b):
    return a * b

  @tf.function(input_signature=[
      tf.TensorSpec([128, 3072], tf.float32),
      tf.TensorSpec([3072, 256], tf.float32),
  ])
  def simple_matmul(self, a, b):
    return tf.matmul(a, b)


@tf_test_utils.compile_module(SimpleArithmeticModule)
class SimpleArithmeticTest(tf_test_utils.TracedModuleTestCase):

  def test_simple_mul(self):

    def simple_mul(module):
      a = np.array([1., 2., 3., 4.], dtype=np.float32)
      b = np.array([400., 5., 6., 7.], dtype=np.float32)
      c = module.simple_mul(a, b)
      module.simple_mul(a, c)

    self.compare_backends(simple_mul)

  def test_simple_matmul(self):

    def simple_matmul(module):
      # Note: scaling by a small value to increase numerical stability.
      a = tf_utils.uniform((128, 3072)) * 1e-3
      b = tf_utils.uniform((3072, 256)) * 1e-3
      module.simple_matmul(a, b)

    self.compare_backends(simple_matmul)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
