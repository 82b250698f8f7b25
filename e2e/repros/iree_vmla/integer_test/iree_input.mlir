// pyiree_tf_support import: pipeline 'plain'
// pyiree_tf_support import:   1. lower: tf-lower-to-mlprogram-and-hlo
// pyiree_tf_support import:   2. growing-carries (text rewrite)
// pyiree_tf_support import:   3. dynamic-reshapes (text rewrite)
// pyiree_tf_support import:   4. dynamic-broadcasts (text rewrite)
module {
  func.func @arithmetic(%arg0: tensor<5xi32>, %arg1: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
    %0 = stablehlo.maximum %arg0, %arg1 : tensor<5xi32>
    %1 = stablehlo.add %arg0, %arg1 : tensor<5xi32>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<5xi32>
    %3 = stablehlo.subtract %arg0, %arg1 : tensor<5xi32>
    return %1, %3, %2, %0 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
  }
  func.func @bitwise(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
    %0 = stablehlo.not %arg0 : tensor<4xi32>
    %1 = stablehlo.and %arg0, %arg1 : tensor<4xi32>
    %2 = stablehlo.or %arg0, %arg1 : tensor<4xi32>
    %3 = stablehlo.xor %arg0, %arg1 : tensor<4xi32>
    return %1, %2, %3, %0 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
  }
  func.func @float_int_casts(%arg0: tensor<6xf32>) -> (tensor<6xi32>, tensor<6xf32>) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<6xf32>
    %0 = stablehlo.convert %arg0 : (tensor<6xf32>) -> tensor<6xi32>
    %1 = stablehlo.convert %0 : (tensor<6xi32>) -> tensor<6xf32>
    %2 = stablehlo.multiply %1, %cst : tensor<6xf32>
    return %0, %2 : tensor<6xi32>, tensor<6xf32>
  }
  func.func @floor_div_mod(%arg0: tensor<6xi32>, %arg1: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
    %c = stablehlo.constant dense<1> : tensor<6xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<6xi32>
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<6xi32>
    %1 = stablehlo.compare  NE, %0, %c_0 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %2 = stablehlo.compare  LT, %arg1, %c_0 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %3 = stablehlo.compare  LT, %0, %c_0 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %4 = stablehlo.compare  NE, %2, %3 : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
    %5 = stablehlo.and %1, %4 : tensor<6xi1>
    %6 = stablehlo.add %arg1, %0 : tensor<6xi32>
    %7 = stablehlo.select %5, %6, %0 : tensor<6xi1>, tensor<6xi32>
    %8 = stablehlo.divide %arg0, %arg1 : tensor<6xi32>
    %9 = stablehlo.divide %arg0, %arg1 : tensor<6xi32>
    %10 = stablehlo.multiply %9, %arg1 : tensor<6xi32>
    %11 = stablehlo.compare  NE, %10, %arg0 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %12 = stablehlo.compare  LT, %arg0, %c_0 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %13 = stablehlo.compare  LT, %arg1, %c_0 : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %14 = stablehlo.compare  NE, %12, %13 : (tensor<6xi1>, tensor<6xi1>) -> tensor<6xi1>
    %15 = stablehlo.and %11, %14 : tensor<6xi1>
    %16 = stablehlo.subtract %9, %c : tensor<6xi32>
    %17 = stablehlo.select %15, %16, %9 : tensor<6xi1>, tensor<6xi32>
    return %17, %7, %8 : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
  }
  func.func @int64_square(%arg0: tensor<3xi64>) -> tensor<3xi64> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<3xi64>
    return %0 : tensor<3xi64>
  }
  func.func @narrow_ints(%arg0: tensor<4xi8>, %arg1: tensor<4xui8>, %arg2: tensor<4xi16>) -> (tensor<4xi8>, tensor<4xui8>, tensor<4xi16>) {
    %c = stablehlo.constant dense<3> : tensor<4xui8>
    %c_0 = stablehlo.constant dense<2> : tensor<4xi8>
    %0 = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi16>
    %1 = stablehlo.add %0, %arg2 : tensor<4xi16>
    %2 = stablehlo.multiply %arg0, %c_0 : tensor<4xi8>
    %3 = stablehlo.add %arg1, %c : tensor<4xui8>
    return %2, %3, %1 : tensor<4xi8>, tensor<4xui8>, tensor<4xi16>
  }
  func.func @reduce_ints(%arg0: tensor<3x4xi32>) -> (tensor<4xi32>, tensor<i32>, tensor<3xi32>) {
    %c = stablehlo.constant dense<-2147483648> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2147483647> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<4xi32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<4xi32>) -> tensor<3x4xi32>
    %2:2 = stablehlo.reduce(%arg0 init: %c_1), (%1 init: %c_0) across dimensions = [1] : (tensor<3x4xi32>, tensor<3x4xi32>, tensor<i32>, tensor<i32>) -> (tensor<3xi32>, tensor<3xi32>)
     reducer(%arg1: tensor<i32>, %arg3: tensor<i32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %5 = stablehlo.compare  LE, %arg1, %arg3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %6 = stablehlo.select %5, %arg1, %arg3 : tensor<i1>, tensor<i32>
      %7 = stablehlo.compare  EQ, %arg1, %arg3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %8 = stablehlo.minimum %arg2, %arg4 : tensor<i32>
      %9 = stablehlo.select %5, %arg2, %arg4 : tensor<i1>, tensor<i32>
      %10 = stablehlo.select %7, %8, %9 : tensor<i1>, tensor<i32>
      stablehlo.return %6, %10 : tensor<i32>, tensor<i32>
    }
    %3 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x4xi32>, tensor<i32>) -> tensor<i32>
    %4 = stablehlo.reduce(%arg0 init: %c_0) applies stablehlo.add across dimensions = [0] : (tensor<3x4xi32>, tensor<i32>) -> tensor<4xi32>
    return %4, %3, %2#1 : tensor<4xi32>, tensor<i32>, tensor<3xi32>
  }
  func.func @shifts(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
    %0 = stablehlo.shift_left %arg0, %arg1 : tensor<4xi32>
    %1 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<4xi32>
    return %0, %1 : tensor<4xi32>, tensor<4xi32>
  }
}
