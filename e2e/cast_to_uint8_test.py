"""float32 -> uint8 (an image's pixels after float processing): tf.cast of six values, a length
that is not a multiple of 4 bytes."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class CastToUint8Module(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([6], tf.float32)])
  def to_uint8(self, x):
    return tf.cast(x, tf.uint8)  # truncates toward zero


@tf_test_utils.compile_module(CastToUint8Module)
class CastToUint8Test(tf_test_utils.TracedModuleTestCase):

  def test_to_uint8(self):

    def to_uint8(module):
      module.to_uint8(np.array([0., 1.5, 7.9, 100., 200.7, 255.], dtype=np.float32))

    self.compare_backends(to_uint8)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
