// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. runtime-reshapes (text rewrite)
// pyiree_tf_support import:   5. dynamic-strided-slices (text rewrite)
// pyiree_tf_support import:   6. dynamic-broadcasts (text rewrite)
// pyiree_tf_support import:   7. scatter-counts (text rewrite)
module {
















  func.func @linspace_runtime_count(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<?xf32> {
    %cst = arith.constant dense<1> : tensor<1xindex>
    %cst_0 = arith.constant dense<0> : tensor<1xindex>
    %c-1_i32 = arith.constant -1 : i32
    %c0 = arith.constant 0 : index
    %0 = shape.const_shape [1] : tensor<1xindex>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %c_2 = stablehlo.constant dense<1> : tensor<i64>
    %c_3 = stablehlo.constant dense<-1> : tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %c_5 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.compare GE, %arg2, %c_4 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.reshape %arg2 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.subtract %arg2, %c : tensor<i32>
    %4 = stablehlo.maximum %3, %c_4 : tensor<i32>
    %5 = stablehlo.reshape %4 : (tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.subtract %arg2, %c_5 : tensor<i32>
    %7 = stablehlo.maximum %6, %c_5 : tensor<i32>
    %8 = stablehlo.convert %7 : (tensor<i32>) -> tensor<f32>
    %9 = stablehlo.select %1, %7, %c_3 : tensor<i1>, tensor<i32>
    %10 = stablehlo.convert %9 : (tensor<i32>) -> tensor<i64>
    %11 = stablehlo.subtract %10, %c_2 : tensor<i64>
    %12 = stablehlo.abs %11 : tensor<i64>
    %13 = stablehlo.convert %12 : (tensor<i64>) -> tensor<f64>
    %14 = stablehlo.divide %13, %cst_1 : tensor<f64>
    %15 = stablehlo.ceil %14 : tensor<f64>
    %16 = stablehlo.convert %15 : (tensor<f64>) -> tensor<i64>
    %17 = stablehlo.reshape %16 : (tensor<i64>) -> tensor<1xi64>
    %18 = stablehlo.dynamic_iota %17, dim = 0 : (tensor<1xi64>) -> tensor<?xi64>
    %19 = stablehlo.reshape %arg0 : (tensor<f32>) -> tensor<1xf32>
    %20 = stablehlo.reshape %arg1 : (tensor<f32>) -> tensor<1xf32>
    %21 = stablehlo.subtract %20, %19 : tensor<1xf32>
    %22 = stablehlo.reshape %8 : (tensor<f32>) -> tensor<1xf32>
    %23 = stablehlo.divide %21, %22 : tensor<1xf32>
    %24 = shape.shape_of %18 : tensor<?xi64> -> tensor<1xindex>
    %25 = stablehlo.dynamic_broadcast_in_dim %c_2, %24, dims = [] : (tensor<i64>, tensor<1xindex>) -> tensor<?xi64>
    %26 = stablehlo.multiply %18, %25 : tensor<?xi64>
    %27 = shape.shape_of %26 : tensor<?xi64> -> tensor<1xindex>
    %28 = stablehlo.dynamic_broadcast_in_dim %c_2, %27, dims = [] : (tensor<i64>, tensor<1xindex>) -> tensor<?xi64>
    %29 = stablehlo.add %26, %28 : tensor<?xi64>
    %30 = stablehlo.convert %29 : (tensor<?xi64>) -> tensor<?xf32>
    %cast = tensor.cast %30 : tensor<?xf32> to tensor<?xf32>
    %c0_6 = arith.constant 0 : index
    %dim = tensor.dim %30, %c0_6 : tensor<?xf32>
    %c1 = arith.constant 1 : index
    %c0_7 = arith.constant 0 : index
    %c-1 = arith.constant -1 : index
    %c0_8 = arith.constant 0 : index
    %extracted = tensor.extract %5[%c0_8] : tensor<1xi32>
    %31 = arith.index_cast %extracted : i32 to index
    %32 = arith.cmpi eq, %31, %c-1 : index
    %33 = arith.select %32, %c1, %31 : index
    %34 = arith.select %32, %c1, %c0_7 : index
    %c0_9 = arith.constant 0 : index
    %35 = arith.addi %33, %c0_9 : index
    %c0_10 = arith.constant 0 : index
    %36 = arith.addi %34, %c0_10 : index
    %37 = arith.maxsi %35, %c1 : index
    %38 = arith.divsi %dim, %37 : index
    %39 = arith.select %32, %38, %33 : index
    %40 = arith.cmpi sge, %39, %c0_7 : index
    %c0_11 = arith.constant 0 : index
    %41 = arith.addi %39, %c0_11 : index
    %42 = arith.cmpi eq, %41, %dim : index
    %43 = arith.cmpi ule, %36, %c1 : index
    %44 = arith.andi %40, %42 : i1
    %45 = arith.andi %44, %43 : i1
    cf.assert %45, "linspace_runtime_count: tf.Reshape of tensor<?xf32> to a shape computed at run time: it must hold as many elements, with at most one -1 and no other negative value, and fit tensor<?xf32>"
    %cast_12 = tensor.cast %cast : tensor<?xf32> to tensor<?xf32>
    %46 = shape.shape_of %cast_12 : tensor<?xf32> -> tensor<1xindex>
    %47 = shape.broadcast %46, %0 : tensor<1xindex>, tensor<1xindex> -> tensor<1xindex>
    %48 = stablehlo.dynamic_broadcast_in_dim %23, %47, dims = [0] : (tensor<1xf32>, tensor<1xindex>) -> tensor<?xf32>
    %c0_13 = arith.constant 0 : index
    %dim_14 = tensor.dim %cast_12, %c0_13 : tensor<?xf32>
    %c1_15 = arith.constant 1 : index
    %from_elements = tensor.from_elements %dim_14 : tensor<1xindex>
    %49 = stablehlo.dynamic_broadcast_in_dim %cast_12, %from_elements, dims = [0] {known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
    %50 = stablehlo.multiply %48, %49 : tensor<?xf32>
    %51 = shape.shape_of %50 : tensor<?xf32> -> tensor<1xindex>
    %52 = shape.broadcast %51, %0 : tensor<1xindex>, tensor<1xindex> -> tensor<1xindex>
    %53 = stablehlo.dynamic_broadcast_in_dim %19, %52, dims = [0] : (tensor<1xf32>, tensor<1xindex>) -> tensor<?xf32>
    %c0_16 = arith.constant 0 : index
    %dim_17 = tensor.dim %50, %c0_16 : tensor<?xf32>
    %c1_18 = arith.constant 1 : index
    %from_elements_19 = tensor.from_elements %dim_17 : tensor<1xindex>
    %54 = stablehlo.dynamic_broadcast_in_dim %50, %from_elements_19, dims = [0] {known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
    %55 = stablehlo.add %53, %54 : tensor<?xf32>
    %56 = stablehlo.concatenate %19, %55, %20, dim = 0 : (tensor<1xf32>, tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
    %extracted_20 = tensor.extract %2[%c0] : tensor<1xi32>
    %dim_21 = tensor.dim %56, %c0 : tensor<?xf32>
    %57 = arith.cmpi eq, %extracted_20, %c-1_i32 : i32
    %58 = arith.index_cast %dim_21 : index to i32
    %59 = arith.select %57, %58, %extracted_20 : i32
    %60 = arith.index_cast %59 : i32 to index
    %from_elements_22 = tensor.from_elements %60 : tensor<1xindex>
    %61 = stablehlo.real_dynamic_slice %56, %cst_0, %from_elements_22, %cst : (tensor<?xf32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
    return %61 : tensor<?xf32>
  }






















}
