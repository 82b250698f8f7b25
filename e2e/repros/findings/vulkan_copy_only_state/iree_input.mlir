// A 4-frame sliding window kept in a variable: push drops the oldest frame, appends the new one,
// stores the window and returns it. Every op lowers to a buffer copy (no dispatch).
// Reduced from a Keras layer holding add_weight state [1, 3, 2] (issue 13 item 5).
module {
  ml_program.global public mutable @w(dense<0.000000e+00> : tensor<4x3xf32>) : tensor<4x3xf32>
  func.func @push(%arg0: tensor<3xf32>) -> tensor<4x3xf32> {
    %w = ml_program.global_load @w : tensor<4x3xf32>
    %0 = stablehlo.slice %w [1:4, 0:3] : (tensor<4x3xf32>) -> tensor<3x3xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
    ml_program.global_store @w = %2 : tensor<4x3xf32>
    %3 = ml_program.global_load @w : tensor<4x3xf32>
    return %3 : tensor<4x3xf32>
  }
}
