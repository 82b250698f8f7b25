"""A tf.Reshape whose shape is computed inside a tf.while_loop body (a 2020-era pattern: a
signal folded into rows of a width that changes each trip)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

LENGTH = 12


class LoopReshapeModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([LENGTH], tf.float32),
                                tf.TensorSpec([], tf.int32)])
  def fold_maxima(self, x, trips):
    """Sums, over `trips` trips, the row maxima of x folded into rows of 2**i elements."""

    def body(i, total):
      width = tf.bitwise.left_shift(1, i)  # 1, 2, 4: computed in the body.
      rows = tf.reshape(x, [LENGTH // width, width])
      return i + 1, total + tf.reduce_sum(tf.reduce_max(rows, axis=1))

    _, total = tf.while_loop(lambda i, _: i < trips, body, [0, tf.constant(0.0)])
    return total


@tf_test_utils.compile_module(LoopReshapeModule)
class LoopReshapeTest(tf_test_utils.TracedModuleTestCase):

  def test_fold_maxima(self):

    def fold_maxima(module):
      x = np.array([3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8], np.float32)
      for trips in (0, 1, 3):
        module.fold_maxima(x, np.int32(trips))

    self.compare_backends(fold_maxima)


if __name__ == "__main__":
  tf.test.main()
