// Control: the f16 round trip minus y without the broadcast's scf.if.
func.func @f(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %h = stablehlo.convert %x : (tensor<?x4xf32>) -> tensor<?x4xf16>
  %p = stablehlo.convert %h : (tensor<?x4xf16>) -> tensor<?x4xf32>
  %d = stablehlo.subtract %p, %y : tensor<?x4xf32>
  return %d : tensor<?x4xf32>
}
