module {
  func.func @divide_rows(%arg0: tensor<?x4xf32>, %arg1: tensor<?x1xf32>) -> tensor<?x4xf32> {
    %0 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
    %1 = shape.shape_of %arg1 : tensor<?x1xf32> -> tensor<2xindex>
    %2 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
    %3 = shape.assuming %2 -> (tensor<?x4xf32>) {
      %4 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
      %5 = shape.shape_of %arg1 : tensor<?x1xf32> -> tensor<2xindex>
      %6 = shape.broadcast %4, %5 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %7 = stablehlo.dynamic_broadcast_in_dim %arg0, %6, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      %8 = stablehlo.dynamic_broadcast_in_dim %arg1, %6, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      %9 = stablehlo.divide %7, %8 : tensor<?x4xf32>
      shape.assuming_yield %9 : tensor<?x4xf32>
    }
    return %3 : tensor<?x4xf32>
  }
  func.func @outer_sum(%arg0: tensor<?xf32>, %arg1: tensor<?x1xf32>) -> tensor<?x?xf32> {
    %0 = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>
    %1 = shape.shape_of %arg1 : tensor<?x1xf32> -> tensor<2xindex>
    %2 = shape.broadcast %0, %1 : tensor<1xindex>, tensor<2xindex> -> tensor<2xindex>
    %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %2, dims = [1] : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %4 = stablehlo.dynamic_broadcast_in_dim %arg1, %2, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    %5 = stablehlo.add %3, %4 : tensor<?x?xf32>
    return %5 : tensor<?x?xf32>
  }
  func.func @rows_plus_bias(%arg0: tensor<?x3xf32>, %arg1: tensor<3xf32>) -> tensor<?x3xf32> {
    %0 = shape.const_shape [3] : tensor<1xindex>
    %1 = shape.shape_of %arg0 : tensor<?x3xf32> -> tensor<2xindex>
    %2 = shape.broadcast %1, %0 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %3 = stablehlo.dynamic_broadcast_in_dim %arg0, %2, dims = [0, 1] : (tensor<?x3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
    %4 = stablehlo.dynamic_broadcast_in_dim %arg1, %2, dims = [1] : (tensor<3xf32>, tensor<2xindex>) -> tensor<?x3xf32>
    %5 = stablehlo.add %3, %4 : tensor<?x3xf32>
    return %5 : tensor<?x3xf32>
  }
  func.func @scale_by_scalar(%arg0: tensor<?x?xf32>, %arg1: tensor<f32>) -> tensor<?x?xf32> {
    %0 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %1 = stablehlo.dynamic_broadcast_in_dim %arg1, %0, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
    %2 = stablehlo.multiply %arg0, %1 : tensor<?x?xf32>
    return %2 : tensor<?x?xf32>
  }
}
