"""tf.StridedSlice on an input with a dynamic dim (`x[:, 0]` on `[None, 4]`), which TF's lowering
leaves unconverted, becomes a tensor.extract_slice that compiles and computes what TF computes
for every runtime size, only where the dynamic dims are taken whole; other slices stay."""

from absl.testing import absltest
from absl.testing import parameterized
import iree.compiler
import iree.runtime
import numpy as np
import tensorflow as tf

from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing.rewrites import dynamic_strided_slices


class DynamicSliceModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def first_column(self, x):
    return x[:, 0]

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def last_column(self, x):
    return x[:, -1]

  @tf.function(input_signature=[tf.TensorSpec([None, 7], tf.float32)])
  def every_other_column(self, x):
    return x[:, 1::2]

  @tf.function(input_signature=[tf.TensorSpec([2, None, 5], tf.float32)])
  def middle(self, x):
    return x[1, :, 1:-1]


def _run_on_llvm_cpu(iree_input: str, function: str, arg: np.ndarray) -> np.ndarray:
  vmfb = iree.compiler.compile_str(iree_input, target_backends=["llvm-cpu"],
                                   input_type="stablehlo_xla",
                                   extra_args=["--iree-llvmcpu-target-cpu=host"])
  context = iree.runtime.SystemContext(config=iree.runtime.Config("local-task"))
  module = iree.runtime.VmModule.copy_buffer(context.instance, vmfb)
  context.add_vm_module(module)
  return np.asarray(context.modules[module.name][function](arg))


class DynamicStridedSlicesTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.module = DynamicSliceModule()
    cls.imported = importer.import_module(cls.module, "DynamicSliceModule")

  def test_no_strided_slice_is_left(self):
    self.assertIn("dynamic-strided-slices", self.imported.iree_input)
    self.assertNotIn('"tf.StridedSlice"', self.imported.iree_input)

  @parameterized.parameters(
      ("first_column", [3, 4]), ("first_column", [1, 4]), ("first_column", [0, 4]),
      ("last_column", [5, 4]), ("every_other_column", [2, 7]), ("middle", [2, 3, 5]),
      ("middle", [2, 1, 5]))
  def test_computes_what_tensorflow_computes(self, function, shape):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    expected = getattr(self.module, function)(x).numpy()
    actual = _run_on_llvm_cpu(self.imported.iree_input, function, x)
    self.assertEqual(actual.shape, expected.shape)
    np.testing.assert_array_equal(actual, expected)


def _function(source_type: str, begin: str, end: str, strides: str, rank: int, masks: str,
              result_type: str) -> str:
  vector = f"tensor<{rank}xi32>"
  return "\n".join([
      f"  func.func @f(%arg0: {source_type}) -> {result_type} {{",
      f"    %c = stablehlo.constant dense<{begin}> : {vector}",
      f"    %c_0 = stablehlo.constant dense<{end}> : {vector}",
      f"    %c_1 = stablehlo.constant dense<{strides}> : {vector}",
      f'    %0 = "tf.StridedSlice"(%arg0, %c, %c_0, %c_1) <{{{masks}}}> {{device = ""}} : '
      f"({source_type}, {vector}, {vector}, {vector}) -> {result_type}",
      f"    return %0 : {result_type}",
      "  }"])


def _masks(begin: int, end: int, shrink: int, ellipsis: int = 0, new_axis: int = 0) -> str:
  return (f"begin_mask = {begin} : i64, ellipsis_mask = {ellipsis} : i64, end_mask = {end} : "
          f"i64, new_axis_mask = {new_axis} : i64, shrink_axis_mask = {shrink} : i64")


class RewriteTest(parameterized.TestCase):

  def test_a_shrunk_static_dim_is_a_rank_reducing_slice(self):
    rewritten = dynamic_strided_slices.rewrite_dynamic_strided_slices(_function(
        "tensor<?x4xf32>", "0", "[0, 1]", "1", 2, _masks(1, 1, 2), "tensor<?xf32>"))
    self.assertRegex(rewritten, r"(%\w+size0) = tensor\.dim %arg0, %\w+index0 : tensor<\?x4xf32>")
    self.assertRegex(rewritten, r"%0 = tensor\.extract_slice %arg0\[0, 0\] \[%\w+size0, 1\] "
                     r"\[1, 1\] : tensor<\?x4xf32> to tensor<\?xf32>")

  @parameterized.named_parameters(
      ("dynamic_dim_strided", "tensor<?x4xf32>", "0", "0", "[2, 1]", _masks(3, 3, 0),
       "tensor<?x4xf32>"),
      ("dynamic_dim_from_one", "tensor<?x4xf32>", "[1, 0]", "0", "1", _masks(2, 3, 0),
       "tensor<?x4xf32>"),
      ("dynamic_dim_shrunk", "tensor<?x4xf32>", "0", "[1, 0]", "1", _masks(2, 2, 1),
       "tensor<4xf32>"),
      ("negative_stride", "tensor<?x4xf32>", "0", "0", "[1, -1]", _masks(3, 3, 0),
       "tensor<?x4xf32>"),
      ("shrunk_out_of_range", "tensor<?x4xf32>", "[0, 4]", "[0, 5]", "1", _masks(1, 1, 2),
       "tensor<?xf32>"),
      ("ellipsis", "tensor<?x4xf32>", "0", "[0, 1]", "1", _masks(1, 1, 2, ellipsis=1),
       "tensor<?xf32>"),
      ("result_type_disagrees", "tensor<?x4xf32>", "[0, 1]", "[0, 3]", "1", _masks(1, 1, 0),
       "tensor<?x3xf32>"),
      ("static_input", "tensor<3x4xf32>", "0", "[0, 1]", "1", _masks(1, 1, 2), "tensor<3xf32>"),
  )
  def test_other_slices_stay(self, source, begin, end, strides, masks, result):
    text = _function(source, begin, end, strides, 2, masks, result)
    self.assertEqual(dynamic_strided_slices.rewrite_dynamic_strided_slices(text), text)


if __name__ == "__main__":
  absltest.main()
