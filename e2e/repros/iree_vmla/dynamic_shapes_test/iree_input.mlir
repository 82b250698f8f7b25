// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func private @batch_matmul_dynamic_batch(%arg0: tensor<?x2x3xf32>, %arg1: tensor<?x3x2xf32>) -> tensor<?x2x2xf32> {
    %c-2 = arith.constant -2 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x2x3xf32>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %arg1, %c0_0 : tensor<?x3x2xf32>
    %c1 = arith.constant 1 : index
    %0 = arith.cmpi eq, %dim, %c1 : index
    %1 = arith.select %0, %dim_1, %dim : index
    %c2 = arith.constant 2 : index
    %c1_2 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c1_3 = arith.constant 1 : index
    %from_elements = tensor.from_elements %1, %c2, %c3 : tensor<3xindex>
    %c0_4 = arith.constant 0 : index
    %dim_5 = tensor.dim %arg0, %c0_4 : tensor<?x2x3xf32>
    %2 = arith.cmpi eq, %dim_5, %1 : index
    %c1_6 = arith.constant 1 : index
    %3 = arith.cmpi eq, %dim_5, %c1_6 : index
    %4 = arith.ori %3, %2 : i1
    cf.assert %4, "batch_matmul_dynamic_batch: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
    %5 = scf.if %3 -> (tensor<?x2x3xf32>) {
      %13 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1, 2] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1, 2>} : (tensor<?x2x3xf32>, tensor<3xindex>) -> tensor<?x2x3xf32>
      scf.yield %13 : tensor<?x2x3xf32>
    } else {
      %13 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1, 2] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1, 2>} : (tensor<?x2x3xf32>, tensor<3xindex>) -> tensor<?x2x3xf32>
      scf.yield %13 : tensor<?x2x3xf32>
    }
    %c0_7 = arith.constant 0 : index
    %dim_8 = tensor.dim %arg0, %c0_7 : tensor<?x2x3xf32>
    %c0_9 = arith.constant 0 : index
    %dim_10 = tensor.dim %arg1, %c0_9 : tensor<?x3x2xf32>
    %c1_11 = arith.constant 1 : index
    %6 = arith.cmpi eq, %dim_8, %c1_11 : index
    %7 = arith.select %6, %dim_10, %dim_8 : index
    %c3_12 = arith.constant 3 : index
    %c1_13 = arith.constant 1 : index
    %c2_14 = arith.constant 2 : index
    %c1_15 = arith.constant 1 : index
    %from_elements_16 = tensor.from_elements %7, %c3_12, %c2_14 : tensor<3xindex>
    %c0_17 = arith.constant 0 : index
    %dim_18 = tensor.dim %arg1, %c0_17 : tensor<?x3x2xf32>
    %8 = arith.cmpi eq, %dim_18, %7 : index
    %c1_19 = arith.constant 1 : index
    %9 = arith.cmpi eq, %dim_18, %c1_19 : index
    %10 = arith.ori %9, %8 : i1
    cf.assert %10, "batch_matmul_dynamic_batch: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
    %11 = scf.if %9 -> (tensor<?x3x2xf32>) {
      %13 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_16, dims = [0, 1, 2] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1, 2>} : (tensor<?x3x2xf32>, tensor<3xindex>) -> tensor<?x3x2xf32>
      scf.yield %13 : tensor<?x3x2xf32>
    } else {
      %13 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_16, dims = [0, 1, 2] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1, 2>} : (tensor<?x3x2xf32>, tensor<3xindex>) -> tensor<?x3x2xf32>
      scf.yield %13 : tensor<?x3x2xf32>
    }
    %12 = stablehlo.dot_general %5, %11, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<?x2x3xf32>, tensor<?x3x2xf32>) -> tensor<?x2x2xf32>
    return %12 : tensor<?x2x2xf32>
  }
  func.func private @flatten(%arg0: tensor<?x3xf32>) -> tensor<?xf32> {
    %c = stablehlo.constant dense<-1> : tensor<1xi32>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1]] : tensor<?x3xf32> into tensor<?xf32>
    return %collapsed : tensor<?xf32>
  }
  func.func @shape_as_data(%arg0: tensor<?x?xf32>) -> (tensor<2xi32>, tensor<?x?xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %1 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %2 = arith.index_cast %0 : tensor<2xindex> to tensor<2xi32>
    %3 = stablehlo.reduce(%2 init: %c) applies stablehlo.multiply across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
    %4 = stablehlo.convert %3 : (tensor<i32>) -> tensor<f32>
    %5 = stablehlo.dynamic_broadcast_in_dim %4, %1, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<?x?xf32>
    return %2, %6 : tensor<2xi32>, tensor<?x?xf32>
  }
  func.func private @split_rows_in_pairs(%arg0: tensor<?x4xf32>) -> tensor<?x2x4xf32> {
    %c = stablehlo.constant dense<[-1, 2, 4]> : tensor<3xi32>
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x4xf32>
    %c0_0 = arith.constant 0 : index
    %0 = arith.remui %dim, %c2 : index
    %1 = arith.cmpi eq, %0, %c0_0 : index
    %2 = arith.divui %dim, %c2 : index
    cf.assert %1, "tf.Reshape of tensor<?x4xf32> to [-1, 2, 4]: dim 0 must be a multiple of 2"
    %expanded = tensor.expand_shape %arg0 [[0, 1], [2]] output_shape [%2, 2, 4] : tensor<?x4xf32> into tensor<?x2x4xf32>
    return %expanded : tensor<?x2x4xf32>
  }
  func.func private @squeeze_then_expand(%arg0: tensor<?x1x3xf32>) -> tensor<1x?x3xf32> {
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x1x3xf32>
    %from_elements = tensor.from_elements %c1, %dim, %c3 : tensor<3xindex>
    %0 = stablehlo.dynamic_reshape %arg0, %from_elements : (tensor<?x1x3xf32>, tensor<3xindex>) -> tensor<1x?x3xf32>
    return %0 : tensor<1x?x3xf32>
  }
}
