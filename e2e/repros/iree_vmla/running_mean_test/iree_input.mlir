// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   5. dynamic-broadcasts (text rewrite)
module {
  ml_program.global public mutable @vars.__sm_node1__count(dense<0.000000e+00> : tensor<f32>) : tensor<f32>
  ml_program.global public mutable @vars.__sm_node2__total(dense<0.000000e+00> : tensor<4xf32>) : tensor<4xf32>
  func.func @update(%arg0: tensor<?x4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<-0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<?x4xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
    %2 = arith.index_cast %1 : tensor<2xindex> to tensor<2xi32>
    %3 = stablehlo.slice %2 [0:1] : (tensor<2xi32>) -> tensor<1xi32>
    %4 = stablehlo.reshape %3 : (tensor<1xi32>) -> tensor<i32>
    %5 = stablehlo.convert %4 : (tensor<i32>) -> tensor<f32>
    %vars.__sm_node1__count = ml_program.global_load @vars.__sm_node1__count : tensor<f32>
    %6 = stablehlo.add %vars.__sm_node1__count, %5 : tensor<f32>
    ml_program.global_store @vars.__sm_node1__count = %6 : tensor<f32>
    %vars.__sm_node1__count_0 = ml_program.global_load @vars.__sm_node1__count : tensor<f32>
    %vars.__sm_node2__total = ml_program.global_load @vars.__sm_node2__total : tensor<4xf32>
    %7 = stablehlo.add %vars.__sm_node2__total, %0 : tensor<4xf32>
    %8 = stablehlo.broadcast_in_dim %vars.__sm_node1__count_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    ml_program.global_store @vars.__sm_node2__total = %7 : tensor<4xf32>
    %vars.__sm_node2__total_1 = ml_program.global_load @vars.__sm_node2__total : tensor<4xf32>
    %9 = stablehlo.divide %vars.__sm_node2__total_1, %8 : tensor<4xf32>
    return %9 : tensor<4xf32>
  }
}
