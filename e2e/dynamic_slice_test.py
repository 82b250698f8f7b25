"""Strided slices of a tensor whose batch dim is None: `x[:, 0]` and `x[:, 1:3]` on `[None, 4]`
(the slice's result keeps the runtime batch size)."""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class DynamicSliceModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def first_column(self, x):
    return x[:, 0]

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def middle_columns(self, x):
    return x[:, 1:3]


@tf_test_utils.compile_module(DynamicSliceModule)
class DynamicSliceTest(tf_test_utils.TracedModuleTestCase):

  def test_first_column(self):

    def first_column(module):
      for rows in (3, 1):
        module.first_column(tf_utils.ndarange([rows, 4]))

    self.compare_backends(first_column)

  def test_middle_columns(self):

    def middle_columns(module):
      for rows in (2, 5):
        module.middle_columns(tf_utils.ndarange([rows, 4]))

    self.compare_backends(middle_columns)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
