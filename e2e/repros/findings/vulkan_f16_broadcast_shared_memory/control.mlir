// Control: the same broadcast of abs(x) instead of the f16 round trip.
// rewrite does (an scf.if choosing the expanding or the non-expanding broadcast), minus y.
func.func @f(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %p = stablehlo.abs %x : tensor<?x4xf32>
  %n_p = tensor.dim %p, %c0 : tensor<?x4xf32>
  %n_y = tensor.dim %y, %c0 : tensor<?x4xf32>
  %sel = arith.cmpi eq, %n_p, %c1 : index
  %n = arith.select %sel, %n_y, %n_p : index
  %shape = tensor.from_elements %n, %c4 : tensor<2xindex>
  %pb = scf.if %sel -> (tensor<?x4xf32>) {
    %r = stablehlo.dynamic_broadcast_in_dim %p, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    scf.yield %r : tensor<?x4xf32>
  } else {
    %r = stablehlo.dynamic_broadcast_in_dim %p, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    scf.yield %r : tensor<?x4xf32>
  }
  %d = stablehlo.subtract %pb, %y : tensor<?x4xf32>
  return %d : tensor<?x4xf32>
}
