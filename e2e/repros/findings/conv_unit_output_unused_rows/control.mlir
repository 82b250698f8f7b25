// The control: the same convolution where every row is read (a 3x3 image: 1x1 output) or the
// output is not 1x1 (a 5x5 image: 2x2 output). iree-compile accepts both.
func.func @exact(%x: tensor<1x3x3x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x1x1x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}
func.func @wider(%x: tensor<1x5x5x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x2x2x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x2x2x4xf32>
  return %0 : tensor<1x2x2x4xf32>
}
