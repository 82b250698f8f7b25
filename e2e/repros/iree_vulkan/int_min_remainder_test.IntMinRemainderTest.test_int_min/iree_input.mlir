// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {
  func.func @buckets(%arg0: tensor<6xi32>) -> tensor<6xi32> {
    %c = stablehlo.constant dense<0> : tensor<6xi32>
    %c_0 = stablehlo.constant dense<5> : tensor<6xi32>
    %0 = stablehlo.remainder %arg0, %c_0 : tensor<6xi32>
    %1 = stablehlo.compare  NE, %0, %c : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %2 = stablehlo.compare  LT, %0, %c : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %3 = stablehlo.and %1, %2 : tensor<6xi1>
    %4 = stablehlo.add %0, %c_0 : tensor<6xi32>
    %5 = stablehlo.select %3, %4, %0 : tensor<6xi1>, tensor<6xi32>
    return %5 : tensor<6xi32>
  }
  func.func @truncated(%arg0: tensor<6xi32>) -> tensor<6xi32> {
    %c = stablehlo.constant dense<5> : tensor<6xi32>
    %0 = stablehlo.remainder %arg0, %c : tensor<6xi32>
    return %0 : tensor<6xi32>
  }
}
