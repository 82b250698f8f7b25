// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {
  func.func @add_float16(%arg0: tensor<3x4xf16>, %arg1: tensor<3x4xf16>) -> tensor<3x4xf16> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<3x4xf16>
    return %0 : tensor<3x4xf16>
  }








}
