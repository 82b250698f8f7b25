"""A stablehlo.dynamic_reshape (illegal in IREE 3.13) that only inserts unit dims compiles as
tensor.expand_shape and gives numpy's reshape; any other dynamic reshape is left as it is.

The inputs are StableHLO as TF's lowering writes it (softmax's keepdims reshape is covered on TF's
real output by tests/importing/dynamic_broadcasts_test.py); compiled and run by the real IREE."""

from absl.testing import absltest
from absl.testing import parameterized
import iree.compiler
import iree.runtime
import numpy as np

from pyiree_tf_support.importing.rewrites import dynamic_broadcasts

# name: (function text, input, result shape)
UNIT_DIM_RESHAPES = {
    "keepdims": ("""
func.func @f(%x: tensor<?xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %s = tensor.from_elements %d, %c1 : tensor<2xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}""", np.arange(3, dtype=np.float32), (3, 1)),
    "units_around": ("""
func.func @f(%x: tensor<?x2xf32>) -> tensor<1x?x1x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = tensor.dim %x, %c0 : tensor<?x2xf32>
  %s = tensor.from_elements %c1, %d, %c1, %c2 : tensor<4xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x2xf32>, tensor<4xindex>) -> tensor<1x?x1x2xf32>
  return %r : tensor<1x?x1x2xf32>
}""", np.arange(6, dtype=np.float32).reshape(3, 2), (1, 3, 1, 2)),
    "scalar": ("""
func.func @f(%x: tensor<f32>) -> tensor<1x1xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.from_elements %c1, %c1 : tensor<2xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<f32>, tensor<2xindex>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}""", np.array(5, np.float32), (1, 1)),
    "same_dims": ("""
func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %s = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}""", np.arange(6, dtype=np.float32).reshape(2, 3), (2, 3)),
}

OTHER_RESHAPES = {
    "flatten": """
func.func @f(%x: tensor<?x2xf32>, %n: index) -> tensor<?xf32> {
  %s = tensor.from_elements %n : tensor<1xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x2xf32>, tensor<1xindex>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}""",
    "dims_swapped": """
func.func @f(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %s = tensor.from_elements %d1, %d0 : tensor<2xindex>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}""",
}


class UnitDimReshapesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      (name, text, value, shape) for name, (text, value, shape) in UNIT_DIM_RESHAPES.items())
  def test_compiles_as_expand_shape_and_gives_numpys_reshape(self, text, value, shape):
    rewrite = dynamic_broadcasts.rewrite_dynamic_broadcasts(text)
    self.assertEqual(rewrite.reshapes, 1)
    self.assertNotIn("stablehlo.dynamic_reshape", rewrite.text)
    vmfb = iree.compiler.compile_str(rewrite.text, target_backends=["llvm-cpu"],
                                     input_type="stablehlo_xla",
                                     extra_args=["--iree-llvmcpu-target-cpu=host"])
    module = iree.runtime.load_vm_flatbuffer(vmfb, driver="local-task")
    np.testing.assert_array_equal(np.asarray(module.f(value)), value.reshape(shape))

  @parameterized.named_parameters(*OTHER_RESHAPES.items())
  def test_other_reshapes_are_left_as_they_are(self, text):
    rewrite = dynamic_broadcasts.rewrite_dynamic_broadcasts(text)
    self.assertIs(rewrite.text, text)


if __name__ == "__main__":
  absltest.main()
