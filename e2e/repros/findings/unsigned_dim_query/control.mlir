// Controls, each compiles: the same query on a signless i8 tensor, and elementwise ui8 ops on a
// [?, 4] ui8 tensor that ask no dim.
func.func @rows_i8(%x: tensor<?x4xi8>) -> tensor<i32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xi8>) -> tensor<i32>
  return %n : tensor<i32>
}
func.func @max_ui8(%x: tensor<?x4xui8>, %y: tensor<?x4xui8>) -> tensor<?x4xui8> {
  %m = stablehlo.maximum %x, %y : tensor<?x4xui8>
  return %m : tensor<?x4xui8>
}
