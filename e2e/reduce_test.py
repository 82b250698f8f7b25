"""Reductions: sum, mean, max, min, prod over different axes, keepdims, argmax / argmin,
logsumexp and softmax."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

SPEC = [tf.TensorSpec([3, 4, 2], tf.float32)]


class ReduceModule(tf.Module):

  @tf.function(input_signature=SPEC)
  def sum_axes(self, x):
    return tf.reduce_sum(x), tf.reduce_sum(x, axis=0), tf.reduce_sum(x, axis=[1, 2])

  @tf.function(input_signature=SPEC)
  def mean_keepdims(self, x):
    return tf.reduce_mean(x, axis=1, keepdims=True)

  @tf.function(input_signature=SPEC)
  def max_min(self, x):
    return tf.reduce_max(x, axis=2), tf.reduce_min(x, axis=-2)

  @tf.function(input_signature=SPEC)
  def prod(self, x):
    return tf.reduce_prod(x, axis=1)

  @tf.function(input_signature=SPEC)
  def arg_max_min(self, x):
    return (tf.argmax(x, axis=1, output_type=tf.int32),
            tf.argmin(x, axis=0, output_type=tf.int32))

  @tf.function(input_signature=SPEC)
  def logsumexp(self, x):
    return tf.reduce_logsumexp(x, axis=1)

  @tf.function(input_signature=[tf.TensorSpec([2, 5], tf.float32)])
  def softmax(self, logits):
    return tf.nn.softmax(logits), tf.nn.log_softmax(logits)


@tf_test_utils.compile_module(ReduceModule)
class ReduceTest(tf_test_utils.TracedModuleTestCase):

  def test_sum_axes(self):

    def sum_axes(module):
      module.sum_axes(tf_utils.ndarange([3, 4, 2]))
      module.sum_axes(tf_utils.uniform([3, 4, 2]), rtol=1e-5)

    self.compare_backends(sum_axes)

  def test_mean_keepdims(self):

    def mean_keepdims(module):
      module.mean_keepdims(tf_utils.uniform([3, 4, 2]), rtol=1e-5)

    self.compare_backends(mean_keepdims)

  def test_max_min(self):

    def max_min(module):
      module.max_min(tf_utils.uniform([3, 4, 2]) - 0.5)

    self.compare_backends(max_min)

  def test_prod(self):

    def prod(module):
      module.prod(tf_utils.uniform([3, 4, 2]) + 0.5, rtol=1e-5)

    self.compare_backends(prod)

  def test_arg_max_min(self):

    def arg_max_min(module):
      # Distinct values, so there are no ties to break.
      x = np.random.RandomState(3).permutation(24).reshape([3, 4, 2])
      module.arg_max_min(x.astype(np.float32))

    self.compare_backends(arg_max_min)

  def test_logsumexp(self):

    def logsumexp(module):
      module.logsumexp(tf_utils.uniform([3, 4, 2]) * 10., rtol=1e-5)

    self.compare_backends(logsumexp)

  def test_softmax(self):

    def softmax(module):
      module.softmax(np.array([[1., 2., 3., 4., 5.], [-10., 0., 10., 0., -10.]],
                              dtype=np.float32),
                     rtol=1e-5, atol=1e-6)

    self.compare_backends(softmax)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
