// The control: one-operand einsums as TensorFlow lowers them (a scalar 1.0 as the first operand)
// that keep every index, and a two-operand einsum. iree-compile accepts all three.
module {
  func.func @transpose(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.einsum %one, %x, config = ",ij->ji" : (tensor<f32>, tensor<3x4xf32>) -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
  func.func @diagonal(%x: tensor<3x3xf32>) -> tensor<3xf32> {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.einsum %one, %x, config = ",ii->i" : (tensor<f32>, tensor<3x3xf32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.einsum %a, %b, config = "ij,jk->ik" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
