// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. range-lengths (text rewrite)
// pyiree_tf_support import:   3. growing-carries (text rewrite)
// pyiree_tf_support import:   4. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   5. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   6. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   7. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   8. scatter-counts (text rewrite)
module {
































  func.func @reversed_range(%arg0: tensor<i32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %c_1 = stablehlo.constant dense<-1> : tensor<i32>
    %0 = stablehlo.subtract %arg0, %c : tensor<i32>
    %1 = stablehlo.subtract %c_1, %0 : tensor<i32>
    %2 = stablehlo.abs %1 : tensor<i32>
    %3 = stablehlo.convert %2 : (tensor<i32>) -> tensor<f64>
    %4 = stablehlo.divide %3, %cst : tensor<f64>
    %5 = stablehlo.abs %4 : tensor<f64>
    %6 = stablehlo.ceil %5 : tensor<f64>
    %7 = stablehlo.convert %6 : (tensor<f64>) -> tensor<i64>
    %8 = stablehlo.reshape %7 : (tensor<i64>) -> tensor<1xi64>
    %9 = stablehlo.dynamic_iota %8, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %10 = shape.shape_of %9 : tensor<?xi32> -> tensor<1xindex>
    %11 = stablehlo.dynamic_broadcast_in_dim %c_1, %10, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %12 = stablehlo.multiply %9, %11 : tensor<?xi32>
    %13 = shape.shape_of %12 : tensor<?xi32> -> tensor<1xindex>
    %14 = stablehlo.dynamic_broadcast_in_dim %0, %13, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %15 = stablehlo.add %12, %14 : tensor<?xi32>
    %dim = tensor.dim %15, %c0 : tensor<?xi32>
    %from_elements = tensor.from_elements %dim, %c1 : tensor<2xindex>
    %c0_2 = arith.constant 0 : index
    %dim_3 = tensor.dim %15, %c0_2 : tensor<?xi32>
    %expanded = tensor.expand_shape %15 [[0, 1]] output_shape [%dim_3, 1] : tensor<?xi32> into tensor<?x1xi32>
    %16 = shape.shape_of %15 : tensor<?xi32> -> tensor<1xindex>
    %17 = stablehlo.dynamic_broadcast_in_dim %c_0, %16, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %18 = stablehlo.multiply %15, %17 : tensor<?xi32>
    %19 = stablehlo.convert %18 : (tensor<?xi32>) -> tensor<?xf32>
    %20 = "stablehlo.scatter"(%arg1, %expanded, %19) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      stablehlo.return %arg3 : tensor<f32>
    }) : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
    return %20 : tensor<8xf32>
  }










































































































































































































































































































































}
