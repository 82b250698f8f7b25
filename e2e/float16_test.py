"""float16 in and out of a module (mixed-precision code's casts and arithmetic): float32 ->
float16, float16 + float16 and float16 -> float32, one method each, on values float16 holds
exactly (the hour-long fuzzing campaign of seed 20261201 found vmvx failing every f16 op)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

_VALUES = [[0.5, -1.25, 3.0, 100.0], [-0.125, 2.5, -7.75, 0.0], [1024.0, -2.0, 0.25, 6.5]]


class Float16Module(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.float32)])
  def to_float16(self, x):
    return tf.cast(x, tf.float16)

  @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.float16)] * 2)
  def add_float16(self, a, b):
    return a + b

  @tf.function(input_signature=[tf.TensorSpec([3, 4], tf.float16)])
  def to_float32(self, x):
    return tf.cast(x, tf.float32)


@tf_test_utils.compile_module(Float16Module)
class Float16Test(tf_test_utils.TracedModuleTestCase):

  def test_to_float16(self):

    def to_float16(module):
      module.to_float16(np.array(_VALUES, np.float32))

    self.compare_backends(to_float16)

  def test_add_float16(self):

    def add_float16(module):
      module.add_float16(np.array(_VALUES, np.float16), np.full([3, 4], 0.5, np.float16))

    self.compare_backends(add_float16)

  def test_to_float32(self):

    def to_float32(module):
      module.to_float32(np.array(_VALUES, np.float16))

    self.compare_backends(to_float32)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
