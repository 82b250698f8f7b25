// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {






























































































































































































































































  func.func @wrapped_range_sum(%arg0: tensor<i32>) -> tensor<i32> {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c_0 = stablehlo.constant dense<8> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.subtract %arg0, %c_2 : tensor<i32>
    %1 = stablehlo.abs %0 : tensor<i32>
    %2 = stablehlo.convert %1 : (tensor<i32>) -> tensor<f64>
    %3 = stablehlo.divide %2, %cst : tensor<f64>
    %4 = stablehlo.ceil %3 : tensor<f64>
    %5 = stablehlo.convert %4 : (tensor<f64>) -> tensor<i64>
    %6 = stablehlo.reshape %5 : (tensor<i64>) -> tensor<1xi64>
    %7 = stablehlo.dynamic_iota %6, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>
    %8 = shape.shape_of %7 : tensor<?xi32> -> tensor<1xindex>
    %9 = stablehlo.dynamic_broadcast_in_dim %c_1, %8, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %10 = stablehlo.multiply %7, %9 : tensor<?xi32>
    %11 = shape.shape_of %10 : tensor<?xi32> -> tensor<1xindex>
    %12 = stablehlo.dynamic_broadcast_in_dim %c_2, %11, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %13 = stablehlo.add %10, %12 : tensor<?xi32>
    %14 = shape.shape_of %13 : tensor<?xi32> -> tensor<1xindex>
    %15 = stablehlo.dynamic_broadcast_in_dim %c_0, %14, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %16 = stablehlo.remainder %13, %15 : tensor<?xi32>
    %17 = shape.shape_of %16 : tensor<?xi32> -> tensor<1xindex>
    %18 = shape.shape_of %16 : tensor<?xi32> -> tensor<1xindex>
    %19 = shape.shape_of %16 : tensor<?xi32> -> tensor<1xindex>
    %20 = stablehlo.dynamic_broadcast_in_dim %c_2, %17, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %21 = stablehlo.compare NE, %16, %20 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
    %22 = stablehlo.dynamic_broadcast_in_dim %c_2, %18, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %23 = stablehlo.compare LT, %16, %22 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
    %24 = stablehlo.dynamic_broadcast_in_dim %c_0, %19, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %25 = stablehlo.add %16, %24 : tensor<?xi32>
    %26 = shape.shape_of %23 : tensor<?xi1> -> tensor<1xindex>
    %27 = stablehlo.dynamic_broadcast_in_dim %c, %26, dims = [] : (tensor<i1>, tensor<1xindex>) -> tensor<?xi1>
    %28 = stablehlo.compare NE, %27, %23 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %21, %c0 : tensor<?xi1>
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %28, %c0_3 : tensor<?xi1>
    %c1 = arith.constant 1 : index
    %29 = arith.cmpi eq, %dim, %c1 : index
    %30 = arith.select %29, %dim_4, %dim : index
    %c1_5 = arith.constant 1 : index
    %c0_6 = arith.constant 0 : index
    %dim_7 = tensor.dim %21, %c0_6 : tensor<?xi1>
    %31 = arith.cmpi eq, %dim_7, %c1_5 : index
    %32 = arith.cmpi eq, %dim_7, %30 : index
    %33 = arith.ori %31, %32 : i1
    %c0_8 = arith.constant 0 : index
    %dim_9 = tensor.dim %28, %c0_8 : tensor<?xi1>
    %34 = arith.cmpi eq, %dim_9, %c1_5 : index
    %35 = arith.cmpi eq, %dim_9, %30 : index
    %36 = arith.ori %34, %35 : i1
    %37 = arith.andi %33, %36 : i1
    cf.assert %37, "wrapped_range_sum: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %38 = shape.const_witness true
    %39 = shape.assuming %38 -> (tensor<?xi1>) {
      %c0_10 = arith.constant 0 : index
      %dim_11 = tensor.dim %21, %c0_10 : tensor<?xi1>
      %c0_12 = arith.constant 0 : index
      %dim_13 = tensor.dim %28, %c0_12 : tensor<?xi1>
      %c1_14 = arith.constant 1 : index
      %42 = arith.cmpi eq, %dim_11, %c1_14 : index
      %43 = arith.select %42, %dim_13, %dim_11 : index
      %from_elements = tensor.from_elements %43 : tensor<1xindex>
      %c0_15 = arith.constant 0 : index
      %dim_16 = tensor.dim %21, %c0_15 : tensor<?xi1>
      %44 = arith.cmpi eq, %dim_16, %43 : index
      %c1_17 = arith.constant 1 : index
      %45 = arith.cmpi eq, %dim_16, %c1_17 : index
      %46 = arith.ori %45, %44 : i1
      cf.assert %46, "wrapped_range_sum: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %47 = scf.if %45 -> (tensor<?xi1>) {
        %55 = stablehlo.dynamic_broadcast_in_dim %21, %from_elements, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %55 : tensor<?xi1>
      } else {
        %55 = stablehlo.dynamic_broadcast_in_dim %21, %from_elements, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %55 : tensor<?xi1>
      }
      %c0_18 = arith.constant 0 : index
      %dim_19 = tensor.dim %21, %c0_18 : tensor<?xi1>
      %c0_20 = arith.constant 0 : index
      %dim_21 = tensor.dim %28, %c0_20 : tensor<?xi1>
      %c1_22 = arith.constant 1 : index
      %48 = arith.cmpi eq, %dim_19, %c1_22 : index
      %49 = arith.select %48, %dim_21, %dim_19 : index
      %from_elements_23 = tensor.from_elements %49 : tensor<1xindex>
      %c0_24 = arith.constant 0 : index
      %dim_25 = tensor.dim %28, %c0_24 : tensor<?xi1>
      %50 = arith.cmpi eq, %dim_25, %49 : index
      %c1_26 = arith.constant 1 : index
      %51 = arith.cmpi eq, %dim_25, %c1_26 : index
      %52 = arith.ori %51, %50 : i1
      cf.assert %52, "wrapped_range_sum: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %53 = scf.if %51 -> (tensor<?xi1>) {
        %55 = stablehlo.dynamic_broadcast_in_dim %28, %from_elements_23, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %55 : tensor<?xi1>
      } else {
        %55 = stablehlo.dynamic_broadcast_in_dim %28, %from_elements_23, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %55 : tensor<?xi1>
      }
      %54 = stablehlo.and %47, %53 : tensor<?xi1>
      shape.assuming_yield %54 : tensor<?xi1>
    }
    %40 = stablehlo.select %39, %25, %16 : tensor<?xi1>, tensor<?xi32>
    %41 = stablehlo.reduce(%40 init: %c_2) applies stablehlo.add across dimensions = [0] : (tensor<?xi32>, tensor<i32>) -> tensor<i32>
    return %41 : tensor<i32>
  }
}
