// tf.cast(x, tf.float16) of a 3x4 float32 tensor (the fuzzing campaign of seed 20261201, reduced
// to this one op by its reducer; e2e/float16_test.py's to_float16). vmvx fails to legalize the
// arith.truncf it becomes; llvm-cpu compiles the same file (the control).
func.func @to_float16(%x: tensor<3x4xf32>) -> tensor<3x4xf16> {
  %0 = stablehlo.convert %x : (tensor<3x4xf32>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}
