// The sum of 70,000 float32 ones (exactly 70000 in float32).
func.func @total(%x: tensor<70000xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<70000xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
