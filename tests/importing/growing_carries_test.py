"""A tf.while_loop whose carried tensor grows from empty (shape invariant [None], initial value
shape [0]): TF's lowering prints its stablehlo.while with the initial tensor<0xi32> type while
the body carries tensor<?xi32>, text that does not parse back; after the importer's
growing-carries step it compiles and computes what TF computes, trip count 0 included."""

from absl.testing import absltest
from absl.testing import parameterized
import iree.compiler
import iree.runtime
import numpy as np
import tensorflow as tf

from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing.rewrites import growing_carries


class GrowingCarryModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def triangular_numbers(self, n):

    def body(i, total, values):
      total += i + 1
      return i + 1, total, tf.concat([values, tf.reshape(total, [1])], axis=0)

    _, _, values = tf.while_loop(
        lambda i, total, values: i < n, body,
        [tf.constant(0), tf.constant(0), tf.zeros([0], tf.int32)],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([]), tf.TensorShape([None])])
    return values

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def halvings(self, n):
    """A fixed-shape carry: left as the lowering printed it."""
    return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 0.5),
                         [tf.constant(0), tf.constant(10.)])[1]


def _run_on_llvm_cpu(iree_input: str, function: str, *args: np.ndarray) -> np.ndarray:
  vmfb = iree.compiler.compile_str(iree_input, target_backends=["llvm-cpu"],
                                   input_type="stablehlo_xla",
                                   extra_args=["--iree-llvmcpu-target-cpu=host"])
  context = iree.runtime.SystemContext(config=iree.runtime.Config("local-task"))
  module = iree.runtime.VmModule.copy_buffer(context.instance, vmfb)
  context.add_vm_module(module)
  return np.asarray(context.modules[module.name][function](*args))


class GrowingCarryTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.module = GrowingCarryModule()
    cls.imported = importer.import_module(cls.module, "GrowingCarryModule")

  def test_the_while_carries_the_dynamic_type_from_its_start(self):
    self.assertIn("growing-carries", self.imported.iree_input)
    whiles = [line for line in self.imported.iree_input.splitlines() if "stablehlo.while" in line]
    self.assertLen(whiles, 2)
    self.assertTrue(all("tensor<0x" not in line for line in whiles), whiles)

  @parameterized.parameters(0, 1, 5, 9)
  def test_computes_what_tensorflow_computes(self, n):
    n = np.int32(n)
    expected = self.module.triangular_numbers(n).numpy()
    actual = _run_on_llvm_cpu(self.imported.iree_input, "triangular_numbers", n)
    self.assertEqual(actual.dtype, expected.dtype)
    np.testing.assert_array_equal(actual, expected)

  def test_a_fixed_shape_loop_is_unchanged(self):
    np.testing.assert_array_equal(
        _run_on_llvm_cpu(self.imported.iree_input, "halvings", np.int32(3)), np.float32(1.25))


_WHILE = """\
    %c_1 = stablehlo.constant dense<> : tensor<0xi32>
    %0:2 = stablehlo.while(%iterArg = %c_0, %iterArg_4 = %c_1) : tensor<i32>, tensor<0xi32>
    cond {
      stablehlo.return %1 : tensor<i1>
    } do {
      %5 = stablehlo.concatenate %iterArg_4, %4, dim = 0 \
: (tensor<?xi32>, tensor<1xi32>) -> tensor<?xi32>
      stablehlo.return %6, %5 : tensor<i32>, tensor<?xi32>
    }
"""


class RewriteTest(absltest.TestCase):

  def test_an_empty_start_becomes_an_empty_tensor_of_the_body_type(self):
    text = growing_carries.rewrite_growing_carries(_WHILE)
    self.assertIn("%iterArg_4 = %pyiree_carry_0_1) : tensor<i32>, tensor<?xi32>", text)
    self.assertIn("tensor.empty(%pyiree_carry_0_1_size) : tensor<?xi32>", text)

  def test_an_integer_concat_of_dynamic_operands_becomes_tensor_concat(self):
    text = growing_carries.rewrite_growing_carries(_WHILE)
    self.assertIn("%5 = tensor.concat dim(0) %iterArg_4, %4 : (tensor<?xi32>, tensor<1xi32>) "
                  "-> tensor<?xi32>", text)

  def test_a_non_empty_static_start_is_left_alone(self):
    """A cast of a non-empty start would be folded back into the loop by IREE (measured: wrong
    sizes), so only empty starts are rewritten."""
    text = _WHILE.replace("dense<> : tensor<0xi32>", "dense<1> : tensor<2xi32>").replace(
        "tensor<i32>, tensor<0xi32>", "tensor<i32>, tensor<2xi32>")
    self.assertIn("%iterArg_4 = %c_1) : tensor<i32>, tensor<2xi32>",
                  growing_carries.rewrite_growing_carries(text))


if __name__ == "__main__":
  absltest.main()
