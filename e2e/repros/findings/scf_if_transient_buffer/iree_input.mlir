// Two scf.if's in a row, each picking an expanding or a non-expanding broadcast of a computed
// value (the library's import of TF's broadcasts over a runtime dim). With a 2-row input the
// else branches run, and IREE's runtime uses a transient buffer before it is committed.
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %shape = tensor.from_elements %d, %c4 : tensor<2xindex>
  %one_row = arith.cmpi eq, %d, %c1 : index
  %v = stablehlo.floor %x : tensor<?x4xf32>
  %a = scf.if %one_row -> (tensor<?x4xf32>) {
    %t = stablehlo.dynamic_broadcast_in_dim %v, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    scf.yield %t : tensor<?x4xf32>
  } else {
    %t = stablehlo.dynamic_broadcast_in_dim %v, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    scf.yield %t : tensor<?x4xf32>
  }
  %b = stablehlo.add %a, %v : tensor<?x4xf32>
  %c = scf.if %one_row -> (tensor<?x4xf32>) {
    %t = stablehlo.dynamic_broadcast_in_dim %b, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    scf.yield %t : tensor<?x4xf32>
  } else {
    %t = stablehlo.dynamic_broadcast_in_dim %b, %shape, dims = [0, 1] {known_expanding_dimensions = array<i64>, known_nonexpanding_dimensions = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    scf.yield %t : tensor<?x4xf32>
  }
  %r = stablehlo.add %c, %v : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
