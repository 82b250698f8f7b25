// The same module plus a counter variable incremented by a dispatch (as e2e/sliding_window_test.py
// has): correct on Vulkan. repro.sh runs it too, expecting it to pass.
module {
  ml_program.global public mutable @w(dense<0.000000e+00> : tensor<4x3xf32>) : tensor<4x3xf32>
  ml_program.global public mutable @n(dense<0> : tensor<i32>) : tensor<i32>
  func.func @push(%arg0: tensor<3xf32>) -> tensor<4x3xf32> {
    %w = ml_program.global_load @w : tensor<4x3xf32>
    %0 = stablehlo.slice %w [1:4, 0:3] : (tensor<4x3xf32>) -> tensor<3x3xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
    ml_program.global_store @w = %2 : tensor<4x3xf32>
    %n = ml_program.global_load @n : tensor<i32>
    %k = stablehlo.constant dense<1> : tensor<i32>
    %n1 = stablehlo.add %n, %k : tensor<i32>
    ml_program.global_store @n = %n1 : tensor<i32>
    %3 = ml_program.global_load @w : tensor<4x3xf32>
    return %3 : tensor<4x3xf32>
  }
}
