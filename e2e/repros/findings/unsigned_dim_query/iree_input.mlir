// The row count of a [?, 4] ui8 tensor, asked the StableHLO way: IREE's input conversion turns
// get_dimension_size into a tensor.dim of the unsigned tensor, which it then cannot legalize.
func.func @rows_ui8(%x: tensor<?x4xui8>) -> tensor<i32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xui8>) -> tensor<i32>
  return %n : tensor<i32>
}
