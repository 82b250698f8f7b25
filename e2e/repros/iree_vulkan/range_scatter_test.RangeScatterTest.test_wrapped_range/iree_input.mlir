// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {







































































































































  func.func @wrapped_range(%arg0: tensor<i32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<8> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.subtract %arg0, %c_2 : tensor<i32>
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
    %9 = stablehlo.dynamic_broadcast_in_dim %c_0, %8, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %10 = stablehlo.multiply %7, %9 : tensor<?xi32>
    %11 = shape.shape_of %10 : tensor<?xi32> -> tensor<1xindex>
    %12 = stablehlo.dynamic_broadcast_in_dim %c_2, %11, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %13 = stablehlo.add %10, %12 : tensor<?xi32>
    %14 = stablehlo.convert %13 : (tensor<?xi32>) -> tensor<?xf32>
    %15 = shape.shape_of %13 : tensor<?xi32> -> tensor<1xindex>
    %16 = stablehlo.dynamic_broadcast_in_dim %c_1, %15, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %17 = stablehlo.remainder %13, %16 : tensor<?xi32>
    %18 = shape.shape_of %17 : tensor<?xi32> -> tensor<1xindex>
    %19 = shape.shape_of %17 : tensor<?xi32> -> tensor<1xindex>
    %20 = shape.shape_of %17 : tensor<?xi32> -> tensor<1xindex>
    %21 = stablehlo.dynamic_broadcast_in_dim %c_2, %18, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %22 = stablehlo.compare NE, %17, %21 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
    %23 = stablehlo.dynamic_broadcast_in_dim %c_2, %19, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %24 = stablehlo.compare LT, %17, %23 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
    %25 = stablehlo.dynamic_broadcast_in_dim %c_1, %20, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %26 = stablehlo.add %17, %25 : tensor<?xi32>
    %27 = shape.shape_of %24 : tensor<?xi1> -> tensor<1xindex>
    %28 = stablehlo.dynamic_broadcast_in_dim %c, %27, dims = [] : (tensor<i1>, tensor<1xindex>) -> tensor<?xi1>
    %29 = stablehlo.compare NE, %28, %24 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0_3 = arith.constant 0 : index
    %dim = tensor.dim %22, %c0_3 : tensor<?xi1>
    %c0_4 = arith.constant 0 : index
    %dim_5 = tensor.dim %29, %c0_4 : tensor<?xi1>
    %c1_6 = arith.constant 1 : index
    %30 = arith.cmpi eq, %dim, %c1_6 : index
    %31 = arith.select %30, %dim_5, %dim : index
    %c1_7 = arith.constant 1 : index
    %c0_8 = arith.constant 0 : index
    %dim_9 = tensor.dim %22, %c0_8 : tensor<?xi1>
    %32 = arith.cmpi eq, %dim_9, %c1_7 : index
    %33 = arith.cmpi eq, %dim_9, %31 : index
    %34 = arith.ori %32, %33 : i1
    %c0_10 = arith.constant 0 : index
    %dim_11 = tensor.dim %29, %c0_10 : tensor<?xi1>
    %35 = arith.cmpi eq, %dim_11, %c1_7 : index
    %36 = arith.cmpi eq, %dim_11, %31 : index
    %37 = arith.ori %35, %36 : i1
    %38 = arith.andi %34, %37 : i1
    cf.assert %38, "wrapped_range: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %39 = shape.const_witness true
    %40 = shape.assuming %39 -> (tensor<?xi1>) {
      %c0_15 = arith.constant 0 : index
      %dim_16 = tensor.dim %22, %c0_15 : tensor<?xi1>
      %c0_17 = arith.constant 0 : index
      %dim_18 = tensor.dim %29, %c0_17 : tensor<?xi1>
      %c1_19 = arith.constant 1 : index
      %43 = arith.cmpi eq, %dim_16, %c1_19 : index
      %44 = arith.select %43, %dim_18, %dim_16 : index
      %from_elements_20 = tensor.from_elements %44 : tensor<1xindex>
      %c0_21 = arith.constant 0 : index
      %dim_22 = tensor.dim %22, %c0_21 : tensor<?xi1>
      %45 = arith.cmpi eq, %dim_22, %44 : index
      %c1_23 = arith.constant 1 : index
      %46 = arith.cmpi eq, %dim_22, %c1_23 : index
      %47 = arith.ori %46, %45 : i1
      cf.assert %47, "wrapped_range: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %48 = scf.if %46 -> (tensor<?xi1>) {
        %56 = stablehlo.dynamic_broadcast_in_dim %22, %from_elements_20, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %56 : tensor<?xi1>
      } else {
        %56 = stablehlo.dynamic_broadcast_in_dim %22, %from_elements_20, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %56 : tensor<?xi1>
      }
      %c0_24 = arith.constant 0 : index
      %dim_25 = tensor.dim %22, %c0_24 : tensor<?xi1>
      %c0_26 = arith.constant 0 : index
      %dim_27 = tensor.dim %29, %c0_26 : tensor<?xi1>
      %c1_28 = arith.constant 1 : index
      %49 = arith.cmpi eq, %dim_25, %c1_28 : index
      %50 = arith.select %49, %dim_27, %dim_25 : index
      %from_elements_29 = tensor.from_elements %50 : tensor<1xindex>
      %c0_30 = arith.constant 0 : index
      %dim_31 = tensor.dim %29, %c0_30 : tensor<?xi1>
      %51 = arith.cmpi eq, %dim_31, %50 : index
      %c1_32 = arith.constant 1 : index
      %52 = arith.cmpi eq, %dim_31, %c1_32 : index
      %53 = arith.ori %52, %51 : i1
      cf.assert %53, "wrapped_range: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %54 = scf.if %52 -> (tensor<?xi1>) {
        %56 = stablehlo.dynamic_broadcast_in_dim %29, %from_elements_29, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %56 : tensor<?xi1>
      } else {
        %56 = stablehlo.dynamic_broadcast_in_dim %29, %from_elements_29, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %56 : tensor<?xi1>
      }
      %55 = stablehlo.and %48, %54 : tensor<?xi1>
      shape.assuming_yield %55 : tensor<?xi1>
    }
    %41 = stablehlo.select %40, %26, %17 : tensor<?xi1>, tensor<?xi32>
    %dim_12 = tensor.dim %41, %c0 : tensor<?xi32>
    %from_elements = tensor.from_elements %dim_12, %c1 : tensor<2xindex>
    %c0_13 = arith.constant 0 : index
    %dim_14 = tensor.dim %41, %c0_13 : tensor<?xi32>
    %expanded = tensor.expand_shape %41 [[0, 1]] output_shape [%dim_14, 1] : tensor<?xi32> into tensor<?x1xi32>
    %42 = "stablehlo.scatter"(%arg1, %expanded, %14) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      stablehlo.return %arg3 : tensor<f32>
    }) : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
    return %42 : tensor<8xf32>
  }












































































































}
