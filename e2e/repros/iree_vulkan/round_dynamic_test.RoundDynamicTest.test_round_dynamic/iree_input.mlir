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
  func.func @round_dynamic(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.floor %arg0 : tensor<?x4xf32>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x4xf32>
    %c0_3 = arith.constant 0 : index
    %dim_4 = tensor.dim %0, %c0_3 : tensor<?x4xf32>
    %c1 = arith.constant 1 : index
    %1 = arith.cmpi eq, %dim, %c1 : index
    %2 = arith.select %1, %dim_4, %dim : index
    %c1_5 = arith.constant 1 : index
    %c0_6 = arith.constant 0 : index
    %dim_7 = tensor.dim %arg0, %c0_6 : tensor<?x4xf32>
    %3 = arith.cmpi eq, %dim_7, %c1_5 : index
    %4 = arith.cmpi eq, %dim_7, %2 : index
    %5 = arith.ori %3, %4 : i1
    %c0_8 = arith.constant 0 : index
    %dim_9 = tensor.dim %0, %c0_8 : tensor<?x4xf32>
    %6 = arith.cmpi eq, %dim_9, %c1_5 : index
    %7 = arith.cmpi eq, %dim_9, %2 : index
    %8 = arith.ori %6, %7 : i1
    %9 = arith.andi %5, %8 : i1
    cf.assert %9, "round_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %10 = shape.const_witness true
    %11 = shape.assuming %10 -> (tensor<?x4xf32>) {
      %c0_64 = arith.constant 0 : index
      %dim_65 = tensor.dim %arg0, %c0_64 : tensor<?x4xf32>
      %c0_66 = arith.constant 0 : index
      %dim_67 = tensor.dim %0, %c0_66 : tensor<?x4xf32>
      %c1_68 = arith.constant 1 : index
      %97 = arith.cmpi eq, %dim_65, %c1_68 : index
      %98 = arith.select %97, %dim_67, %dim_65 : index
      %c4 = arith.constant 4 : index
      %c1_69 = arith.constant 1 : index
      %from_elements = tensor.from_elements %98, %c4 : tensor<2xindex>
      %c0_70 = arith.constant 0 : index
      %dim_71 = tensor.dim %arg0, %c0_70 : tensor<?x4xf32>
      %99 = arith.cmpi eq, %dim_71, %98 : index
      %c1_72 = arith.constant 1 : index
      %100 = arith.cmpi eq, %dim_71, %c1_72 : index
      %101 = arith.ori %100, %99 : i1
      cf.assert %101, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %102 = scf.if %100 -> (tensor<?x4xf32>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %arg0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      }
      %c0_73 = arith.constant 0 : index
      %dim_74 = tensor.dim %arg0, %c0_73 : tensor<?x4xf32>
      %c0_75 = arith.constant 0 : index
      %dim_76 = tensor.dim %0, %c0_75 : tensor<?x4xf32>
      %c1_77 = arith.constant 1 : index
      %103 = arith.cmpi eq, %dim_74, %c1_77 : index
      %104 = arith.select %103, %dim_76, %dim_74 : index
      %c4_78 = arith.constant 4 : index
      %c1_79 = arith.constant 1 : index
      %from_elements_80 = tensor.from_elements %104, %c4_78 : tensor<2xindex>
      %c0_81 = arith.constant 0 : index
      %dim_82 = tensor.dim %0, %c0_81 : tensor<?x4xf32>
      %105 = arith.cmpi eq, %dim_82, %104 : index
      %c1_83 = arith.constant 1 : index
      %106 = arith.cmpi eq, %dim_82, %c1_83 : index
      %107 = arith.ori %106, %105 : i1
      cf.assert %107, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %108 = scf.if %106 -> (tensor<?x4xf32>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      }
      %109 = stablehlo.subtract %102, %108 : tensor<?x4xf32>
      shape.assuming_yield %109 : tensor<?x4xf32>
    }
    %12 = shape.shape_of %11 : tensor<?x4xf32> -> tensor<2xindex>
    %13 = shape.shape_of %11 : tensor<?x4xf32> -> tensor<2xindex>
    %14 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
    %15 = shape.shape_of %0 : tensor<?x4xf32> -> tensor<2xindex>
    %16 = stablehlo.dynamic_broadcast_in_dim %cst_1, %12, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %17 = stablehlo.compare GT, %11, %16 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %18 = stablehlo.dynamic_broadcast_in_dim %cst_1, %13, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %19 = stablehlo.compare EQ, %11, %18 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %20 = stablehlo.dynamic_broadcast_in_dim %cst_1, %14, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %21 = stablehlo.multiply %arg0, %20 : tensor<?x4xf32>
    %22 = stablehlo.floor %21 : tensor<?x4xf32>
    %23 = stablehlo.dynamic_broadcast_in_dim %cst, %15, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %24 = stablehlo.add %0, %23 : tensor<?x4xf32>
    %25 = shape.shape_of %22 : tensor<?x4xf32> -> tensor<2xindex>
    %26 = stablehlo.dynamic_broadcast_in_dim %cst_0, %25, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %27 = stablehlo.multiply %22, %26 : tensor<?x4xf32>
    %c0_10 = arith.constant 0 : index
    %dim_11 = tensor.dim %0, %c0_10 : tensor<?x4xf32>
    %c0_12 = arith.constant 0 : index
    %dim_13 = tensor.dim %27, %c0_12 : tensor<?x4xf32>
    %c1_14 = arith.constant 1 : index
    %28 = arith.cmpi eq, %dim_11, %c1_14 : index
    %29 = arith.select %28, %dim_13, %dim_11 : index
    %c1_15 = arith.constant 1 : index
    %c0_16 = arith.constant 0 : index
    %dim_17 = tensor.dim %0, %c0_16 : tensor<?x4xf32>
    %30 = arith.cmpi eq, %dim_17, %c1_15 : index
    %31 = arith.cmpi eq, %dim_17, %29 : index
    %32 = arith.ori %30, %31 : i1
    %c0_18 = arith.constant 0 : index
    %dim_19 = tensor.dim %27, %c0_18 : tensor<?x4xf32>
    %33 = arith.cmpi eq, %dim_19, %c1_15 : index
    %34 = arith.cmpi eq, %dim_19, %29 : index
    %35 = arith.ori %33, %34 : i1
    %36 = arith.andi %32, %35 : i1
    cf.assert %36, "round_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %37 = shape.const_witness true
    %38 = shape.assuming %37 -> (tensor<?x4xf32>) {
      %c0_64 = arith.constant 0 : index
      %dim_65 = tensor.dim %0, %c0_64 : tensor<?x4xf32>
      %c0_66 = arith.constant 0 : index
      %dim_67 = tensor.dim %27, %c0_66 : tensor<?x4xf32>
      %c1_68 = arith.constant 1 : index
      %97 = arith.cmpi eq, %dim_65, %c1_68 : index
      %98 = arith.select %97, %dim_67, %dim_65 : index
      %c4 = arith.constant 4 : index
      %c1_69 = arith.constant 1 : index
      %from_elements = tensor.from_elements %98, %c4 : tensor<2xindex>
      %c0_70 = arith.constant 0 : index
      %dim_71 = tensor.dim %0, %c0_70 : tensor<?x4xf32>
      %99 = arith.cmpi eq, %dim_71, %98 : index
      %c1_72 = arith.constant 1 : index
      %100 = arith.cmpi eq, %dim_71, %c1_72 : index
      %101 = arith.ori %100, %99 : i1
      cf.assert %101, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %102 = scf.if %100 -> (tensor<?x4xf32>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      }
      %c0_73 = arith.constant 0 : index
      %dim_74 = tensor.dim %0, %c0_73 : tensor<?x4xf32>
      %c0_75 = arith.constant 0 : index
      %dim_76 = tensor.dim %27, %c0_75 : tensor<?x4xf32>
      %c1_77 = arith.constant 1 : index
      %103 = arith.cmpi eq, %dim_74, %c1_77 : index
      %104 = arith.select %103, %dim_76, %dim_74 : index
      %c4_78 = arith.constant 4 : index
      %c1_79 = arith.constant 1 : index
      %from_elements_80 = tensor.from_elements %104, %c4_78 : tensor<2xindex>
      %c0_81 = arith.constant 0 : index
      %dim_82 = tensor.dim %27, %c0_81 : tensor<?x4xf32>
      %105 = arith.cmpi eq, %dim_82, %104 : index
      %c1_83 = arith.constant 1 : index
      %106 = arith.cmpi eq, %dim_82, %c1_83 : index
      %107 = arith.ori %106, %105 : i1
      cf.assert %107, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %108 = scf.if %106 -> (tensor<?x4xf32>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %27, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %27, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %110 : tensor<?x4xf32>
      }
      %109 = stablehlo.subtract %102, %108 : tensor<?x4xf32>
      shape.assuming_yield %109 : tensor<?x4xf32>
    }
    %39 = shape.shape_of %38 : tensor<?x4xf32> -> tensor<2xindex>
    %40 = stablehlo.dynamic_broadcast_in_dim %cst, %39, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %41 = stablehlo.compare EQ, %38, %40 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %c0_20 = arith.constant 0 : index
    %dim_21 = tensor.dim %19, %c0_20 : tensor<?x4xi1>
    %c0_22 = arith.constant 0 : index
    %dim_23 = tensor.dim %41, %c0_22 : tensor<?x4xi1>
    %c1_24 = arith.constant 1 : index
    %42 = arith.cmpi eq, %dim_21, %c1_24 : index
    %43 = arith.select %42, %dim_23, %dim_21 : index
    %c1_25 = arith.constant 1 : index
    %c0_26 = arith.constant 0 : index
    %dim_27 = tensor.dim %19, %c0_26 : tensor<?x4xi1>
    %44 = arith.cmpi eq, %dim_27, %c1_25 : index
    %45 = arith.cmpi eq, %dim_27, %43 : index
    %46 = arith.ori %44, %45 : i1
    %c0_28 = arith.constant 0 : index
    %dim_29 = tensor.dim %41, %c0_28 : tensor<?x4xi1>
    %47 = arith.cmpi eq, %dim_29, %c1_25 : index
    %48 = arith.cmpi eq, %dim_29, %43 : index
    %49 = arith.ori %47, %48 : i1
    %50 = arith.andi %46, %49 : i1
    cf.assert %50, "round_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %51 = shape.const_witness true
    %52 = shape.assuming %51 -> (tensor<?x4xi1>) {
      %c0_64 = arith.constant 0 : index
      %dim_65 = tensor.dim %19, %c0_64 : tensor<?x4xi1>
      %c0_66 = arith.constant 0 : index
      %dim_67 = tensor.dim %41, %c0_66 : tensor<?x4xi1>
      %c1_68 = arith.constant 1 : index
      %97 = arith.cmpi eq, %dim_65, %c1_68 : index
      %98 = arith.select %97, %dim_67, %dim_65 : index
      %c4 = arith.constant 4 : index
      %c1_69 = arith.constant 1 : index
      %from_elements = tensor.from_elements %98, %c4 : tensor<2xindex>
      %c0_70 = arith.constant 0 : index
      %dim_71 = tensor.dim %19, %c0_70 : tensor<?x4xi1>
      %99 = arith.cmpi eq, %dim_71, %98 : index
      %c1_72 = arith.constant 1 : index
      %100 = arith.cmpi eq, %dim_71, %c1_72 : index
      %101 = arith.ori %100, %99 : i1
      cf.assert %101, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %102 = scf.if %100 -> (tensor<?x4xi1>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %19, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %19, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      }
      %c0_73 = arith.constant 0 : index
      %dim_74 = tensor.dim %19, %c0_73 : tensor<?x4xi1>
      %c0_75 = arith.constant 0 : index
      %dim_76 = tensor.dim %41, %c0_75 : tensor<?x4xi1>
      %c1_77 = arith.constant 1 : index
      %103 = arith.cmpi eq, %dim_74, %c1_77 : index
      %104 = arith.select %103, %dim_76, %dim_74 : index
      %c4_78 = arith.constant 4 : index
      %c1_79 = arith.constant 1 : index
      %from_elements_80 = tensor.from_elements %104, %c4_78 : tensor<2xindex>
      %c0_81 = arith.constant 0 : index
      %dim_82 = tensor.dim %41, %c0_81 : tensor<?x4xi1>
      %105 = arith.cmpi eq, %dim_82, %104 : index
      %c1_83 = arith.constant 1 : index
      %106 = arith.cmpi eq, %dim_82, %c1_83 : index
      %107 = arith.ori %106, %105 : i1
      cf.assert %107, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %108 = scf.if %106 -> (tensor<?x4xi1>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %41, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %41, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      }
      %109 = stablehlo.and %102, %108 : tensor<?x4xi1>
      shape.assuming_yield %109 : tensor<?x4xi1>
    }
    %c0_30 = arith.constant 0 : index
    %dim_31 = tensor.dim %17, %c0_30 : tensor<?x4xi1>
    %c0_32 = arith.constant 0 : index
    %dim_33 = tensor.dim %52, %c0_32 : tensor<?x4xi1>
    %c1_34 = arith.constant 1 : index
    %53 = arith.cmpi eq, %dim_31, %c1_34 : index
    %54 = arith.select %53, %dim_33, %dim_31 : index
    %c1_35 = arith.constant 1 : index
    %c0_36 = arith.constant 0 : index
    %dim_37 = tensor.dim %17, %c0_36 : tensor<?x4xi1>
    %55 = arith.cmpi eq, %dim_37, %c1_35 : index
    %56 = arith.cmpi eq, %dim_37, %54 : index
    %57 = arith.ori %55, %56 : i1
    %c0_38 = arith.constant 0 : index
    %dim_39 = tensor.dim %52, %c0_38 : tensor<?x4xi1>
    %58 = arith.cmpi eq, %dim_39, %c1_35 : index
    %59 = arith.cmpi eq, %dim_39, %54 : index
    %60 = arith.ori %58, %59 : i1
    %61 = arith.andi %57, %60 : i1
    cf.assert %61, "round_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %62 = shape.const_witness true
    %63 = shape.assuming %62 -> (tensor<?x4xi1>) {
      %c0_64 = arith.constant 0 : index
      %dim_65 = tensor.dim %17, %c0_64 : tensor<?x4xi1>
      %c0_66 = arith.constant 0 : index
      %dim_67 = tensor.dim %52, %c0_66 : tensor<?x4xi1>
      %c1_68 = arith.constant 1 : index
      %97 = arith.cmpi eq, %dim_65, %c1_68 : index
      %98 = arith.select %97, %dim_67, %dim_65 : index
      %c4 = arith.constant 4 : index
      %c1_69 = arith.constant 1 : index
      %from_elements = tensor.from_elements %98, %c4 : tensor<2xindex>
      %c0_70 = arith.constant 0 : index
      %dim_71 = tensor.dim %17, %c0_70 : tensor<?x4xi1>
      %99 = arith.cmpi eq, %dim_71, %98 : index
      %c1_72 = arith.constant 1 : index
      %100 = arith.cmpi eq, %dim_71, %c1_72 : index
      %101 = arith.ori %100, %99 : i1
      cf.assert %101, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %102 = scf.if %100 -> (tensor<?x4xi1>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %17, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %17, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      }
      %c0_73 = arith.constant 0 : index
      %dim_74 = tensor.dim %17, %c0_73 : tensor<?x4xi1>
      %c0_75 = arith.constant 0 : index
      %dim_76 = tensor.dim %52, %c0_75 : tensor<?x4xi1>
      %c1_77 = arith.constant 1 : index
      %103 = arith.cmpi eq, %dim_74, %c1_77 : index
      %104 = arith.select %103, %dim_76, %dim_74 : index
      %c4_78 = arith.constant 4 : index
      %c1_79 = arith.constant 1 : index
      %from_elements_80 = tensor.from_elements %104, %c4_78 : tensor<2xindex>
      %c0_81 = arith.constant 0 : index
      %dim_82 = tensor.dim %52, %c0_81 : tensor<?x4xi1>
      %105 = arith.cmpi eq, %dim_82, %104 : index
      %c1_83 = arith.constant 1 : index
      %106 = arith.cmpi eq, %dim_82, %c1_83 : index
      %107 = arith.ori %106, %105 : i1
      cf.assert %107, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %108 = scf.if %106 -> (tensor<?x4xi1>) {
        %110 = stablehlo.dynamic_broadcast_in_dim %52, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      } else {
        %110 = stablehlo.dynamic_broadcast_in_dim %52, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %110 : tensor<?x4xi1>
      }
      %109 = stablehlo.or %102, %108 : tensor<?x4xi1>
      shape.assuming_yield %109 : tensor<?x4xi1>
    }
    %c0_40 = arith.constant 0 : index
    %dim_41 = tensor.dim %63, %c0_40 : tensor<?x4xi1>
    %c0_42 = arith.constant 0 : index
    %dim_43 = tensor.dim %24, %c0_42 : tensor<?x4xf32>
    %c0_44 = arith.constant 0 : index
    %dim_45 = tensor.dim %0, %c0_44 : tensor<?x4xf32>
    %c1_46 = arith.constant 1 : index
    %64 = arith.cmpi eq, %dim_41, %c1_46 : index
    %65 = arith.select %64, %dim_43, %dim_41 : index
    %66 = arith.cmpi eq, %65, %c1_46 : index
    %67 = arith.select %66, %dim_45, %65 : index
    %c1_47 = arith.constant 1 : index
    %c0_48 = arith.constant 0 : index
    %dim_49 = tensor.dim %63, %c0_48 : tensor<?x4xi1>
    %68 = arith.cmpi eq, %dim_49, %c1_47 : index
    %69 = arith.cmpi eq, %dim_49, %67 : index
    %70 = arith.ori %68, %69 : i1
    %c0_50 = arith.constant 0 : index
    %dim_51 = tensor.dim %24, %c0_50 : tensor<?x4xf32>
    %71 = arith.cmpi eq, %dim_51, %c1_47 : index
    %72 = arith.cmpi eq, %dim_51, %67 : index
    %73 = arith.ori %71, %72 : i1
    %c0_52 = arith.constant 0 : index
    %dim_53 = tensor.dim %0, %c0_52 : tensor<?x4xf32>
    %74 = arith.cmpi eq, %dim_53, %c1_47 : index
    %75 = arith.cmpi eq, %dim_53, %67 : index
    %76 = arith.ori %74, %75 : i1
    %77 = arith.andi %70, %73 : i1
    %78 = arith.andi %77, %76 : i1
    cf.assert %78, "round_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %79 = shape.const_witness true
    %80 = shape.assuming %79 -> (tensor<?x4xf32>) {
      %c0_64 = arith.constant 0 : index
      %dim_65 = tensor.dim %63, %c0_64 : tensor<?x4xi1>
      %c0_66 = arith.constant 0 : index
      %dim_67 = tensor.dim %24, %c0_66 : tensor<?x4xf32>
      %c0_68 = arith.constant 0 : index
      %dim_69 = tensor.dim %0, %c0_68 : tensor<?x4xf32>
      %c1_70 = arith.constant 1 : index
      %97 = arith.cmpi eq, %dim_65, %c1_70 : index
      %98 = arith.select %97, %dim_67, %dim_65 : index
      %99 = arith.cmpi eq, %98, %c1_70 : index
      %100 = arith.select %99, %dim_69, %98 : index
      %c4 = arith.constant 4 : index
      %c1_71 = arith.constant 1 : index
      %from_elements = tensor.from_elements %100, %c4 : tensor<2xindex>
      %c0_72 = arith.constant 0 : index
      %dim_73 = tensor.dim %63, %c0_72 : tensor<?x4xi1>
      %101 = arith.cmpi eq, %dim_73, %100 : index
      %c1_74 = arith.constant 1 : index
      %102 = arith.cmpi eq, %dim_73, %c1_74 : index
      %103 = arith.ori %102, %101 : i1
      cf.assert %103, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %104 = scf.if %102 -> (tensor<?x4xi1>) {
        %122 = stablehlo.dynamic_broadcast_in_dim %63, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %122 : tensor<?x4xi1>
      } else {
        %122 = stablehlo.dynamic_broadcast_in_dim %63, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %122 : tensor<?x4xi1>
      }
      %c0_75 = arith.constant 0 : index
      %dim_76 = tensor.dim %63, %c0_75 : tensor<?x4xi1>
      %c0_77 = arith.constant 0 : index
      %dim_78 = tensor.dim %24, %c0_77 : tensor<?x4xf32>
      %c0_79 = arith.constant 0 : index
      %dim_80 = tensor.dim %0, %c0_79 : tensor<?x4xf32>
      %c1_81 = arith.constant 1 : index
      %105 = arith.cmpi eq, %dim_76, %c1_81 : index
      %106 = arith.select %105, %dim_78, %dim_76 : index
      %107 = arith.cmpi eq, %106, %c1_81 : index
      %108 = arith.select %107, %dim_80, %106 : index
      %c4_82 = arith.constant 4 : index
      %c1_83 = arith.constant 1 : index
      %from_elements_84 = tensor.from_elements %108, %c4_82 : tensor<2xindex>
      %c0_85 = arith.constant 0 : index
      %dim_86 = tensor.dim %24, %c0_85 : tensor<?x4xf32>
      %109 = arith.cmpi eq, %dim_86, %108 : index
      %c1_87 = arith.constant 1 : index
      %110 = arith.cmpi eq, %dim_86, %c1_87 : index
      %111 = arith.ori %110, %109 : i1
      cf.assert %111, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %112 = scf.if %110 -> (tensor<?x4xf32>) {
        %122 = stablehlo.dynamic_broadcast_in_dim %24, %from_elements_84, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %122 : tensor<?x4xf32>
      } else {
        %122 = stablehlo.dynamic_broadcast_in_dim %24, %from_elements_84, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %122 : tensor<?x4xf32>
      }
      %c0_88 = arith.constant 0 : index
      %dim_89 = tensor.dim %63, %c0_88 : tensor<?x4xi1>
      %c0_90 = arith.constant 0 : index
      %dim_91 = tensor.dim %24, %c0_90 : tensor<?x4xf32>
      %c0_92 = arith.constant 0 : index
      %dim_93 = tensor.dim %0, %c0_92 : tensor<?x4xf32>
      %c1_94 = arith.constant 1 : index
      %113 = arith.cmpi eq, %dim_89, %c1_94 : index
      %114 = arith.select %113, %dim_91, %dim_89 : index
      %115 = arith.cmpi eq, %114, %c1_94 : index
      %116 = arith.select %115, %dim_93, %114 : index
      %c4_95 = arith.constant 4 : index
      %c1_96 = arith.constant 1 : index
      %from_elements_97 = tensor.from_elements %116, %c4_95 : tensor<2xindex>
      %c0_98 = arith.constant 0 : index
      %dim_99 = tensor.dim %0, %c0_98 : tensor<?x4xf32>
      %117 = arith.cmpi eq, %dim_99, %116 : index
      %c1_100 = arith.constant 1 : index
      %118 = arith.cmpi eq, %dim_99, %c1_100 : index
      %119 = arith.ori %118, %117 : i1
      cf.assert %119, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %120 = scf.if %118 -> (tensor<?x4xf32>) {
        %122 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements_97, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %122 : tensor<?x4xf32>
      } else {
        %122 = stablehlo.dynamic_broadcast_in_dim %0, %from_elements_97, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %122 : tensor<?x4xf32>
      }
      %121 = stablehlo.select %104, %112, %120 : tensor<?x4xi1>, tensor<?x4xf32>
      shape.assuming_yield %121 : tensor<?x4xf32>
    }
    %81 = shape.shape_of %80 : tensor<?x4xf32> -> tensor<2xindex>
    %82 = shape.shape_of %80 : tensor<?x4xf32> -> tensor<2xindex>
    %83 = stablehlo.dynamic_broadcast_in_dim %cst_2, %81, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %84 = stablehlo.compare EQ, %80, %83 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %85 = shape.shape_of %84 : tensor<?x4xi1> -> tensor<2xindex>
    %c0_54 = arith.constant 0 : index
    %dim_55 = tensor.dim %84, %c0_54 : tensor<?x4xi1>
    %c0_56 = arith.constant 0 : index
    %dim_57 = tensor.dim %80, %c0_56 : tensor<?x4xf32>
    %c1_58 = arith.constant 1 : index
    %86 = arith.cmpi eq, %dim_55, %c1_58 : index
    %87 = arith.select %86, %dim_57, %dim_55 : index
    %c1_59 = arith.constant 1 : index
    %c0_60 = arith.constant 0 : index
    %dim_61 = tensor.dim %84, %c0_60 : tensor<?x4xi1>
    %88 = arith.cmpi eq, %dim_61, %c1_59 : index
    %89 = arith.cmpi eq, %dim_61, %87 : index
    %90 = arith.ori %88, %89 : i1
    %c0_62 = arith.constant 0 : index
    %dim_63 = tensor.dim %80, %c0_62 : tensor<?x4xf32>
    %91 = arith.cmpi eq, %dim_63, %c1_59 : index
    %92 = arith.cmpi eq, %dim_63, %87 : index
    %93 = arith.ori %91, %92 : i1
    %94 = arith.andi %90, %93 : i1
    cf.assert %94, "round_dynamic: shapes are not broadcastable (TensorFlow raises an InvalidArgumentError here)"
    %95 = shape.const_witness true
    %96 = shape.assuming %95 -> (tensor<?x4xf32>) {
      %97 = shape.broadcast %85, %82 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %c0_64 = arith.constant 0 : index
      %dim_65 = tensor.dim %84, %c0_64 : tensor<?x4xi1>
      %c0_66 = arith.constant 0 : index
      %dim_67 = tensor.dim %80, %c0_66 : tensor<?x4xf32>
      %c1_68 = arith.constant 1 : index
      %98 = arith.cmpi eq, %dim_65, %c1_68 : index
      %99 = arith.select %98, %dim_67, %dim_65 : index
      %c4 = arith.constant 4 : index
      %c1_69 = arith.constant 1 : index
      %from_elements = tensor.from_elements %99, %c4 : tensor<2xindex>
      %c0_70 = arith.constant 0 : index
      %dim_71 = tensor.dim %84, %c0_70 : tensor<?x4xi1>
      %100 = arith.cmpi eq, %dim_71, %99 : index
      %c1_72 = arith.constant 1 : index
      %101 = arith.cmpi eq, %dim_71, %c1_72 : index
      %102 = arith.ori %101, %100 : i1
      cf.assert %102, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %103 = scf.if %101 -> (tensor<?x4xi1>) {
        %112 = stablehlo.dynamic_broadcast_in_dim %84, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %112 : tensor<?x4xi1>
      } else {
        %112 = stablehlo.dynamic_broadcast_in_dim %84, %from_elements, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xi1>, tensor<2xindex>) -> tensor<?x4xi1>
        scf.yield %112 : tensor<?x4xi1>
      }
      %104 = stablehlo.dynamic_broadcast_in_dim %cst_2, %97, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
      %c0_73 = arith.constant 0 : index
      %dim_74 = tensor.dim %84, %c0_73 : tensor<?x4xi1>
      %c0_75 = arith.constant 0 : index
      %dim_76 = tensor.dim %80, %c0_75 : tensor<?x4xf32>
      %c1_77 = arith.constant 1 : index
      %105 = arith.cmpi eq, %dim_74, %c1_77 : index
      %106 = arith.select %105, %dim_76, %dim_74 : index
      %c4_78 = arith.constant 4 : index
      %c1_79 = arith.constant 1 : index
      %from_elements_80 = tensor.from_elements %106, %c4_78 : tensor<2xindex>
      %c0_81 = arith.constant 0 : index
      %dim_82 = tensor.dim %80, %c0_81 : tensor<?x4xf32>
      %107 = arith.cmpi eq, %dim_82, %106 : index
      %c1_83 = arith.constant 1 : index
      %108 = arith.cmpi eq, %dim_82, %c1_83 : index
      %109 = arith.ori %108, %107 : i1
      cf.assert %109, "round_dynamic: a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent (incompatible shapes)"
      %110 = scf.if %108 -> (tensor<?x4xf32>) {
        %112 = stablehlo.dynamic_broadcast_in_dim %80, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %112 : tensor<?x4xf32>
      } else {
        %112 = stablehlo.dynamic_broadcast_in_dim %80, %from_elements_80, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
        scf.yield %112 : tensor<?x4xf32>
      }
      %111 = stablehlo.select %103, %104, %110 : tensor<?x4xi1>, tensor<?x4xf32>
      shape.assuming_yield %111 : tensor<?x4xf32>
    }
    return %96 : tensor<?x4xf32>
  }
  func.func @round_static(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<2x4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<2x4xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<2x4xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<2x4xf32>
    %0 = stablehlo.floor %arg0 : tensor<2x4xf32>
    %1 = stablehlo.subtract %arg0, %0 : tensor<2x4xf32>
    %2 = stablehlo.compare GT, %1, %cst_2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %3 = stablehlo.compare EQ, %1, %cst_2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %4 = stablehlo.multiply %arg0, %cst_2 : tensor<2x4xf32>
    %5 = stablehlo.floor %4 : tensor<2x4xf32>
    %6 = stablehlo.multiply %5, %cst_1 : tensor<2x4xf32>
    %7 = stablehlo.subtract %0, %6 : tensor<2x4xf32>
    %8 = stablehlo.compare EQ, %7, %cst_0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %9 = stablehlo.and %3, %8 : tensor<2x4xi1>
    %10 = stablehlo.or %2, %9 : tensor<2x4xi1>
    %11 = stablehlo.add %0, %cst_0 : tensor<2x4xf32>
    %12 = stablehlo.select %10, %11, %0 : tensor<2x4xi1>, tensor<2x4xf32>
    %13 = stablehlo.compare EQ, %12, %cst : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
    %14 = stablehlo.select %13, %cst, %12 : tensor<2x4xi1>, tensor<2x4xf32>
    return %14 : tensor<2x4xf32>
  }
}
