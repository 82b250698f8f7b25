// abs(x) / abs(y) over a runtime batch, each operand through an scf.if of broadcasts
// (the shape TF's lowering and the import's dynamic-broadcasts step give the divide).
func.func @ratio(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = stablehlo.abs %x : tensor<?x4xf32>
  %q = stablehlo.abs %y : tensor<?x4xf32>
  %n_p = tensor.dim %p, %c0 : tensor<?x4xf32>
  %n_q = tensor.dim %q, %c0 : tensor<?x4xf32>
  %sel = arith.cmpi eq, %n_p, %c1 : index
  %n = arith.select %sel, %n_q, %n_p : index
  %shape = tensor.from_elements %n, %c4 : tensor<2xindex>
    %is1_p = arith.cmpi eq, %n_p, %c1 : index
    %pb = scf.if %is1_p -> (tensor<?x4xf32>) {
      %r = stablehlo.dynamic_broadcast_in_dim %p, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      scf.yield %r : tensor<?x4xf32>
    } else {
      %r = stablehlo.dynamic_broadcast_in_dim %p, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      scf.yield %r : tensor<?x4xf32>
    }
    %is1_q = arith.cmpi eq, %n_q, %c1 : index
    %qb = scf.if %is1_q -> (tensor<?x4xf32>) {
      %r = stablehlo.dynamic_broadcast_in_dim %q, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      scf.yield %r : tensor<?x4xf32>
    } else {
      %r = stablehlo.dynamic_broadcast_in_dim %q, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      scf.yield %r : tensor<?x4xf32>
    }
  %d = stablehlo.divide %pb, %qb : tensor<?x4xf32>
  return %d : tensor<?x4xf32>
}
