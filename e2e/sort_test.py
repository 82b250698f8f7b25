"""Sorting: tf.sort ascending and descending, and tf.math.top_k's values and indices (distinct
inputs, so the indices of ties cannot differ between backends)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

_VALUES = np.array([[3., -1., 7., 0.5, 2.], [-4., 9., 1., 6., -2.5]], dtype=np.float32)


class SortModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2, 5], tf.float32)])
  def sort(self, x):
    return tf.sort(x, axis=-1), tf.sort(x, axis=-1, direction="DESCENDING")

  @tf.function(input_signature=[tf.TensorSpec([2, 5], tf.float32)])
  def top_k(self, x):
    result = tf.math.top_k(x, k=3)
    return result.values, result.indices


@tf_test_utils.compile_module(SortModule)
class SortTest(tf_test_utils.TracedModuleTestCase):

  def test_sort(self):

    def sort(module):
      module.sort(_VALUES)

    self.compare_backends(sort)

  def test_top_k(self):

    def top_k(module):
      module.top_k(_VALUES)

    self.compare_backends(top_k)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
