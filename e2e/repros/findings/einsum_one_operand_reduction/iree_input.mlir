// One-operand einsums that sum an index away, as TensorFlow lowers tf.einsum("ii->", x),
// tf.einsum("ij->", x) and tf.einsum("ij->j", x): iree-compile rejects each in
// StableHLOToStableHLOPreprocessing ("number of output elements (N) doesn't match ...").
module {
  func.func @trace(%x: tensor<3x3xf32>) -> tensor<f32> {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.einsum %one, %x, config = ",ii->" : (tensor<f32>, tensor<3x3xf32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @sum(%x: tensor<3x4xf32>) -> tensor<f32> {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.einsum %one, %x, config = ",ij->" : (tensor<f32>, tensor<3x4xf32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @sum_rows(%x: tensor<3x4xf32>) -> tensor<4xf32> {
    %one = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.einsum %one, %x, config = ",ij->j" : (tensor<f32>, tensor<3x4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
