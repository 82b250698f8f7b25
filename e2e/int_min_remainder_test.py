"""Integer remainders of int32's minimum: hashed feature ids folded into buckets.

A hashed id can be any int32, -2**31 too; tf.math.floormod(ids, buckets) and
tf.truncatemod are defined for it (only -2**31 % -1 overflows). Measured on IREE 3.13:
Vulkan (lavapipe, and the valhall4 target as well) gives -2**31 % 5 as 3 (C's -3), so
floormod returns bucket 3 instead of 2; llvm-cpu and vmvx are right. The other ids, the
control, pass everywhere (e2e/repros/findings/vulkan_int_min_remainder)."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

_IDS = tf.TensorSpec([6], tf.int32)


class IntMinRemainderModule(tf.Module):

  @tf.function(input_signature=[_IDS])
  def buckets(self, ids):
    return tf.math.floormod(ids, 5)

  @tf.function(input_signature=[_IDS])
  def truncated(self, ids):
    return tf.truncatemod(ids, 5)


@tf_test_utils.compile_module(IntMinRemainderModule)
class IntMinRemainderTest(tf_test_utils.TracedModuleTestCase):

  def test_int_min(self):

    def int_min(module):
      ids = np.array([-2**31, -2**31 + 1, -7, 0, 7, 2**31 - 1], np.int32)
      module.buckets(ids)
      module.truncated(ids)

    self.compare_backends(int_min)

  def test_other_ids(self):

    def other_ids(module):
      ids = np.array([-2**31 + 1, -12, -7, 0, 7, 2**31 - 1], np.int32)
      module.buckets(ids)
      module.truncated(ids)

    self.compare_backends(other_ids)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
