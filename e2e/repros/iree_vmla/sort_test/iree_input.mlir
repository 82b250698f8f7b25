// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   5. dynamic-broadcasts (text rewrite)
module {
  func.func @sort(%arg0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
    %0 = stablehlo.negate %arg0 : tensor<2x5xf32>
    %1:2 = stablehlo.custom_call @mhlo.topk(%0) {mhlo.attributes = {k = 5 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
    %2 = stablehlo.negate %1#0 : tensor<2x5xf32>
    %3:2 = stablehlo.custom_call @mhlo.topk(%arg0) {mhlo.attributes = {k = 5 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
    return %2, %3#0 : tensor<2x5xf32>, tensor<2x5xf32>
  }
  func.func @top_k(%arg0: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
    %0:2 = stablehlo.custom_call @mhlo.topk(%arg0) {mhlo.attributes = {k = 3 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
  }
}
