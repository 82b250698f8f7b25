// The signed remainder of int32's minimum by 5: C (and TensorFlow's truncatemod) give -3.
func.func @remainder(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.remainder %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}
