// Calls module.step three times, one invocation each, and returns the three results.
module @repro_driver {
  func.func private @module.step(tensor<3xf32>) -> tensor<3xf32>
  func.func @repro() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %a = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %b = arith.constant dense<[0.5, -1.0, 4.0]> : tensor<3xf32>
    %c = arith.constant dense<[2.0, 0.0, -1.0]> : tensor<3xf32>
    %0 = call @module.step(%a) : (tensor<3xf32>) -> tensor<3xf32>
    %1 = call @module.step(%b) : (tensor<3xf32>) -> tensor<3xf32>
    %2 = call @module.step(%c) : (tensor<3xf32>) -> tensor<3xf32>
    return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
