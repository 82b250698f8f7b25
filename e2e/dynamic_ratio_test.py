"""A ratio of two computed tensors over a batch of runtime length: abs(x) / (abs(y) + 1).

Both operands of the divide are computed, so each reaches it through the import step's
broadcast check for a runtime dim (docs/dynamic_broadcasts.md: an scf.if of a known expanding
and a known non-expanding broadcast). Measured on IREE 3.13: on Vulkan (lavapipe) the call
fails at runtime, "Vulkan transient buffer has already been queued for deallocation" (a batch
of 2; a batch of 1 runs), where llvm-cpu and vmvx are right; the control, whose numerator is
the input itself, passes everywhere (e2e/repros/findings/vulkan_transient_double_dealloca)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

_BATCH = tf.TensorSpec([None, 4], tf.float32)


class DynamicRatioModule(tf.Module):

  @tf.function(input_signature=[_BATCH, _BATCH])
  def ratio(self, x, y):
    return tf.abs(x) / (tf.abs(y) + 1.0)

  @tf.function(input_signature=[_BATCH, _BATCH])
  def ratio_of_input(self, x, y):
    return x / (tf.abs(y) + 1.0)


_X = np.array([[1., -2., 3., -4.], [5., -6., 7., -8.]], np.float32)
_Y = np.array([[1., 1., -3., 3.], [0., 1., -1., 7.]], np.float32)


@tf_test_utils.compile_module(DynamicRatioModule)
class DynamicRatioTest(tf_test_utils.TracedModuleTestCase):

  def test_ratio(self):

    def ratio(module):
      module.ratio(_X, _Y)

    self.compare_backends(ratio)

  def test_ratio_of_input(self):

    def ratio_of_input(module):
      module.ratio_of_input(_X, _Y)

    self.compare_backends(ratio_of_input)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
