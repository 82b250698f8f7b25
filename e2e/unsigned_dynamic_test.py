"""uint8 tensors with a `None` dim (a batch of pixel rows): tf.maximum of two [None, 4] uint8
inputs, and the same on a static [2, 4] shape. Found by the fuzzer (seed 20261201, a cast to
uint8 then a uint8 comparison): the dynamic one does not compile on any IREE target, because
IREE's StableHLO input conversion cannot legalize a dim query (tensor.dim) of an unsigned tensor
(e2e/repros/findings/unsigned_dim_query); the static one, which asks no dim, passes."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class UnsignedDynamicModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.uint8),
                                tf.TensorSpec([None, 4], tf.uint8)])
  def maximum_dynamic(self, x, y):
    return tf.maximum(x, y)

  @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.uint8),
                                tf.TensorSpec([2, 4], tf.uint8)])
  def maximum_static(self, x, y):
    return tf.maximum(x, y)


_X = np.array([[0, 7, 200, 255], [1, 2, 3, 128]], dtype=np.uint8)
_Y = np.array([[5, 7, 100, 254], [9, 0, 3, 129]], dtype=np.uint8)


@tf_test_utils.compile_module(UnsignedDynamicModule)
class UnsignedDynamicTest(tf_test_utils.TracedModuleTestCase):

  def test_maximum_dynamic(self):

    def maximum_dynamic(module):
      module.maximum_dynamic(_X, _Y)

    self.compare_backends(maximum_dynamic)

  def test_maximum_static(self):

    def maximum_static(module):
      module.maximum_static(_X, _Y)

    self.compare_backends(maximum_static)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
