// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  ml_program.global public mutable @vars.__sm_node2__total(dense<0> : tensor<i32>) : tensor<i32>
  ml_program.global public mutable @vars.__sm_node1__value(dense<0.000000e+00> : tensor<2xf32>) : tensor<2xf32>
  func.func @add_if_positive(%arg0: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare  GT, %arg0, %c_0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = "stablehlo.if"(%0) ({
      %vars.__sm_node2__total_1 = ml_program.global_load @vars.__sm_node2__total : tensor<i32>
      %2 = stablehlo.add %vars.__sm_node2__total_1, %arg0 : tensor<i32>
      ml_program.global_store @vars.__sm_node2__total = %2 : tensor<i32>
      stablehlo.return %c_0 : tensor<i32>
    }, {
      %vars.__sm_node2__total_1 = ml_program.global_load @vars.__sm_node2__total : tensor<i32>
      %2 = stablehlo.subtract %vars.__sm_node2__total_1, %c : tensor<i32>
      ml_program.global_store @vars.__sm_node2__total = %2 : tensor<i32>
      stablehlo.return %c_0 : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    %vars.__sm_node2__total = ml_program.global_load @vars.__sm_node2__total : tensor<i32>
    return %vars.__sm_node2__total : tensor<i32>
  }
  func.func @store_if(%arg0: tensor<2xf32>, %arg1: tensor<i1>) -> tensor<2xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = "stablehlo.if"(%arg1) ({
      ml_program.global_store @vars.__sm_node1__value = %arg0 : tensor<2xf32>
      stablehlo.return %c : tensor<i32>
    }, {
      stablehlo.return %c : tensor<i32>
    }) : (tensor<i1>) -> tensor<i32>
    %vars.__sm_node1__value = ml_program.global_load @vars.__sm_node1__value : tensor<2xf32>
    return %vars.__sm_node1__value : tensor<2xf32>
  }
}
