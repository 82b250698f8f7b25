// The controls: iree-compile accepts each on llvm-cpu. @no_if: the mask used directly (no scf.if);
// @given: the same ops over a runtime-length input instead of the iota; @summed: the same masked
// select, through the scf.if, summed instead of scattered.
func.func @no_if(%n: tensor<1xi64>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %i = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>
  %u = stablehlo.convert %i : (tensor<?xi32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %i, %c0 : tensor<?xi32>
  %sh = tensor.from_elements %d : tensor<1xindex>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.dynamic_broadcast_in_dim %zero, %sh, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
  %m0 = stablehlo.compare LT, %i, %z : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
  %j = stablehlo.select %m0, %z, %i : tensor<?xi1>, tensor<?xi32>
  %e = tensor.expand_shape %j [[0, 1]] output_shape [%d, 1] : tensor<?xi32> into tensor<?x1xi32>
  %s = "stablehlo.scatter"(%x, %e, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %v: tensor<f32>):
    stablehlo.return %v : tensor<f32>
  }) : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
func.func @given(%i: tensor<?xi32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %u = stablehlo.convert %i : (tensor<?xi32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %i, %c0 : tensor<?xi32>
  %sh = tensor.from_elements %d : tensor<1xindex>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.dynamic_broadcast_in_dim %zero, %sh, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
  %m0 = stablehlo.compare LT, %i, %z : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
  %isone = arith.cmpi eq, %d, %c1 : index
  %m = scf.if %isone -> (tensor<?xi1>) {
    %b = stablehlo.not %m0 : tensor<?xi1>
    scf.yield %b : tensor<?xi1>
  } else {
    scf.yield %m0 : tensor<?xi1>
  }
  %j = stablehlo.select %m, %z, %i : tensor<?xi1>, tensor<?xi32>
  %e = tensor.expand_shape %j [[0, 1]] output_shape [%d, 1] : tensor<?xi32> into tensor<?x1xi32>
  %s = "stablehlo.scatter"(%x, %e, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %v: tensor<f32>):
    stablehlo.return %v : tensor<f32>
  }) : (tensor<8xf32>, tensor<?x1xi32>, tensor<?xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
func.func @summed(%n: tensor<1xi64>) -> tensor<i32> {
  %i = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %i, %c0 : tensor<?xi32>
  %sh = tensor.from_elements %d : tensor<1xindex>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %z = stablehlo.dynamic_broadcast_in_dim %zero, %sh, dims = [] : (tensor<i32>, tensor<1xindex>) -> tensor<?xi32>
  %m0 = stablehlo.compare LT, %i, %z : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi1>
  %isone = arith.cmpi eq, %d, %c1 : index
  %m = scf.if %isone -> (tensor<?xi1>) {
    %b = stablehlo.not %m0 : tensor<?xi1>
    scf.yield %b : tensor<?xi1>
  } else {
    scf.yield %m0 : tensor<?xi1>
  }
  %j = stablehlo.select %m, %z, %i : tensor<?xi1>, tensor<?xi32>
  %r = stablehlo.reduce(%j init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<?xi32>, tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
