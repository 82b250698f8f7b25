"""String tensors: tf.strings ops and tf.print of a string.

In the corpus as the standing example of a TensorFlow feature IREE no longer supports (IREE
dropped its string dialect): TF's lowering to StableHLO leaves the string ops (`tf.StringLength`,
`tf.PrintV2`, ...) unconverted, so the import fails. Expected to stay a failure; it checks that
the failure is reported as an import error naming the op, not as a compiler crash.
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class StringsModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
  def lengths(self, words):
    return tf.strings.length(words)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.int32)])
  def format_and_print(self, values):
    """Formats the values into a string, prints it, returns its length in bytes."""
    text = tf.strings.format("values: {}", values)
    tf.print(text)
    return tf.strings.length(text)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def number_to_string_length(self, x):
    return tf.strings.length(tf.strings.as_string(x, precision=2))


@tf_test_utils.compile_module(StringsModule)
class StringsTest(tf_test_utils.TracedModuleTestCase):

  def test_lengths(self):

    def lengths(module):
      module.lengths(np.array([b"a", b"four", b""], dtype=object))

    self.compare_backends(lengths)

  def test_format_and_print(self):

    def format_and_print(module):
      module.format_and_print(np.array([1, 22, 333], dtype=np.int32))

    self.compare_backends(format_and_print)

  def test_number_to_string_length(self):

    def number_to_string_length(module):
      module.number_to_string_length(np.array([1.5, -20.25], dtype=np.float32))

    self.compare_backends(number_to_string_length)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
