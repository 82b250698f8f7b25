// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func @complex_arithmetic(%arg0: tensor<3xcomplex<f32>>, %arg1: tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) {
    %0 = stablehlo.real %arg1 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %1 = stablehlo.imag %arg1 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    %2 = stablehlo.negate %1 : tensor<3xf32>
    %3 = stablehlo.complex %0, %2 : tensor<3xcomplex<f32>>
    %4 = stablehlo.subtract %arg0, %3 : tensor<3xcomplex<f32>>
    %5 = stablehlo.add %arg0, %arg1 : tensor<3xcomplex<f32>>
    %6 = stablehlo.multiply %arg0, %arg1 : tensor<3xcomplex<f32>>
    return %5, %6, %4 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
  }
  func.func private @complex_exp(%arg0: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
    %0 = stablehlo.exponential %arg0 : tensor<3xcomplex<f32>>
    return %0 : tensor<3xcomplex<f32>>
  }
  func.func private @complex_magnitude(%arg0: tensor<3xcomplex<f32>>) -> tensor<3xf32> {
    %0 = stablehlo.abs %arg0 : (tensor<3xcomplex<f32>>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func private @square_parts(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.complex %arg0, %arg1 : tensor<4xcomplex<f32>>
    %1 = stablehlo.abs %0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %2 = stablehlo.multiply %0, %0 : tensor<4xcomplex<f32>>
    %3 = stablehlo.imag %2 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %4 = stablehlo.real %2 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    return %4, %3, %1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
