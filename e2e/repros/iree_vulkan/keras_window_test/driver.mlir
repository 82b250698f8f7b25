// Calls module's functions in the order of the trace, one invocation each, and returns the
// results of the last (the failing call); its inputs are this function's arguments.
module @repro_driver {
  func.func private @module.push(tensor<1x1x2xf32>) -> (tensor<1x3x2xf32>)
  func.func @repro(%c0_0: tensor<1x1x2xf32>, %c1_0: tensor<1x1x2xf32>) -> (tensor<1x3x2xf32>) {
    %r0_0 = call @module.push(%c0_0) : (tensor<1x1x2xf32>) -> (tensor<1x3x2xf32>)
    %r1_0 = call @module.push(%c1_0) : (tensor<1x1x2xf32>) -> (tensor<1x3x2xf32>)
    return %r1_0 : tensor<1x3x2xf32>
  }
}
