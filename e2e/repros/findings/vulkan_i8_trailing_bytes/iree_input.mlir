// Vulkan (lavapipe), IREE's default vulkan-spirv target (storage = b32): the bytes of an 8- or
// 16-bit tensor past its last whole 32-bit word are lost, on the way out and on the way in.
// Each function doubles or converts its input; the control's length is a multiple of 4 bytes.
func.func @add_i8_4(%a: tensor<4xi8>) -> tensor<4xi8> {  // control: 4 bytes, right
  %0 = stablehlo.add %a, %a : tensor<4xi8>
  return %0 : tensor<4xi8>
}
func.func @add_i8_6(%a: tensor<6xi8>) -> tensor<6xi8> {  // the last 2 results are 0
  %0 = stablehlo.add %a, %a : tensor<6xi8>
  return %0 : tensor<6xi8>
}
func.func @add_ui8_6(%a: tensor<6xui8>) -> tensor<6xui8> {  // as i8: unsigned does not matter
  %0 = stablehlo.add %a, %a : tensor<6xui8>
  return %0 : tensor<6xui8>
}
func.func @widen_i8_3(%a: tensor<3xi8>) -> tensor<3xi32> {  // the input side: reads 0 0 0
  %0 = stablehlo.convert %a : (tensor<3xi8>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}
