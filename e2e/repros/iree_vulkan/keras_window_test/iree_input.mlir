// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  ml_program.global public mutable @"vars.__sm_node21__m.layer-1.states"(dense<0.000000e+00> : tensor<1x3x2xf32>) : tensor<1x3x2xf32>
  func.func @push(%arg0: tensor<1x1x2xf32>) -> tensor<1x3x2xf32> {
    %vars.__sm_node21__m.layer-1.states = ml_program.global_load @"vars.__sm_node21__m.layer-1.states" : tensor<1x3x2xf32>
    %0 = stablehlo.slice %vars.__sm_node21__m.layer-1.states [0:1, 1:3, 0:2] : (tensor<1x3x2xf32>) -> tensor<1x2x2xf32>
    %1 = stablehlo.concatenate %0, %arg0, dim = 1 : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32>
    ml_program.global_store @"vars.__sm_node21__m.layer-1.states" = %1 : tensor<1x3x2xf32>
    %vars.__sm_node21__m.layer-1.states_0 = ml_program.global_load @"vars.__sm_node21__m.layer-1.states" : tensor<1x3x2xf32>
    return %vars.__sm_node21__m.layer-1.states_0 : tensor<1x3x2xf32>
  }
}
