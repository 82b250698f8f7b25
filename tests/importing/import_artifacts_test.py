"""What the import leaves on disk for a module with large constants (a Keras ResNet50 once
wrote 189 MB of tf_input.mlir, its weights printed inline as hex): tf_input.mlir, read only by
people, elides constants over 1 KiB as MLIR's own printer does (`dense_resource<__elided__>`);
iree_input.mlir, which replay, repro and the compile cache read, stays whole and loadable."""

import os
import tempfile

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils


class WeightsModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.w = tf.Variable(np.arange(128 * 128, dtype=np.float32).reshape(128, 128))
    self.small = tf.constant([1.0, 2.0, 3.0])

  @tf.function(input_signature=[tf.TensorSpec([1, 128], tf.float32)])
  def predict(self, x):
    return tf.matmul(x, self.w) + tf.reduce_sum(self.small)


class ImportArtifactsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp(prefix="import_artifacts_")
    cls.imported = tf_utils.import_module_class(WeightsModule, artifacts_dir=cls.dir)

  def read(self, name):
    with open(os.path.join(self.dir, name)) as f:
      return f.read()

  def test_tf_input_elides_large_constants_and_keeps_small_ones(self):
    text = self.read("tf_input.mlir")
    self.assertIn("dense_resource<__elided__>", text)
    self.assertLess(len(text), 16 * 1024, "the 64 KiB weight is still printed inline")
    self.assertIn("1.000000e+00, 2.000000e+00, 3.000000e+00", text)

  def test_iree_input_stays_whole(self):
    text = self.read("iree_input.mlir")
    self.assertEqual(text, self.imported.iree_input)
    self.assertNotIn("__elided__", text)

  def test_the_in_memory_texts_are_whole(self):
    self.assertNotIn("__elided__", self.imported.tf_input)


if __name__ == "__main__":
  absltest.main()
