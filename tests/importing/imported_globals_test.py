"""A tf.Variable the module never assigns is compiled once: a Keras ResNet50's vmfb was 1.8x its
weights, because each such variable became a public immutable global whose `global$...$get`
accessor IREE kept besides the compile-time folded copy the computation uses (e.g. BatchNorm
folded into conv kernels). Assigned variables keep their accessors (idle release carries them)."""


from absl.testing import absltest
import iree.compiler
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils

SIZE = 512


class FoldedWeightsModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.w = tf.Variable(np.random.default_rng(0).standard_normal((SIZE, SIZE)).astype(np.float32))
    self.count = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([1, SIZE], tf.float32)])
  def predict(self, x):
    self.count.assign_add(1.0)
    return tf.matmul(x, self.w * 2.0)  # the scaled weights are folded at compile time


class ImportedGlobalsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.iree_input = tf_utils.import_module_class(FoldedWeightsModule).iree_input

  def test_never_assigned_variables_are_private_and_assigned_ones_keep_accessors(self):
    self.assertEqual(self.iree_input.count("ml_program.global private @"), 1)
    self.assertEqual(self.iree_input.count("ml_program.global public mutable @"), 1)

  def test_the_vmfb_holds_the_weights_once(self):
    vmfb = iree.compiler.compile_str(self.iree_input, target_backends=["llvm-cpu"],
                                     input_type="stablehlo_xla",
                                     extra_args=["--iree-llvmcpu-target-cpu=host"])
    self.assertLess(len(vmfb), 1.3 * SIZE * SIZE * 4)


if __name__ == "__main__":
  absltest.main()
