// The float32 sum of 1,000,000 elements (given 1e6 copies of 100.0: 1e8, exact in float32).
func.func @total(%x: tensor<1000000xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1000000xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
