// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func @add_mul(%arg0: tensor<3xf64>, %arg1: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<3xf64>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<3xf64>
    return %0, %1 : tensor<3xf64>, tensor<3xf64>
  }
  func.func @matmul_self(%arg0: tensor<2x2xf64>) -> tensor<2x2xf64> {
    %0 = stablehlo.dot %arg0, %arg0, precision = [DEFAULT, DEFAULT] : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
    return %0 : tensor<2x2xf64>
  }
  func.func @precise_sum(%arg0: tensor<3xf64>) -> tensor<3xf64> {
    %cst = stablehlo.constant dense<1.000000e-10> : tensor<3xf64>
    %0 = stablehlo.add %arg0, %cst : tensor<3xf64>
    return %0 : tensor<3xf64>
  }
  func.func @widen(%arg0: tensor<3xf32>) -> tensor<3xf64> {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<3xf64>
    %0 = stablehlo.convert %arg0 : (tensor<3xf32>) -> tensor<3xf64>
    %1 = stablehlo.multiply %0, %cst : tensor<3xf64>
    return %1 : tensor<3xf64>
  }
}
