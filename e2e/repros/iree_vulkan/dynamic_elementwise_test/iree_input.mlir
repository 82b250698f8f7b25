// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func @add(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?xf32>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %arg1, %c0_0 : tensor<?xf32>
    %c1 = arith.constant 1 : index
    %0 = arith.cmpi eq, %dim, %c1 : index
    %1 = arith.select %0, %dim_1, %dim : index
    %c1_2 = arith.constant 1 : index
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %arg0, %c0_3 : tensor<?xf32>
    %2 = arith.cmpi eq, %dim_4, %c1_2 : index
    %3 = arith.cmpi eq, %dim_4, %1 : index
    %4 = arith.ori %2, %3 : i1
    %c0_5 = arith.constant 0 : index
    %dim_6 = tensor.dim %arg1, %c0_5 : tensor<?xf32>
    %5 = arith.cmpi eq, %dim_6, %c1_2 : index
    %6 = arith.cmpi eq, %dim_6, %1 : index
    %7 = arith.ori %5, %6 : i1
    %8 = arith.andi %4, %7 : i1
    cf.assert %8, "add: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %9 = shape.const_witness true
    %10 = shape.assuming %9 -> (tensor<?xf32>) {
      %c0_7 = arith.constant 0 : index
      %dim_8 = tensor.dim %arg0, %c0_7 : tensor<?xf32>
      %c0_9 = arith.constant 0 : index
      %dim_10 = tensor.dim %arg1, %c0_9 : tensor<?xf32>
      %c1_11 = arith.constant 1 : index
      %11 = arith.cmpi eq, %dim_8, %c1_11 : index
      %12 = arith.select %11, %dim_10, %dim_8 : index
      %from_elements = tensor.from_elements %12 : tensor<1xindex>
      %c0_12 = arith.constant 0 : index
      %dim_13 = tensor.dim %arg0, %c0_12 : tensor<?xf32>
      %13 = arith.cmpi eq, %dim_13, %12 : index
      %c1_14 = arith.constant 1 : index
      %14 = arith.cmpi eq, %dim_13, %c1_14 : index
      %15 = arith.ori %14, %13 : i1
      cf.assert %15, "add: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %16 = scf.if %14 -> (tensor<?xf32>) {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      } else {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      }
      %c0_15 = arith.constant 0 : index
      %dim_16 = tensor.dim %arg0, %c0_15 : tensor<?xf32>
      %c0_17 = arith.constant 0 : index
      %dim_18 = tensor.dim %arg1, %c0_17 : tensor<?xf32>
      %c1_19 = arith.constant 1 : index
      %17 = arith.cmpi eq, %dim_16, %c1_19 : index
      %18 = arith.select %17, %dim_18, %dim_16 : index
      %from_elements_20 = tensor.from_elements %18 : tensor<1xindex>
      %c0_21 = arith.constant 0 : index
      %dim_22 = tensor.dim %arg1, %c0_21 : tensor<?xf32>
      %19 = arith.cmpi eq, %dim_22, %18 : index
      %c1_23 = arith.constant 1 : index
      %20 = arith.cmpi eq, %dim_22, %c1_23 : index
      %21 = arith.ori %20, %19 : i1
      cf.assert %21, "add: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %22 = scf.if %20 -> (tensor<?xf32>) {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_20, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      } else {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_20, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      }
      %23 = stablehlo.add %16, %22 : tensor<?xf32>
      shape.assuming_yield %23 : tensor<?xf32>
    }
    return %10 : tensor<?xf32>
  }
  func.func @maximum(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?xf32>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %arg1, %c0_0 : tensor<?xf32>
    %c1 = arith.constant 1 : index
    %0 = arith.cmpi eq, %dim, %c1 : index
    %1 = arith.select %0, %dim_1, %dim : index
    %c1_2 = arith.constant 1 : index
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %arg0, %c0_3 : tensor<?xf32>
    %2 = arith.cmpi eq, %dim_4, %c1_2 : index
    %3 = arith.cmpi eq, %dim_4, %1 : index
    %4 = arith.ori %2, %3 : i1
    %c0_5 = arith.constant 0 : index
    %dim_6 = tensor.dim %arg1, %c0_5 : tensor<?xf32>
    %5 = arith.cmpi eq, %dim_6, %c1_2 : index
    %6 = arith.cmpi eq, %dim_6, %1 : index
    %7 = arith.ori %5, %6 : i1
    %8 = arith.andi %4, %7 : i1
    cf.assert %8, "maximum: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %9 = shape.const_witness true
    %10 = shape.assuming %9 -> (tensor<?xf32>) {
      %c0_7 = arith.constant 0 : index
      %dim_8 = tensor.dim %arg0, %c0_7 : tensor<?xf32>
      %c0_9 = arith.constant 0 : index
      %dim_10 = tensor.dim %arg1, %c0_9 : tensor<?xf32>
      %c1_11 = arith.constant 1 : index
      %11 = arith.cmpi eq, %dim_8, %c1_11 : index
      %12 = arith.select %11, %dim_10, %dim_8 : index
      %from_elements = tensor.from_elements %12 : tensor<1xindex>
      %c0_12 = arith.constant 0 : index
      %dim_13 = tensor.dim %arg0, %c0_12 : tensor<?xf32>
      %13 = arith.cmpi eq, %dim_13, %12 : index
      %c1_14 = arith.constant 1 : index
      %14 = arith.cmpi eq, %dim_13, %c1_14 : index
      %15 = arith.ori %14, %13 : i1
      cf.assert %15, "maximum: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %16 = scf.if %14 -> (tensor<?xf32>) {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      } else {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      }
      %c0_15 = arith.constant 0 : index
      %dim_16 = tensor.dim %arg0, %c0_15 : tensor<?xf32>
      %c0_17 = arith.constant 0 : index
      %dim_18 = tensor.dim %arg1, %c0_17 : tensor<?xf32>
      %c1_19 = arith.constant 1 : index
      %17 = arith.cmpi eq, %dim_16, %c1_19 : index
      %18 = arith.select %17, %dim_18, %dim_16 : index
      %from_elements_20 = tensor.from_elements %18 : tensor<1xindex>
      %c0_21 = arith.constant 0 : index
      %dim_22 = tensor.dim %arg1, %c0_21 : tensor<?xf32>
      %19 = arith.cmpi eq, %dim_22, %18 : index
      %c1_23 = arith.constant 1 : index
      %20 = arith.cmpi eq, %dim_22, %c1_23 : index
      %21 = arith.ori %20, %19 : i1
      cf.assert %21, "maximum: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %22 = scf.if %20 -> (tensor<?xf32>) {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_20, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      } else {
        %24 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_20, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %24 : tensor<?xf32>
      }
      %23 = stablehlo.maximum %16, %22 : tensor<?xf32>
      shape.assuming_yield %23 : tensor<?xf32>
    }
    return %10 : tensor<?xf32>
  }
  func.func @where(%arg0: tensor<?xi1>, %arg1: tensor<?xf32>, %arg2: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?xi1>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %arg1, %c0_0 : tensor<?xf32>
    %c0_2 = arith.constant 0 : index
    %dim_3 = tensor.dim %arg2, %c0_2 : tensor<?xf32>
    %c1 = arith.constant 1 : index
    %0 = arith.cmpi eq, %dim, %c1 : index
    %1 = arith.select %0, %dim_1, %dim : index
    %2 = arith.cmpi eq, %1, %c1 : index
    %3 = arith.select %2, %dim_3, %1 : index
    %c1_4 = arith.constant 1 : index
    %c0_5 = arith.constant 0 : index
    %dim_6 = tensor.dim %arg0, %c0_5 : tensor<?xi1>
    %4 = arith.cmpi eq, %dim_6, %c1_4 : index
    %5 = arith.cmpi eq, %dim_6, %3 : index
    %6 = arith.ori %4, %5 : i1
    %c0_7 = arith.constant 0 : index
    %dim_8 = tensor.dim %arg1, %c0_7 : tensor<?xf32>
    %7 = arith.cmpi eq, %dim_8, %c1_4 : index
    %8 = arith.cmpi eq, %dim_8, %3 : index
    %9 = arith.ori %7, %8 : i1
    %c0_9 = arith.constant 0 : index
    %dim_10 = tensor.dim %arg2, %c0_9 : tensor<?xf32>
    %10 = arith.cmpi eq, %dim_10, %c1_4 : index
    %11 = arith.cmpi eq, %dim_10, %3 : index
    %12 = arith.ori %10, %11 : i1
    %13 = arith.andi %6, %9 : i1
    %14 = arith.andi %13, %12 : i1
    cf.assert %14, "where: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %15 = shape.const_witness true
    %16 = shape.assuming %15 -> (tensor<?xf32>) {
      %c0_11 = arith.constant 0 : index
      %dim_12 = tensor.dim %arg0, %c0_11 : tensor<?xi1>
      %c0_13 = arith.constant 0 : index
      %dim_14 = tensor.dim %arg1, %c0_13 : tensor<?xf32>
      %c0_15 = arith.constant 0 : index
      %dim_16 = tensor.dim %arg2, %c0_15 : tensor<?xf32>
      %c1_17 = arith.constant 1 : index
      %17 = arith.cmpi eq, %dim_12, %c1_17 : index
      %18 = arith.select %17, %dim_14, %dim_12 : index
      %19 = arith.cmpi eq, %18, %c1_17 : index
      %20 = arith.select %19, %dim_16, %18 : index
      %from_elements = tensor.from_elements %20 : tensor<1xindex>
      %c0_18 = arith.constant 0 : index
      %dim_19 = tensor.dim %arg0, %c0_18 : tensor<?xi1>
      %21 = arith.cmpi eq, %dim_19, %20 : index
      %c1_20 = arith.constant 1 : index
      %22 = arith.cmpi eq, %dim_19, %c1_20 : index
      %23 = arith.ori %22, %21 : i1
      cf.assert %23, "where: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %24 = scf.if %22 -> (tensor<?xi1>) {
        %42 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %42 : tensor<?xi1>
      } else {
        %42 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %42 : tensor<?xi1>
      }
      %c0_21 = arith.constant 0 : index
      %dim_22 = tensor.dim %arg0, %c0_21 : tensor<?xi1>
      %c0_23 = arith.constant 0 : index
      %dim_24 = tensor.dim %arg1, %c0_23 : tensor<?xf32>
      %c0_25 = arith.constant 0 : index
      %dim_26 = tensor.dim %arg2, %c0_25 : tensor<?xf32>
      %c1_27 = arith.constant 1 : index
      %25 = arith.cmpi eq, %dim_22, %c1_27 : index
      %26 = arith.select %25, %dim_24, %dim_22 : index
      %27 = arith.cmpi eq, %26, %c1_27 : index
      %28 = arith.select %27, %dim_26, %26 : index
      %from_elements_28 = tensor.from_elements %28 : tensor<1xindex>
      %c0_29 = arith.constant 0 : index
      %dim_30 = tensor.dim %arg1, %c0_29 : tensor<?xf32>
      %29 = arith.cmpi eq, %dim_30, %28 : index
      %c1_31 = arith.constant 1 : index
      %30 = arith.cmpi eq, %dim_30, %c1_31 : index
      %31 = arith.ori %30, %29 : i1
      cf.assert %31, "where: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %32 = scf.if %30 -> (tensor<?xf32>) {
        %42 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_28, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %42 : tensor<?xf32>
      } else {
        %42 = stablehlo.dynamic_broadcast_in_dim %arg1, %from_elements_28, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %42 : tensor<?xf32>
      }
      %c0_32 = arith.constant 0 : index
      %dim_33 = tensor.dim %arg0, %c0_32 : tensor<?xi1>
      %c0_34 = arith.constant 0 : index
      %dim_35 = tensor.dim %arg1, %c0_34 : tensor<?xf32>
      %c0_36 = arith.constant 0 : index
      %dim_37 = tensor.dim %arg2, %c0_36 : tensor<?xf32>
      %c1_38 = arith.constant 1 : index
      %33 = arith.cmpi eq, %dim_33, %c1_38 : index
      %34 = arith.select %33, %dim_35, %dim_33 : index
      %35 = arith.cmpi eq, %34, %c1_38 : index
      %36 = arith.select %35, %dim_37, %34 : index
      %from_elements_39 = tensor.from_elements %36 : tensor<1xindex>
      %c0_40 = arith.constant 0 : index
      %dim_41 = tensor.dim %arg2, %c0_40 : tensor<?xf32>
      %37 = arith.cmpi eq, %dim_41, %36 : index
      %c1_42 = arith.constant 1 : index
      %38 = arith.cmpi eq, %dim_41, %c1_42 : index
      %39 = arith.ori %38, %37 : i1
      cf.assert %39, "where: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %40 = scf.if %38 -> (tensor<?xf32>) {
        %42 = stablehlo.dynamic_broadcast_in_dim %arg2, %from_elements_39, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %42 : tensor<?xf32>
      } else {
        %42 = stablehlo.dynamic_broadcast_in_dim %arg2, %from_elements_39, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
        scf.yield %42 : tensor<?xf32>
      }
      %41 = stablehlo.select %24, %32, %40 : tensor<?xi1>, tensor<?xf32>
      shape.assuming_yield %41 : tensor<?xf32>
    }
    return %16 : tensor<?xf32>
  }
}
