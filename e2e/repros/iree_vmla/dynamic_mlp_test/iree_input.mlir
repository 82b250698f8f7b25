module {
  ml_program.global private @vars.__sm_node10__biases.1(dense<[0.0811614394, 0.0537166521, -0.047753673, 0.0876911208, 0.0877284929, 0.0490089096, 0.0821470096, -0.0525550582, -0.00100652955, 0.0619756691, 0.0909131541, 0.0274966508]> : tensor<12xf32>) : tensor<12xf32>
  ml_program.global private @vars.__sm_node11__biases.2(dense<[-0.0541893095, -0.0464863293, 0.0865653976, 0.0652290136]> : tensor<4xf32>) : tensor<4xf32>
  ml_program.global private @vars.__sm_node9__biases.0(dense<[0.0552361459, 5.649560e-02, 0.0523207821, 0.0828806236, 0.0317245573, 0.013673516, -0.0596488602, 0.0396592766, 0.0904390811, 0.0779926553, 0.0987134724, 6.374070e-02, 0.00902443286, -0.00974918901, 0.0781114399, 0.0946529582]> : tensor<16xf32>) : tensor<16xf32>
  ml_program.global private @vars.__sm_node7__weights.1(dense<"0xDC101DBF551ADB3EEA59903E968109BECD5A7E3EDBED99BE9B06D53E77D43DBE76C17D3E3628B23E154830BDFC1F563F789F333EF732903E289D2BBE5535A4BC9DC9F53EC2B091BE4A3540BF487BF1BD6B83A0BE33FCF13D2556423ECEA586BE35DAE7BD87D9A5BED99D9BBE87A1A33D23A4633E4D09873DC06AAC3E3CDFB23ED04BD2BCED5647BEE2D2A9BEC14BE0BE72484A3DA57BA1BDF336403F2312313D6822FFBE43CB003FD26642BFF0EDF3BEDB9F033E1FE8AABBFF53E63E263303BFB569D8BEFC4656BE191116BE570C01BF379E973DCDA556BECF5405BF664CA2BEB3E8C73ED43C1CBEE65969BD67F4A03EA1CED03D5059BEBE1E63E7BD237660BEA25B633D91E34EBEBA73BF3E58468FBE76EF3DBE592ED03C34F12C3F08A38E3E6EC1393EE6D245BE63F9BC3E62C63E3F3723043FDBCEB73EED9D873E9D9074BEBA641F3E396F793E2D50C8BD5A302E3F2CDF143EE53EA13E8CE7A33D90223CBF086E0CBEEA49FCBCCAE5CB3E91EDB23DBC792F3DCC7CD83DFC8063BD0A0A86BE6CD9E1BEF79FB43DFB5E523E95277A3F3D92103EC104723E77AEC7BDB531353E3F3B9C3E6F5DBEBE1CFDFBBEDAE1D03E6AF4D53E0DB10D3E8F7C9FBE25A9D53D28B1283F33FA1ABFA2B5FEBE4999373D243CAE3A66B6E5BEC7D897BE798A483EA37B36BE11B98EBEF16C0A3FE4C3943D4EA5E23D65DB9C3EDA8CD83DEBDFC23EF77B033E76652B3F7DDC2FBE685A0C3ED375083C53076FBEA6C0E6BDDAD082BE1471803DEA08B23E3227083C1A7D483E0314003E158DC7BDF49231BE7F8F07BE4EFF58BF667A0B3F5CB6B63C02F5CDBD2219E5BE56D4213F8A5800BED7B517BDBAD60B3E31F0943EF18E77BECF5FBF3E25AB383C5A24F33EEA6092BC22C903BEAE970CBF4132E7BDABCF3E3EA0B9803E0F859DBDE0BE6E3F28AE1DBF97C108BD3589013FFB99563EC29D763DDC8B1EBF88F4D03D4D6F44BEBD81783DB6E8B13E27D612BCD135D0BD9057A73E6363B1BCC85484BE4E24B9BE434BB43E76F9AC3E0F38813E4C24413DEC1692BE6BA4F7BD55C32C3F0ECD613D0583893E052519BE"> : tensor<16x12xf32>) : tensor<16x12xf32>
  ml_program.global private @vars.__sm_node8__weights.2(dense<[[0.107995585, 0.230929047, 0.238859653, -0.0711569265], [-0.437384427, -0.0197839178, -0.345088363, 0.169464096], [0.173722133, -0.400379032, -0.174659282, 0.61178863], [-0.147033304, -0.187075853, -0.546223342, -0.0168959834], [0.335191429, 0.856423556, 0.523755312, 0.110364996], [0.409530342, 0.440366626, 0.139111698, -0.0808637663], [1.01305115, 0.565527916, -0.471363872, -5.176870e-01], [0.248158693, -0.440947533, -0.249554694, 0.0416556597], [-0.586478829, 0.0860248729, -0.366159588, -0.703980505], [0.731719434, -0.535912693, 0.226936013, -0.278376877], [0.642069518, -0.0427238271, 0.755421758, -0.136089742], [0.0789814442, -0.202795267, 0.421607494, -0.710271955]]> : tensor<12x4xf32>) : tensor<12x4xf32>
  ml_program.global private @vars.__sm_node6__weights.0(dense<"0xF35F713EE47118BFF162373FE91320BE8178B8BE1C1DE33EFC0DDC3E34F3A2BEAE95003C26888FBF5F34133F2DF0FD3E0D0DF43E3D5C81BF300C2BBE43D48A3A97974F3EDC03143EB61B293F000146BF8582CFBD9BEDA7BE4110C63D2CAE8D3E31B9283FC84870BE1DF1AC3E599468BFCE80BBBD4D8C073FB7B14BBEA1C42C3E0E17063F4EE1053F941CDD3E260B7ABD81697F3D5C4525BEFE77D73E7F05993F880E1C3D9A0291BE9109943C6FCC84BF3DBDFD3D11ACE5BEF2138CBD37D3153CD062C13E5E6FDC3D5A4CD73E4E1039BFDC7333BF34AE4EBD9E598CBE231794BD2742353E1B7691BC3AD4903E26D8453F8D67F9BEFA1010BD18AE1D3EB380D5BD9553043F08A199BF69F5813FBE4112BFF5F7D83D9268B43E4812C9BE18936C3E4D48B43E9E04863E011FEDBE8080803FDE68E83D558A13BF68C9A13E0ED8A13CD5C46D3EA810E4BFFD19293F2F4B9C3D6F7AA83D81355CBE4772C43EB523FC3EFFAA0A3E9B2C323F5E84233D28C84CBE9B9003BF18B095BE4D0CD13EDBD327BD2C8530BEE43D873EA0D408BFA70A83BEDE18153E5A08913E64EB803E4712123E9DF4773E90862E3F84F6C7BE03A06FBEDABE1C3F5BFB23BF2A1FE03EB8F85ABFAFCA66BE33C9BF3EC7D3D0BD318CBABD793FAE3E93C468BF30CEC03C05294A3EF964FEBD06229EBE7CD1AEBE285D5F3E53FC59BF7094493EF56975BEAA1819BE"> : tensor<8x16xf32>) : tensor<8x16xf32>
  func.func @classify(%arg0: tensor<?x8xf32>) -> tensor<?xi32> {
    %0 = shape.const_shape [4] : tensor<1xindex>
    %1 = shape.const_shape [12] : tensor<1xindex>
    %2 = shape.const_shape [16] : tensor<1xindex>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.iota dim = 0 : tensor<4xi32>
    %vars.__sm_node10__biases.1 = ml_program.global_load @vars.__sm_node10__biases.1 : tensor<12xf32>
    %vars.__sm_node11__biases.2 = ml_program.global_load @vars.__sm_node11__biases.2 : tensor<4xf32>
    %vars.__sm_node9__biases.0 = ml_program.global_load @vars.__sm_node9__biases.0 : tensor<16xf32>
    %vars.__sm_node7__weights.1 = ml_program.global_load @vars.__sm_node7__weights.1 : tensor<16x12xf32>
    %vars.__sm_node8__weights.2 = ml_program.global_load @vars.__sm_node8__weights.2 : tensor<12x4xf32>
    %vars.__sm_node6__weights.0 = ml_program.global_load @vars.__sm_node6__weights.0 : tensor<8x16xf32>
    %4 = stablehlo.dot %arg0, %vars.__sm_node6__weights.0, precision = [DEFAULT, DEFAULT] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
    %5 = shape.shape_of %4 : tensor<?x16xf32> -> tensor<2xindex>
    %6 = shape.broadcast %5, %2 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %7 = stablehlo.dynamic_broadcast_in_dim %4, %6, dims = [0, 1] : (tensor<?x16xf32>, tensor<2xindex>) -> tensor<?x16xf32>
    %8 = stablehlo.dynamic_broadcast_in_dim %vars.__sm_node9__biases.0, %6, dims = [1] : (tensor<16xf32>, tensor<2xindex>) -> tensor<?x16xf32>
    %9 = stablehlo.add %7, %8 : tensor<?x16xf32>
    %10 = shape.shape_of %9 : tensor<?x16xf32> -> tensor<2xindex>
    %11 = stablehlo.dynamic_broadcast_in_dim %cst_0, %10, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x16xf32>
    %12 = stablehlo.maximum %9, %11 : tensor<?x16xf32>
    %13 = stablehlo.dot %12, %vars.__sm_node7__weights.1, precision = [DEFAULT, DEFAULT] : (tensor<?x16xf32>, tensor<16x12xf32>) -> tensor<?x12xf32>
    %14 = shape.shape_of %13 : tensor<?x12xf32> -> tensor<2xindex>
    %15 = shape.broadcast %14, %1 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %16 = stablehlo.dynamic_broadcast_in_dim %13, %15, dims = [0, 1] : (tensor<?x12xf32>, tensor<2xindex>) -> tensor<?x12xf32>
    %17 = stablehlo.dynamic_broadcast_in_dim %vars.__sm_node10__biases.1, %15, dims = [1] : (tensor<12xf32>, tensor<2xindex>) -> tensor<?x12xf32>
    %18 = stablehlo.add %16, %17 : tensor<?x12xf32>
    %19 = shape.shape_of %18 : tensor<?x12xf32> -> tensor<2xindex>
    %20 = stablehlo.dynamic_broadcast_in_dim %cst_0, %19, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x12xf32>
    %21 = stablehlo.maximum %18, %20 : tensor<?x12xf32>
    %22 = stablehlo.dot %21, %vars.__sm_node8__weights.2, precision = [DEFAULT, DEFAULT] : (tensor<?x12xf32>, tensor<12x4xf32>) -> tensor<?x4xf32>
    %23 = shape.shape_of %22 : tensor<?x4xf32> -> tensor<2xindex>
    %24 = shape.broadcast %23, %0 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %25 = stablehlo.dynamic_broadcast_in_dim %22, %24, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %26 = stablehlo.dynamic_broadcast_in_dim %vars.__sm_node11__biases.2, %24, dims = [1] : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %27 = stablehlo.add %25, %26 : tensor<?x4xf32>
    %28 = shape.shape_of %27 : tensor<?x4xf32> -> tensor<2xindex>
    %29 = stablehlo.dynamic_broadcast_in_dim %3, %28, dims = [1] : (tensor<4xi32>, tensor<2xindex>) -> tensor<?x4xi32>
    %30:2 = stablehlo.reduce(%27 init: %cst), (%29 init: %c) across dimensions = [1] : (tensor<?x4xf32>, tensor<?x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %31 = stablehlo.compare  GE, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %32 = stablehlo.select %31, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %33 = stablehlo.compare  EQ, %arg1, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %34 = stablehlo.minimum %arg2, %arg4 : tensor<i32>
      %35 = stablehlo.select %31, %arg2, %arg4 : tensor<i1>, tensor<i32>
      %36 = stablehlo.select %33, %34, %35 : tensor<i1>, tensor<i32>
      stablehlo.return %32, %36 : tensor<f32>, tensor<i32>
    }
    return %30#1 : tensor<?xi32>
  }
  func.func @predict(%arg0: tensor<?x8xf32>) -> tensor<?x4xf32> {
    %0 = shape.const_shape [4] : tensor<1xindex>
    %1 = shape.const_shape [12] : tensor<1xindex>
    %2 = shape.const_shape [16] : tensor<1xindex>
    %cst = stablehlo.constant dense<-0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %vars.__sm_node10__biases.1 = ml_program.global_load @vars.__sm_node10__biases.1 : tensor<12xf32>
    %vars.__sm_node11__biases.2 = ml_program.global_load @vars.__sm_node11__biases.2 : tensor<4xf32>
    %vars.__sm_node9__biases.0 = ml_program.global_load @vars.__sm_node9__biases.0 : tensor<16xf32>
    %vars.__sm_node7__weights.1 = ml_program.global_load @vars.__sm_node7__weights.1 : tensor<16x12xf32>
    %vars.__sm_node8__weights.2 = ml_program.global_load @vars.__sm_node8__weights.2 : tensor<12x4xf32>
    %vars.__sm_node6__weights.0 = ml_program.global_load @vars.__sm_node6__weights.0 : tensor<8x16xf32>
    %3 = stablehlo.dot %arg0, %vars.__sm_node6__weights.0, precision = [DEFAULT, DEFAULT] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
    %4 = shape.shape_of %3 : tensor<?x16xf32> -> tensor<2xindex>
    %5 = shape.broadcast %4, %2 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %6 = stablehlo.dynamic_broadcast_in_dim %3, %5, dims = [0, 1] : (tensor<?x16xf32>, tensor<2xindex>) -> tensor<?x16xf32>
    %7 = stablehlo.dynamic_broadcast_in_dim %vars.__sm_node9__biases.0, %5, dims = [1] : (tensor<16xf32>, tensor<2xindex>) -> tensor<?x16xf32>
    %8 = stablehlo.add %6, %7 : tensor<?x16xf32>
    %9 = shape.shape_of %8 : tensor<?x16xf32> -> tensor<2xindex>
    %10 = stablehlo.dynamic_broadcast_in_dim %cst_1, %9, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x16xf32>
    %11 = stablehlo.maximum %8, %10 : tensor<?x16xf32>
    %12 = stablehlo.dot %11, %vars.__sm_node7__weights.1, precision = [DEFAULT, DEFAULT] : (tensor<?x16xf32>, tensor<16x12xf32>) -> tensor<?x12xf32>
    %13 = shape.shape_of %12 : tensor<?x12xf32> -> tensor<2xindex>
    %14 = shape.broadcast %13, %1 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %15 = stablehlo.dynamic_broadcast_in_dim %12, %14, dims = [0, 1] : (tensor<?x12xf32>, tensor<2xindex>) -> tensor<?x12xf32>
    %16 = stablehlo.dynamic_broadcast_in_dim %vars.__sm_node10__biases.1, %14, dims = [1] : (tensor<12xf32>, tensor<2xindex>) -> tensor<?x12xf32>
    %17 = stablehlo.add %15, %16 : tensor<?x12xf32>
    %18 = shape.shape_of %17 : tensor<?x12xf32> -> tensor<2xindex>
    %19 = stablehlo.dynamic_broadcast_in_dim %cst_1, %18, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x12xf32>
    %20 = stablehlo.maximum %17, %19 : tensor<?x12xf32>
    %21 = stablehlo.dot %20, %vars.__sm_node8__weights.2, precision = [DEFAULT, DEFAULT] : (tensor<?x12xf32>, tensor<12x4xf32>) -> tensor<?x4xf32>
    %22 = shape.shape_of %21 : tensor<?x4xf32> -> tensor<2xindex>
    %23 = shape.broadcast %22, %0 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %24 = stablehlo.dynamic_broadcast_in_dim %21, %23, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %25 = stablehlo.dynamic_broadcast_in_dim %vars.__sm_node11__biases.2, %23, dims = [1] : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %26 = stablehlo.add %24, %25 : tensor<?x4xf32>
    %27 = stablehlo.reduce(%26 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %dim = tensor.dim %27, %c0 : tensor<?xf32>
    %from_elements = tensor.from_elements %dim, %c1 : tensor<2xindex>
    %28 = stablehlo.dynamic_reshape %27, %from_elements : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x1xf32>
    %29 = shape.shape_of %26 : tensor<?x4xf32> -> tensor<2xindex>
    %30 = shape.cstr_broadcastable %29, %from_elements : tensor<2xindex>, tensor<2xindex>
    %31 = shape.assuming %30 -> (tensor<?x4xf32>) {
      %38 = shape.shape_of %26 : tensor<?x4xf32> -> tensor<2xindex>
      %39 = shape.broadcast %38, %from_elements : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %40 = stablehlo.dynamic_broadcast_in_dim %26, %39, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      %41 = stablehlo.dynamic_broadcast_in_dim %28, %39, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      %42 = stablehlo.subtract %40, %41 : tensor<?x4xf32>
      shape.assuming_yield %42 : tensor<?x4xf32>
    }
    %32 = stablehlo.exponential %31 : tensor<?x4xf32>
    %33 = stablehlo.reduce(%32 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %dim_2 = tensor.dim %33, %c0 : tensor<?xf32>
    %from_elements_3 = tensor.from_elements %dim_2, %c1 : tensor<2xindex>
    %34 = stablehlo.dynamic_reshape %33, %from_elements_3 : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x1xf32>
    %35 = shape.shape_of %32 : tensor<?x4xf32> -> tensor<2xindex>
    %36 = shape.cstr_broadcastable %35, %from_elements_3 : tensor<2xindex>, tensor<2xindex>
    %37 = shape.assuming %36 -> (tensor<?x4xf32>) {
      %38 = shape.shape_of %32 : tensor<?x4xf32> -> tensor<2xindex>
      %39 = shape.broadcast %38, %from_elements_3 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %40 = stablehlo.dynamic_broadcast_in_dim %32, %39, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      %41 = stablehlo.dynamic_broadcast_in_dim %34, %39, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x4xf32>
      %42 = stablehlo.divide %40, %41 : tensor<?x4xf32>
      shape.assuming_yield %42 : tensor<?x4xf32>
    }
    return %37 : tensor<?x4xf32>
  }
}
