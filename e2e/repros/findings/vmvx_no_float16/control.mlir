// The control for vmvx: the same convert to another 32-bit-or-narrower type vmvx keeps (f32 ->
// i32, a float -> int convert of the same shape). iree-compile accepts it for vmvx.
func.func @to_int32(%x: tensor<3x4xf32>) -> tensor<3x4xi32> {
  %0 = stablehlo.convert %x : (tensor<3x4xf32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}
