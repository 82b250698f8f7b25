// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {
  func.func @maximum_dynamic(%arg0: tensor<?x4xui8>, %arg1: tensor<?x4xui8>) -> tensor<?x4xui8> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x4xui8>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %arg1, %c0_0 : tensor<?x4xui8>
    %c1 = arith.constant 1 : index
    %0 = arith.cmpi eq, %dim, %c1 : index
    %1 = arith.select %0, %dim_1, %dim : index
    %c1_2 = arith.constant 1 : index
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %arg0, %c0_3 : tensor<?x4xui8>
    %2 = arith.cmpi eq, %dim_4, %c1_2 : index
    %3 = arith.cmpi eq, %dim_4, %1 : index
    %4 = arith.ori %2, %3 : i1
    %c0_5 = arith.constant 0 : index
    %dim_6 = tensor.dim %arg1, %c0_5 : tensor<?x4xui8>
    %5 = arith.cmpi eq, %dim_6, %c1_2 : index
    %6 = arith.cmpi eq, %dim_6, %1 : index
    %7 = arith.ori %5, %6 : i1
    %8 = arith.andi %4, %7 : i1
    cf.assert %8, "maximum_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %9 = shape.const_witness true
    %10 = shape.assuming %9 -> (tensor<?x4xui8>) {
      %c0_7 = arith.constant 0 : index
      %dim_8 = tensor.dim %arg0, %c0_7 : tensor<?x4xui8>
      %c0_9 = arith.constant 0 : index
      %dim_10 = tensor.dim %arg1, %c0_9 : tensor<?x4xui8>
      %c1_11 = arith.constant 1 : index
      %11 = arith.cmpi eq, %dim_8, %c1_11 : index
      %12 = arith.select %11, %dim_10, %dim_8 : index
      %c4 = arith.constant 4 : index
      %c1_12 = arith.constant 1 : index
      %from_elements = tensor.from_elements %12, %c4 : tensor<2xindex>
      %c0_13 = arith.constant 0 : index
      %dim_14 = tensor.dim %arg0, %c0_13 : tensor<?x4xui8>
      %13 = arith.cmpi eq, %dim_14, %12 : index
      %c1_15 = arith.constant 1 : index
      %14 = arith.cmpi eq, %dim_14, %c1_15 : index
      %15 = arith.ori %14, %13 : i1
      cf.assert %15, "maximum_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %16 = scf.if %14 -> (tensor<?x4xui8>) {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xui8>, tensor<2xindex>) -> tensor<?x4xui8>
        scf.yield %24 : tensor<?x4xui8>
      } else {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xui8>, tensor<2xindex>) -> tensor<?x4xui8>
        scf.yield %24 : tensor<?x4xui8>
      }
      %c0_16 = arith.constant 0 : index
      %dim_17 = tensor.dim %arg0, %c0_16 : tensor<?x4xui8>
      %c0_18 = arith.constant 0 : index
      %dim_19 = tensor.dim %arg1, %c0_18 : tensor<?x4xui8>
      %c1_20 = arith.constant 1 : index
      %17 = arith.cmpi eq, %dim_17, %c1_20 : index
      %18 = arith.select %17, %dim_19, %dim_17 : index
      %c4_21 = arith.constant 4 : index
      %c1_22 = arith.constant 1 : index
      %from_elements_23 = tensor.from_elements %18, %c4_21 : tensor<2xindex>
      %c0_24 = arith.constant 0 : index
      %dim_25 = tensor.dim %arg1, %c0_24 : tensor<?x4xui8>
      %19 = arith.cmpi eq, %dim_25, %18 : index
      %c1_26 = arith.constant 1 : index
      %20 = arith.cmpi eq, %dim_25, %c1_26 : index
      %21 = arith.ori %20, %19 : i1
      cf.assert %21, "maximum_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %22 = scf.if %20 -> (tensor<?x4xui8>) {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_23, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xui8>, tensor<2xindex>) -> tensor<?x4xui8>
        scf.yield %24 : tensor<?x4xui8>
      } else {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_23, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xui8>, tensor<2xindex>) -> tensor<?x4xui8>
        scf.yield %24 : tensor<?x4xui8>
      }
      %23 = stablehlo.maximum %16, %22 : tensor<?x4xui8>
      shape.assuming_yield %23 : tensor<?x4xui8>
    }
    return %10 : tensor<?x4xui8>
  }




}
