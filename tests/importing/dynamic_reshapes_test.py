"""tf.Reshape ops TF's lowering leaves (constant target, dynamic result) become tensor ops IREE
compiles, only where the meaning is certain: merging dims into one -1 (collapse) or splitting
one dynamic dim (expand, behind a cf.assert that the split is exact); others stay."""

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.importing.rewrites import dynamic_reshapes


def _function(source_type: str, shape: str, shape_rank: int, result_type: str) -> str:
  return "\n".join([
      f"  func.func @f(%arg0: {source_type}) -> {result_type} {{",
      f"    %c = stablehlo.constant dense<{shape}> : tensor<{shape_rank}xi32>",
      f'    %0 = "tf.Reshape"(%arg0, %c) {{device = ""}} : ({source_type}, '
      f"tensor<{shape_rank}xi32>) -> {result_type}",
      f"    return %0 : {result_type}",
      "  }"])


class DynamicReshapesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("flatten", "tensor<?x3xf32>", "-1", 1, "tensor<?xf32>",
       "%0 = tensor.collapse_shape %arg0 [[0, 1]] : tensor<?x3xf32> into tensor<?xf32>"),
      ("merge_middle", "tensor<2x?x3x5xf32>", "[2, -1, 5]", 3, "tensor<2x?x5xf32>",
       "%0 = tensor.collapse_shape %arg0 [[0], [1, 2], [3]] : tensor<2x?x3x5xf32> into "
       "tensor<2x?x5xf32>"),
  )
  def test_merging_dims_into_minus_one_is_a_collapse(self, source, shape, rank, result, line):
    rewritten = dynamic_reshapes.rewrite_dynamic_reshapes(_function(source, shape, rank, result))
    self.assertIn(line, rewritten)
    self.assertNotIn("\"tf.Reshape\"(", rewritten)

  def test_splitting_a_dynamic_dim_is_an_expand_behind_an_exact_split_assert(self):
    rewritten = dynamic_reshapes.rewrite_dynamic_reshapes(
        _function("tensor<?x4xf32>", "[-1, 2, 4]", 3, "tensor<?x2x4xf32>"))
    self.assertNotIn("\"tf.Reshape\"(", rewritten)
    self.assertRegex(rewritten, r"arith\.remui %\w+size, %\w+known")
    self.assertRegex(rewritten, r'cf\.assert %\w+ok, "tf\.Reshape of tensor<\?x4xf32> to '
                     r'\[-1, 2, 4\]: dim 0 must be a multiple of 2"')
    self.assertRegex(rewritten, r"%0 = tensor\.expand_shape %arg0 \[\[0, 1\], \[2\]\] "
                     r"output_shape \[%\w+split, 2, 4\] : tensor<\?x4xf32> into tensor<\?x2x4xf32>")

  def test_splitting_into_static_dims_asserts_the_exact_size(self):
    rewritten = dynamic_reshapes.rewrite_dynamic_reshapes(
        _function("tensor<?xf32>", "[2, 3]", 2, "tensor<2x3xf32>"))
    self.assertRegex(rewritten, r"arith\.cmpi eq, %\w+size, %\w+known")
    self.assertIn("must be 6", rewritten)
    self.assertIn("output_shape [2, 3]", rewritten)

  @parameterized.named_parameters(
      ("regrouping", "tensor<?x4xf32>", "[-1, 8]", 2, "tensor<?x8xf32>"),
      ("two_minus_ones", "tensor<?x4xf32>", "[-1, -1]", 2, "tensor<?x?xf32>"),
      ("result_type_disagrees", "tensor<?x3xf32>", "-1", 1, "tensor<*xf32>"),
      ("zero_dim", "tensor<?x4xf32>", "[-1, 0, 4]", 3, "tensor<?x0x4xf32>"),
  )
  def test_other_reshapes_stay(self, source, shape, rank, result):
    text = _function(source, shape, rank, result)
    self.assertEqual(dynamic_reshapes.rewrite_dynamic_reshapes(text), text)

  def test_a_shape_not_defined_as_a_constant_in_the_same_function_stays(self):
    text = _function("tensor<?x3xf32>", "-1", 1, "tensor<?xf32>")
    text = text.replace("    %c = stablehlo.constant dense<-1> : tensor<1xi32>\n", "")
    text = "  func.func @g() {\n    %c = stablehlo.constant dense<-1> : tensor<1xi32>\n  }\n" + text
    self.assertEqual(dynamic_reshapes.rewrite_dynamic_reshapes(text), text)


if __name__ == "__main__":
  absltest.main()
