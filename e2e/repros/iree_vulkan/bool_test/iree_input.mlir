// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func @any_all(%arg0: tensor<2x3xi1>) -> (tensor<2xi1>, tensor<2xi1>, tensor<i1>) {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<true> : tensor<i1>
    %0 = stablehlo.reduce(%arg0 init: %c_0) applies stablehlo.and across dimensions = [1] : (tensor<2x3xi1>, tensor<i1>) -> tensor<2xi1>
    %1 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.or across dimensions = [1] : (tensor<2x3xi1>, tensor<i1>) -> tensor<2xi1>
    %2 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.or across dimensions = [0, 1] : (tensor<2x3xi1>, tensor<i1>) -> tensor<i1>
    return %1, %0, %2 : tensor<2xi1>, tensor<2xi1>, tensor<i1>
  }
  func.func @bool_to_numbers(%arg0: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xf32>) {
    %cst = stablehlo.constant dense<2.500000e+00> : tensor<4xf32>
    %0 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xi32>
    %1 = stablehlo.convert %arg0 : (tensor<4xi1>) -> tensor<4xf32>
    %2 = stablehlo.multiply %1, %cst : tensor<4xf32>
    return %0, %2 : tensor<4xi32>, tensor<4xf32>
  }
  func.func @comparisons(%arg0: tensor<5xf32>, %arg1: tensor<5xf32>) -> (tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>) {
    %0 = stablehlo.compare  EQ, %arg0, %arg1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %1 = stablehlo.compare  GT, %arg0, %arg1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %2 = stablehlo.compare  LE, %arg0, %arg1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %3 = stablehlo.compare  NE, %arg0, %arg1 : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    return %1, %2, %0, %3 : tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>
  }
  func.func @constant_true() -> tensor<i1> {
    %c = stablehlo.constant dense<true> : tensor<i1>
    return %c : tensor<i1>
  }
  func.func @logical_ops(%arg0: tensor<4xi1>, %arg1: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
    %0 = stablehlo.not %arg0 : tensor<4xi1>
    %1 = stablehlo.and %arg0, %arg1 : tensor<4xi1>
    %2 = stablehlo.and %arg0, %arg1 : tensor<4xi1>
    %3 = stablehlo.not %2 : tensor<4xi1>
    %4 = stablehlo.or %arg0, %arg1 : tensor<4xi1>
    %5 = stablehlo.or %arg0, %arg1 : tensor<4xi1>
    %6 = stablehlo.and %5, %3 : tensor<4xi1>
    return %1, %4, %0, %6 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
  }
  func.func @select(%arg0: tensor<4xi1>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
