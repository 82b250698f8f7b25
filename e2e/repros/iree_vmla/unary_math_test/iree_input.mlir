// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func private @abs(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.abs %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @activations(%arg0: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<6xf32>
    %cst_0 = stablehlo.constant dense<-13.9423847> : tensor<6xf32>
    %cst_1 = stablehlo.constant dense<13.9423847> : tensor<6xf32>
    %cst_2 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.logistic %arg0 : tensor<6xf32>
    %1 = stablehlo.exponential %arg0 : tensor<6xf32>
    %2 = stablehlo.compare  GT, %arg0, %cst_1 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %3 = stablehlo.compare  LT, %arg0, %cst_0 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %4 = stablehlo.log_plus_one %1 : tensor<6xf32>
    %5 = stablehlo.select %3, %1, %4 : tensor<6xi1>, tensor<6xf32>
    %6 = stablehlo.select %2, %arg0, %5 : tensor<6xi1>, tensor<6xf32>
    %7 = stablehlo.tanh %arg0 : tensor<6xf32>
    %8 = stablehlo.multiply %arg0, %cst : tensor<6xf32>
    %9 = stablehlo.clamp %cst_3, %8, %cst_2 : (tensor<f32>, tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    return %7, %0, %9, %6 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
  func.func private @exp(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.exponential %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @expm1(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.exponential_minus_one %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @log(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.log %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @log1p(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.log_plus_one %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @negative(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.negate %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @reciprocal(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<6xf32>
    %0 = stablehlo.divide %cst, %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @rounding(%arg0: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<6xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<6xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<6xf32>
    %0 = stablehlo.ceil %arg0 : tensor<6xf32>
    %1 = stablehlo.floor %arg0 : tensor<6xf32>
    %2 = stablehlo.floor %arg0 : tensor<6xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<6xf32>
    %4 = stablehlo.compare  GT, %3, %cst_2 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %5 = stablehlo.compare  EQ, %3, %cst_2 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %6 = stablehlo.multiply %arg0, %cst_2 : tensor<6xf32>
    %7 = stablehlo.floor %6 : tensor<6xf32>
    %8 = stablehlo.multiply %7, %cst_1 : tensor<6xf32>
    %9 = stablehlo.subtract %2, %8 : tensor<6xf32>
    %10 = stablehlo.compare  EQ, %9, %cst_0 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %11 = stablehlo.and %5, %10 : tensor<6xi1>
    %12 = stablehlo.or %4, %11 : tensor<6xi1>
    %13 = stablehlo.add %2, %cst_0 : tensor<6xf32>
    %14 = stablehlo.select %12, %13, %2 : tensor<6xi1>, tensor<6xf32>
    %15 = stablehlo.compare  EQ, %14, %cst : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
    %16 = stablehlo.select %15, %cst, %14 : tensor<6xi1>, tensor<6xf32>
    return %1, %0, %16 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
  func.func @sign(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.sign %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @sqrt_rsqrt(%arg0: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
    %0 = stablehlo.rsqrt %arg0 : tensor<6xf32>
    %1 = stablehlo.sqrt %arg0 : tensor<6xf32>
    return %1, %0 : tensor<6xf32>, tensor<6xf32>
  }
  func.func private @square(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @trigonometric(%arg0: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
    %0 = stablehlo.cosine %arg0 : tensor<6xf32>
    %1 = stablehlo.sine %arg0 : tensor<6xf32>
    return %1, %0 : tensor<6xf32>, tensor<6xf32>
  }
}
