// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func @to_uint8(%arg0: tensor<6xf32>) -> tensor<6xui8> {
    %0 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xui8>
    return %0 : tensor<6xui8>
  }
}
