// A 4x8 by 8x4 float16 matmul.
func.func @matmul(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}
