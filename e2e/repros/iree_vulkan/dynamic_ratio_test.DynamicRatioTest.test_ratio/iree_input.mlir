// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {
  func.func @ratio(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.abs %arg0 : tensor<?x4xf32>
    %1 = stablehlo.abs %arg1 : tensor<?x4xf32>
    %2 = shape.shape_of %1 : tensor<?x4xf32> -> tensor<2xindex>
    %3 = stablehlo.dynamic_broadcast_in_dim %cst, %2, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %4 = stablehlo.add %1, %3 : tensor<?x4xf32>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %0, %c0 : tensor<?x4xf32>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %4, %c0_0 : tensor<?x4xf32>
    %c1 = arith.constant 1 : index
    %5 = arith.cmpi eq, %dim, %c1 : index
    %6 = arith.select %5, %dim_1, %dim : index
    %c1_2 = arith.constant 1 : index
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %0, %c0_3 : tensor<?x4xf32>
    %7 = arith.cmpi eq, %dim_4, %c1_2 : index
    %8 = arith.cmpi eq, %dim_4, %6 : index
    %9 = arith.ori %7, %8 : i1
    %c0_5 = arith.constant 0 : index
    %dim_6 = tensor.dim %4, %c0_5 : tensor<?x4xf32>
    %10 = arith.cmpi eq, %dim_6, %c1_2 : index
    %11 = arith.cmpi eq, %dim_6, %6 : index
    %12 = arith.ori %10, %11 : i1
    %13 = arith.andi %9, %12 : i1
    cf.assert %13, "ratio: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %14 = shape.const_witness true
    %15 = shape.assuming %14 -> (tensor<?x4xf32>) {
      %c0_7 = arith.constant 0 : index
      %dim_8 = tensor.dim %0, %c0_7 : tensor<?x4xf32>
      %c0_9 = arith.constant 0 : index
      %dim_10 = tensor.dim %4, %c0_9 : tensor<?x4xf32>
      %c1_11 = arith.constant 1 : index
      %16 = arith.cmpi eq, %dim_8, %c1_11 : index
      %17 = arith.select %16, %dim_10, %dim_8 : index
      %c4 = arith.constant 4 : index
      %c1_12 = arith.constant 1 : index
      %from_elements = tensor.from_elements %17, %c4 : tensor<2xindex>
      %c0_13 = arith.constant 0 : index
      %dim_14 = tensor.dim %0, %c0_13 : tensor<?x4xf32>
      %18 = arith.cmpi eq, %dim_14, %17 : index
      %c1_15 = arith.constant 1 : index
      %19 = arith.cmpi eq, %dim_14, %c1_15 : index
      %20 = arith.ori %19, %18 : i1
      cf.assert %20, "ratio: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %21 = scf.if %19 -> (tensor<?x4xf32>) {
        %29 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %29 : tensor<?x4xf32>
      } else {
        %29 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %29 : tensor<?x4xf32>
      }
      %c0_16 = arith.constant 0 : index
      %dim_17 = tensor.dim %0, %c0_16 : tensor<?x4xf32>
      %c0_18 = arith.constant 0 : index
      %dim_19 = tensor.dim %4, %c0_18 : tensor<?x4xf32>
      %c1_20 = arith.constant 1 : index
      %22 = arith.cmpi eq, %dim_17, %c1_20 : index
      %23 = arith.select %22, %dim_19, %dim_17 : index
      %c4_21 = arith.constant 4 : index
      %c1_22 = arith.constant 1 : index
      %from_elements_23 = tensor.from_elements %23, %c4_21 : tensor<2xindex>
      %c0_24 = arith.constant 0 : index
      %dim_25 = tensor.dim %4, %c0_24 : tensor<?x4xf32>
      %24 = arith.cmpi eq, %dim_25, %23 : index
      %c1_26 = arith.constant 1 : index
      %25 = arith.cmpi eq, %dim_25, %c1_26 : index
      %26 = arith.ori %25, %24 : i1
      cf.assert %26, "ratio: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %27 = scf.if %25 -> (tensor<?x4xf32>) {
        %29 = stablehlo.dynamic_broadcast_in_dim %4, %from_elements_23, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %29 : tensor<?x4xf32>
      } else {
        %29 = stablehlo.dynamic_broadcast_in_dim %4, %from_elements_23, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %29 : tensor<?x4xf32>
      }
      %28 = stablehlo.divide %21, %27 : tensor<?x4xf32>
      shape.assuming_yield %28 : tensor<?x4xf32>
    }
    return %15 : tensor<?x4xf32>
  }
  func.func @ratio_of_input(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.abs %arg1 : tensor<?x4xf32>
    %1 = shape.shape_of %0 : tensor<?x4xf32> -> tensor<2xindex>
    %2 = stablehlo.dynamic_broadcast_in_dim %cst, %1, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %3 = stablehlo.add %0, %2 : tensor<?x4xf32>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x4xf32>
    %c0_0 = arith.constant 0 : index
    %dim_1 = tensor.dim %3, %c0_0 : tensor<?x4xf32>
    %c1 = arith.constant 1 : index
    %4 = arith.cmpi eq, %dim, %c1 : index
    %5 = arith.select %4, %dim_1, %dim : index
    %c1_2 = arith.constant 1 : index
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %arg0, %c0_3 : tensor<?x4xf32>
    %6 = arith.cmpi eq, %dim_4, %c1_2 : index
    %7 = arith.cmpi eq, %dim_4, %5 : index
    %8 = arith.ori %6, %7 : i1
    %c0_5 = arith.constant 0 : index
    %dim_6 = tensor.dim %3, %c0_5 : tensor<?x4xf32>
    %9 = arith.cmpi eq, %dim_6, %c1_2 : index
    %10 = arith.cmpi eq, %dim_6, %5 : index
    %11 = arith.ori %9, %10 : i1
    %12 = arith.andi %8, %11 : i1
    cf.assert %12, "ratio_of_input: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %13 = shape.const_witness true
    %14 = shape.assuming %13 -> (tensor<?x4xf32>) {
      %c0_7 = arith.constant 0 : index
      %dim_8 = tensor.dim %arg0, %c0_7 : tensor<?x4xf32>
      %c0_9 = arith.constant 0 : index
      %dim_10 = tensor.dim %3, %c0_9 : tensor<?x4xf32>
      %c1_11 = arith.constant 1 : index
      %15 = arith.cmpi eq, %dim_8, %c1_11 : index
      %16 = arith.select %15, %dim_10, %dim_8 : index
      %c4 = arith.constant 4 : index
      %c1_12 = arith.constant 1 : index
      %from_elements = tensor.from_elements %16, %c4 : tensor<2xindex>
      %c0_13 = arith.constant 0 : index
      %dim_14 = tensor.dim %arg0, %c0_13 : tensor<?x4xf32>
      %17 = arith.cmpi eq, %dim_14, %16 : index
      %c1_15 = arith.constant 1 : index
      %18 = arith.cmpi eq, %dim_14, %c1_15 : index
      %19 = arith.ori %18, %17 : i1
      cf.assert %19, "ratio_of_input: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %20 = scf.if %18 -> (tensor<?x4xf32>) {
        %28 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %28 : tensor<?x4xf32>
      } else {
        %28 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %28 : tensor<?x4xf32>
      }
      %c0_16 = arith.constant 0 : index
      %dim_17 = tensor.dim %arg0, %c0_16 : tensor<?x4xf32>
      %c0_18 = arith.constant 0 : index
      %dim_19 = tensor.dim %3, %c0_18 : tensor<?x4xf32>
      %c1_20 = arith.constant 1 : index
      %21 = arith.cmpi eq, %dim_17, %c1_20 : index
      %22 = arith.select %21, %dim_19, %dim_17 : index
      %c4_21 = arith.constant 4 : index
      %c1_22 = arith.constant 1 : index
      %from_elements_23 = tensor.from_elements %22, %c4_21 : tensor<2xindex>
      %c0_24 = arith.constant 0 : index
      %dim_25 = tensor.dim %3, %c0_24 : tensor<?x4xf32>
      %23 = arith.cmpi eq, %dim_25, %22 : index
      %c1_26 = arith.constant 1 : index
      %24 = arith.cmpi eq, %dim_25, %c1_26 : index
      %25 = arith.ori %24, %23 : i1
      cf.assert %25, "ratio_of_input: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %26 = scf.if %24 -> (tensor<?x4xf32>) {
        %28 = stablehlo.dynamic_broadcast_in_dim %3, %from_elements_23, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %28 : tensor<?x4xf32>
      } else {
        %28 = stablehlo.dynamic_broadcast_in_dim %3, %from_elements_23, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %28 : tensor<?x4xf32>
      }
      %27 = stablehlo.divide %20, %26 : tensor<?x4xf32>
      shape.assuming_yield %27 : tensor<?x4xf32>
    }
    return %14 : tensor<?x4xf32>
  }
}
