// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  ml_program.global public mutable @"vars.__sm_node23__m.layer-1.size"(dense<0> : tensor<i32>) : tensor<i32>
  ml_program.global public mutable @"vars.__sm_node22__m.layer-1.head"(dense<0> : tensor<i32>) : tensor<i32>
  ml_program.global public mutable @"vars.__sm_node21__m.layer-1.buffer"(dense<0.000000e+00> : tensor<3x2xf32>) : tensor<3x2xf32>
  func.func @push(%arg0: tensor<1x2xf32>) -> tensor<1x3x2xf32> {
    %c = stablehlo.constant dense<0> : tensor<3xi32>
    %c_0 = stablehlo.constant dense<3> : tensor<3xi32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c_1 = stablehlo.constant dense<false> : tensor<i1>
    %c_2 = stablehlo.constant dense<true> : tensor<i1>
    %c_3 = stablehlo.constant dense<3> : tensor<i32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %c_6 = stablehlo.constant dense<[0, 1, 2]> : tensor<3xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %vars.__sm_node23__m.layer-1.size = ml_program.global_load @"vars.__sm_node23__m.layer-1.size" : tensor<i32>
    %vars.__sm_node23__m.layer-1.size_7 = ml_program.global_load @"vars.__sm_node23__m.layer-1.size" : tensor<i32>
    %vars.__sm_node22__m.layer-1.head = ml_program.global_load @"vars.__sm_node22__m.layer-1.head" : tensor<i32>
    %0 = stablehlo.add %vars.__sm_node23__m.layer-1.size, %c_4 : tensor<i32>
    %1 = stablehlo.compare LE, %0, %c_3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.add %vars.__sm_node22__m.layer-1.head, %vars.__sm_node23__m.layer-1.size_7 : tensor<i32>
    %3 = stablehlo.add %2, %c_4 : tensor<i32>
    %4 = stablehlo.subtract %3, %2 : tensor<i32>
    %5 = stablehlo.abs %4 : tensor<i32>
    %6 = stablehlo.convert %5 : (tensor<i32>) -> tensor<f64>
    %7 = stablehlo.divide %6, %cst : tensor<f64>
    %8 = stablehlo.ceil %7 : tensor<f64>
    %9 = stablehlo.convert %8 : (tensor<f64>) -> tensor<i64>
    %10 = stablehlo.reshape %9 : (tensor<i64>) -> tensor<1xi64>
    %11 = stablehlo.dynamic_iota %10, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>
    %12 = shape.shape_of %11 : tensor<?xi32> -> tensor<1xindex>
    %13 = stablehlo.dynamic_broadcast_in_dim %c_4, %12, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %14 = stablehlo.multiply %11, %13 : tensor<?xi32>
    %15 = shape.shape_of %14 : tensor<?xi32> -> tensor<1xindex>
    %16 = stablehlo.dynamic_broadcast_in_dim %2, %15, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %17 = stablehlo.add %14, %16 : tensor<?xi32>
    %18 = shape.shape_of %17 : tensor<?xi32> -> tensor<1xindex>
    %19 = stablehlo.dynamic_broadcast_in_dim %c_3, %18, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %20 = stablehlo.remainder %17, %19 : tensor<?xi32>
    %21 = shape.shape_of %20 : tensor<?xi32> -> tensor<1xindex>
    %22 = shape.shape_of %20 : tensor<?xi32> -> tensor<1xindex>
    %23 = shape.shape_of %20 : tensor<?xi32> -> tensor<1xindex>
    %24 = stablehlo.dynamic_broadcast_in_dim %c_5, %21, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %25 = stablehlo.compare NE, %20, %24 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
    %26 = stablehlo.dynamic_broadcast_in_dim %c_5, %22, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %27 = stablehlo.compare LT, %20, %26 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
    %28 = stablehlo.dynamic_broadcast_in_dim %c_3, %23, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
    %29 = stablehlo.add %20, %28 : tensor<?xi32>
    %30 = shape.shape_of %27 : tensor<?xi1> -> tensor<1xindex>
    %31 = stablehlo.dynamic_broadcast_in_dim %c_1, %30, dims = [] : (tensor<i1>, tensor<1xindex>) -> tensor<?xi1>
    %32 = stablehlo.compare NE, %31, %27 : (tensor<?xi1>, tensor<?xi1>) -> tensor<?xi1>
    %c0_8 = arith.constant 0 : index
    %dim = tensor.dim %25, %c0_8 : tensor<?xi1>
    %c0_9 = arith.constant 0 : index
    %dim_10 = tensor.dim %32, %c0_9 : tensor<?xi1>
    %c1_11 = arith.constant 1 : index
    %33 = arith.cmpi eq, %dim, %c1_11 : index
    %34 = arith.select %33, %dim_10, %dim : index
    %c1_12 = arith.constant 1 : index
    %c0_13 = arith.constant 0 : index
    %dim_14 = tensor.dim %25, %c0_13 : tensor<?xi1>
    %35 = arith.cmpi eq, %dim_14, %c1_12 : index
    %36 = arith.cmpi eq, %dim_14, %34 : index
    %37 = arith.ori %35, %36 : i1
    %c0_15 = arith.constant 0 : index
    %dim_16 = tensor.dim %32, %c0_15 : tensor<?xi1>
    %38 = arith.cmpi eq, %dim_16, %c1_12 : index
    %39 = arith.cmpi eq, %dim_16, %34 : index
    %40 = arith.ori %38, %39 : i1
    %41 = arith.andi %37, %40 : i1
    cf.assert %41, "push: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %42 = shape.const_witness true
    %43 = shape.assuming %42 -> (tensor<?xi1>) {
      %c0_18 = arith.constant 0 : index
      %dim_19 = tensor.dim %25, %c0_18 : tensor<?xi1>
      %c0_20 = arith.constant 0 : index
      %dim_21 = tensor.dim %32, %c0_20 : tensor<?xi1>
      %c1_22 = arith.constant 1 : index
      %56 = arith.cmpi eq, %dim_19, %c1_22 : index
      %57 = arith.select %56, %dim_21, %dim_19 : index
      %from_elements = tensor.from_elements %57 : tensor<1xindex>
      %c0_23 = arith.constant 0 : index
      %dim_24 = tensor.dim %25, %c0_23 : tensor<?xi1>
      %58 = arith.cmpi eq, %dim_24, %57 : index
      %c1_25 = arith.constant 1 : index
      %59 = arith.cmpi eq, %dim_24, %c1_25 : index
      %60 = arith.ori %59, %58 : i1
      cf.assert %60, "push: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %61 = scf.if %59 -> (tensor<?xi1>) {
        %69 = stablehlo.dynamic_broadcast_in_dim %25, %from_elements, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %69 : tensor<?xi1>
      } else {
        %69 = stablehlo.dynamic_broadcast_in_dim %25, %from_elements, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %69 : tensor<?xi1>
      }
      %c0_26 = arith.constant 0 : index
      %dim_27 = tensor.dim %25, %c0_26 : tensor<?xi1>
      %c0_28 = arith.constant 0 : index
      %dim_29 = tensor.dim %32, %c0_28 : tensor<?xi1>
      %c1_30 = arith.constant 1 : index
      %62 = arith.cmpi eq, %dim_27, %c1_30 : index
      %63 = arith.select %62, %dim_29, %dim_27 : index
      %from_elements_31 = tensor.from_elements %63 : tensor<1xindex>
      %c0_32 = arith.constant 0 : index
      %dim_33 = tensor.dim %32, %c0_32 : tensor<?xi1>
      %64 = arith.cmpi eq, %dim_33, %63 : index
      %c1_34 = arith.constant 1 : index
      %65 = arith.cmpi eq, %dim_33, %c1_34 : index
      %66 = arith.ori %65, %64 : i1
      cf.assert %66, "push: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %67 = scf.if %65 -> (tensor<?xi1>) {
        %69 = stablehlo.dynamic_broadcast_in_dim %32, %from_elements_31, dims = [0] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %69 : tensor<?xi1>
      } else {
        %69 = stablehlo.dynamic_broadcast_in_dim %32, %from_elements_31, dims = [0] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xi1>, tensor<1xindex>) -> tensor<?xi1>
        scf.yield %69 : tensor<?xi1>
      }
      %68 = stablehlo.and %61, %67 : tensor<?xi1>
      shape.assuming_yield %68 : tensor<?xi1>
    }
    %44 = stablehlo.select %43, %29, %20 : tensor<?xi1>, tensor<?xi32>
    %45 = "stablehlo.if"(%1) ({
      %vars.__sm_node23__m.layer-1.size_18 = ml_program.global_load @"vars.__sm_node23__m.layer-1.size" : tensor<i32>
      %vars.__sm_node21__m.layer-1.buffer_19 = ml_program.global_load @"vars.__sm_node21__m.layer-1.buffer" : tensor<3x2xf32>
      %56 = stablehlo.add %vars.__sm_node23__m.layer-1.size_18, %c_4 : tensor<i32>
      ml_program.global_store @"vars.__sm_node23__m.layer-1.size" = %56 : tensor<i32>
      %dim_20 = tensor.dim %44, %c0 : tensor<?xi32>
      %from_elements = tensor.from_elements %dim_20, %c1 : tensor<2xindex>
      %c0_21 = arith.constant 0 : index
      %dim_22 = tensor.dim %44, %c0_21 : tensor<?xi32>
      %expanded = tensor.expand_shape %44 [[0, 1]] output_shape [%dim_22, 1] : tensor<?xi32> into tensor<?x1xi32>
      %57 = "stablehlo.scatter"(%vars.__sm_node21__m.layer-1.buffer_19, %expanded, %arg0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        stablehlo.return %arg2 : tensor<f32>
      }) : (tensor<3x2xf32>, tensor<?x1xi32>, tensor<1x2xf32>) -> tensor<3x2xf32>
      ml_program.global_store @"vars.__sm_node21__m.layer-1.buffer" = %57 : tensor<3x2xf32>
      stablehlo.return %c_2 : tensor<i1>
    }, {
      %vars.__sm_node22__m.layer-1.head_18 = ml_program.global_load @"vars.__sm_node22__m.layer-1.head" : tensor<i32>
      %vars.__sm_node21__m.layer-1.buffer_19 = ml_program.global_load @"vars.__sm_node21__m.layer-1.buffer" : tensor<3x2xf32>
      %56 = stablehlo.add %vars.__sm_node22__m.layer-1.head_18, %c_4 : tensor<i32>
      %57 = stablehlo.remainder %56, %c_3 : tensor<i32>
      %58 = stablehlo.compare NE, %57, %c_5 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %59 = stablehlo.compare LT, %57, %c_5 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %60 = stablehlo.and %58, %59 : tensor<i1>
      %61 = stablehlo.add %57, %c_3 : tensor<i32>
      %62 = stablehlo.select %60, %61, %57 : tensor<i1>, tensor<i32>
      ml_program.global_store @"vars.__sm_node22__m.layer-1.head" = %62 : tensor<i32>
      %dim_20 = tensor.dim %44, %c0 : tensor<?xi32>
      %from_elements = tensor.from_elements %dim_20, %c1 : tensor<2xindex>
      %c0_21 = arith.constant 0 : index
      %dim_22 = tensor.dim %44, %c0_21 : tensor<?xi32>
      %expanded = tensor.expand_shape %44 [[0, 1]] output_shape [%dim_22, 1] : tensor<?xi32> into tensor<?x1xi32>
      %63 = "stablehlo.scatter"(%vars.__sm_node21__m.layer-1.buffer_19, %expanded, %arg0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
      ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
        stablehlo.return %arg2 : tensor<f32>
      }) : (tensor<3x2xf32>, tensor<?x1xi32>, tensor<1x2xf32>) -> tensor<3x2xf32>
      ml_program.global_store @"vars.__sm_node21__m.layer-1.buffer" = %63 : tensor<3x2xf32>
      stablehlo.return %c_1 : tensor<i1>
    }) : (tensor<i1>) -> tensor<i1>
    %vars.__sm_node22__m.layer-1.head_17 = ml_program.global_load @"vars.__sm_node22__m.layer-1.head" : tensor<i32>
    %vars.__sm_node21__m.layer-1.buffer = ml_program.global_load @"vars.__sm_node21__m.layer-1.buffer" : tensor<3x2xf32>
    %46 = stablehlo.broadcast_in_dim %vars.__sm_node22__m.layer-1.head_17, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %47 = stablehlo.add %46, %c_6 : tensor<3xi32>
    %48 = stablehlo.remainder %47, %c_0 : tensor<3xi32>
    %49 = stablehlo.compare NE, %48, %c : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %50 = stablehlo.compare LT, %48, %c : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %51 = stablehlo.and %49, %50 : tensor<3xi1>
    %52 = stablehlo.add %48, %c_0 : tensor<3xi32>
    %53 = stablehlo.select %51, %52, %48 : tensor<3xi1>, tensor<3xi32>
    %54 = "stablehlo.torch_index_select"(%vars.__sm_node21__m.layer-1.buffer, %53) <{batch_dims = 0 : i64, dim = 0 : i64}> : (tensor<3x2xf32>, tensor<3xi32>) -> tensor<3x2xf32>
    %55 = stablehlo.reshape %54 : (tensor<3x2xf32>) -> tensor<1x3x2xf32>
    return %55 : tensor<1x3x2xf32>
  }
}
