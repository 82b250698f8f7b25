"""Loops and sequences whose length is a runtime scalar input: tf.while_loops with a runtime
trip count, tf.linspace with a runtime number of points.

In the corpus because a result whose shape depends on an input value, not on the signature, is
hard to import: TF's lowering to StableHLO leaves the `tf.Reshape` of `tf.linspace` with a runtime
`num` unconverted (still failing), and prints a while loop whose carried tensor grows (shape
invariant [None]) with its initial `tensor<0xi32>` type, text that does not parse back (the
importer's growing-carries step fixes it; the per-function import lets it compile without
linspace). `halvings` (a runtime trip count over a fixed-shape carry, like control_flow_test.py's
loops) is the control.
linspace_test.py keeps `num` a constant.
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class RuntimeLoopModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def triangular_numbers(self, n):
    """[1, 3, 6, ...]: n of them, grown by one element per tf.while_loop iteration."""

    def body(i, total, values):
      total += i + 1
      return i + 1, total, tf.concat([values, tf.reshape(total, [1])], axis=0)

    _, _, values = tf.while_loop(
        lambda i, total, values: i < n, body,
        [tf.constant(0), tf.constant(0), tf.zeros([0], tf.int32)],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([]), tf.TensorShape([None])])
    return values

  @tf.function(input_signature=[
      tf.TensorSpec([], tf.float32),
      tf.TensorSpec([], tf.int32),
  ])
  def halvings(self, x, n):
    """x halved n times (a fixed-shape loop variable, the trip count an input)."""
    _, result = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 0.5),
                              [tf.constant(0), x])
    return result

  @tf.function(input_signature=[
      tf.TensorSpec([], tf.float32),
      tf.TensorSpec([], tf.float32),
      tf.TensorSpec([], tf.int32),
  ])
  def linspace_runtime_count(self, start, stop, num):
    return tf.linspace(start, stop, num)


@tf_test_utils.compile_module(RuntimeLoopModule)
class RuntimeLoopTest(tf_test_utils.TracedModuleTestCase):

  def test_triangular_numbers(self):

    def triangular_numbers(module):
      module.triangular_numbers(np.int32(5))
      module.triangular_numbers(np.int32(1))

    self.compare_backends(triangular_numbers)

  def test_halvings(self):

    def halvings(module):
      module.halvings(np.float32(10.), np.int32(3))
      module.halvings(np.float32(-1.), np.int32(0))

    self.compare_backends(halvings)

  def test_linspace_runtime_count(self):

    def linspace_runtime_count(module):
      module.linspace_runtime_count(np.float32(0.), np.float32(1.), np.int32(5), atol=1e-6)
      module.linspace_runtime_count(np.float32(2.), np.float32(-2.), np.int32(3), atol=1e-6)

    self.compare_backends(linspace_runtime_count)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
