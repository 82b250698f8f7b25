// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func private @linspace(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<2.000000e-01> : tensor<1xf32>
    %cst_0 = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
    %0 = stablehlo.reshape %arg0 : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %arg1 : (tensor<f32>) -> tensor<1xf32>
    %2 = stablehlo.subtract %1, %0 : tensor<1xf32>
    %3 = stablehlo.multiply %2, %cst : tensor<1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %5 = stablehlo.multiply %4, %cst_0 : tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %7 = stablehlo.add %6, %5 : tensor<4xf32>
    %8 = stablehlo.concatenate %0, %7, %1, dim = 0 : (tensor<1xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<6xf32>
    return %8 : tensor<6xf32>
  }
  func.func private @linspace_batched(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2x5xf32> {
    %cst = stablehlo.constant dense<2.500000e-01> : tensor<2x1xf32>
    %cst_0 = stablehlo.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf32>
    %0 = stablehlo.reshape %arg0 : (tensor<2xf32>) -> tensor<2x1xf32>
    %1 = stablehlo.reshape %arg1 : (tensor<2xf32>) -> tensor<2x1xf32>
    %2 = stablehlo.subtract %1, %0 : tensor<2x1xf32>
    %3 = stablehlo.multiply %2, %cst : tensor<2x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
    %6 = stablehlo.multiply %4, %5 : tensor<2x3xf32>
    %7 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>
    %8 = stablehlo.add %7, %6 : tensor<2x3xf32>
    %9 = stablehlo.concatenate %0, %8, %1, dim = 1 : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
    return %9 : tensor<2x5xf32>
  }
  func.func private @range_float_step(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<?xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %0 = stablehlo.multiply %arg1, %cst_0 : tensor<f32>
    %1 = stablehlo.add %arg0, %0 : tensor<f32>
    %2 = stablehlo.multiply %arg1, %cst : tensor<f32>
    %3 = stablehlo.subtract %1, %2 : tensor<f32>
    %4 = stablehlo.subtract %3, %arg0 : tensor<f32>
    %5 = stablehlo.abs %4 : tensor<f32>
    %6 = stablehlo.divide %5, %arg1 : tensor<f32>
    %7 = stablehlo.ceil %6 : tensor<f32>
    %8 = stablehlo.convert %7 : (tensor<f32>) -> tensor<i64>
    %9 = stablehlo.reshape %8 : (tensor<i64>) -> tensor<1xi64>
    %10 = stablehlo.dynamic_iota %9, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
    %11 = shape.shape_of %10 : tensor<?xf32> -> tensor<1xindex>
    %12 = stablehlo.dynamic_broadcast_in_dim %arg1, %11, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %13 = stablehlo.multiply %10, %12 : tensor<?xf32>
    %14 = shape.shape_of %13 : tensor<?xf32> -> tensor<1xindex>
    %15 = stablehlo.dynamic_broadcast_in_dim %arg0, %14, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %16 = stablehlo.add %13, %15 : tensor<?xf32>
    return %16 : tensor<?xf32>
  }
  func.func @range_runtime_limit(%arg0: tensor<i32>) -> tensor<?xi32> {
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
    %8 = shape.shape_of %7 : tensor<?xi32> -> tensor<1xindex>
    %9 = stablehlo.dynamic_broadcast_in_dim %c, %8, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %10 = stablehlo.multiply %7, %9 : tensor<?xi32>
    %11 = shape.shape_of %10 : tensor<?xi32> -> tensor<1xindex>
    %12 = stablehlo.dynamic_broadcast_in_dim %c_0, %11, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %13 = stablehlo.add %10, %12 : tensor<?xi32>
    return %13 : tensor<?xi32>
  }
}
