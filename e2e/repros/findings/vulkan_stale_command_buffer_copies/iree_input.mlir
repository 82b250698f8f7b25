// m = m * 0.5 + g, stored in a global; returns m.
module {
  ml_program.global public mutable @m(dense<0.000000e+00> : tensor<3xf32>) : tensor<3xf32>
  func.func @step(%g: tensor<3xf32>) -> tensor<3xf32> {
    %half = stablehlo.constant dense<5.000000e-01> : tensor<3xf32>
    %m = ml_program.global_load @m : tensor<3xf32>
    %0 = stablehlo.multiply %m, %half : tensor<3xf32>
    %1 = stablehlo.add %0, %g : tensor<3xf32>
    ml_program.global_store @m = %1 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
