// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {
  func.func @range_positions(%arg0: tensor<i32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.subtract %arg0, %c_0 : tensor<i32>
    %1 = stablehlo.abs %0 : tensor<i32>
    %2 = stablehlo.convert %1 : (tensor<i32>) -> tensor<f64>
    %3 = stablehlo.divide %2, %cst : tensor<f64>
    %4 = stablehlo.ceil %3 : tensor<f64>
    %5 = stablehlo.convert %4 : (tensor<f64>) -> tensor<i64>
    %6 = stablehlo.reshape %5 : (tensor<i64>) -> tensor<1xi64>
    %7 = stablehlo.dynamic_iota %6, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %8 = shape.shape_of %7 : tensor<?xi32> -> tensor<1xindex>
    %9 = stablehlo.dynamic_broadcast_in_dim %c, %8, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %10 = stablehlo.multiply %7, %9 : tensor<?xi32>
    %11 = shape.shape_of %10 : tensor<?xi32> -> tensor<1xindex>
    %12 = stablehlo.dynamic_broadcast_in_dim %c_0, %11, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %13 = stablehlo.add %10, %12 : tensor<?xi32>
    %14 = stablehlo.convert %13 : (tensor<?xi32>) -> tensor<?xf32>
    %dim = tensor.dim %13, %c0 : tensor<?xi32>
    %from_elements = tensor.from_elements %dim, %c1 : tensor<2xindex>
    %c0_1 = arith.constant 0 : index
    %dim_2 = tensor.dim %13, %c0_1 : tensor<?xi32>
    %expanded = tensor.expand_shape %13 [[0, 1]] output_shape [%dim_2, 1] : tensor<?xi32> into tensor<?x1xi32>
    %15 = "stablehlo.scatter"(%arg1, %expanded, %14) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      stablehlo.return %arg3 : tensor<f32>
    }) : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
    return %15 : tensor<8xf32>
  }










































































































































































































































































































































}
