// A 3x3 VALID convolution with stride 2 over a 4x4 image: its output is 1x1, and the image's last
// row and column are read by no window. iree-compile fails in FoldUnitExtentDimsPass, on every
// target (seen in keras.applications.ResNet50V2 at 32x32, reduced from 1107 ops to this one by
// `python -m pyiree_tf_support.reduce`).
func.func @conv(%x: tensor<1x4x4x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x1x1x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}
