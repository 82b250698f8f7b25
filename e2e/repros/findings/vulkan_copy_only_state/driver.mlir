// Calls module.push three times, one invocation each (across the module boundary, as a test or
// an application calls it), and returns the three windows.
module @repro_driver {
  func.func private @module.push(tensor<3xf32>) -> tensor<4x3xf32>
  func.func @repro() -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
    %a = arith.constant dense<[1.0, 1.0, 1.0]> : tensor<3xf32>
    %b = arith.constant dense<[2.0, 2.0, 2.0]> : tensor<3xf32>
    %c = arith.constant dense<[3.0, 3.0, 3.0]> : tensor<3xf32>
    %0 = call @module.push(%a) : (tensor<3xf32>) -> tensor<4x3xf32>
    %1 = call @module.push(%b) : (tensor<3xf32>) -> tensor<4x3xf32>
    %2 = call @module.push(%c) : (tensor<3xf32>) -> tensor<4x3xf32>
    return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  }
}
