// RUN: vmapc-opt %s -split-input-file --arr-pack-operands | FileCheck %s

// The kNN's distances [q, r] read the unbatched references [r, d] along d,
// not along the output's innermost loop r: they read a transposed copy
// [d, r] instead (one linalg.transpose for the whole batch), through the
// transposed map; the queries (batched) and the payload are unchanged.
// CHECK-DAG: #[[$Q:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RT:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @classify(
// CHECK-SAME:      %[[Q:[a-z0-9]+]]: tensor<256x64xf32> {{.+}}, %[[R:[a-z0-9]+]]: tensor<1000x64xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<64x1000xf32>
// CHECK-NEXT:    %[[T:.+]] = linalg.transpose ins(%[[R]] : tensor<1000x64xf32>) outs(%[[E]] : tensor<64x1000xf32>) permutation = [1, 0]
// CHECK-NEXT:    %[[D:.+]] = linalg.generic {indexing_maps = [#[[$Q]], #[[$RT]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[Q]], %[[T]] : tensor<256x64xf32>, tensor<64x1000xf32>)
// CHECK:           arith.subf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         linalg.generic {{.+}} ins(%[[D]] : tensor<256x1000xf32>)
// CHECK-NOT:     linalg.transpose

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @classify(%arg0: tensor<256x64xf32> {arr.name = "q"}, %arg1: tensor<1000x64xf32> {arr.name = "refs"}) -> (tensor<256xi32> {arr.name = "out"}) attributes {arr.batch = 256 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant 0x7F800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<256x1000xf32>
    %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<256x1000xf32>) -> tensor<256x1000xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<256x64xf32>, tensor<1000x64xf32>) outs(%1 : tensor<256x1000xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %8 = arith.subf %in, %in_1 : f32
      %9 = arith.mulf %8, %8 : f32
      %10 = arith.addf %9, %out : f32
      linalg.yield %10 : f32
    } -> tensor<256x1000xf32>
    %3 = tensor.empty() : tensor<256xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<256xf32>) -> tensor<256xf32>
    %5 = tensor.empty() : tensor<256xi32>
    %6 = linalg.fill ins(%c0_i32 : i32) outs(%5 : tensor<256xi32>) -> tensor<256xi32>
    %7:2 = linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<256x1000xf32>) outs(%4, %6 : tensor<256xf32>, tensor<256xi32>) {
    ^bb0(%in: f32, %out: f32, %out_1: i32):
      %8 = linalg.index 1 : index
      %9 = arith.index_cast %8 : index to i32
      %10 = arith.cmpf olt, %in, %out : f32
      %11 = arith.cmpf oeq, %in, %out : f32
      %12 = arith.cmpi slt, %9, %out_1 : i32
      %13 = arith.andi %11, %12 : i1
      %14 = arith.ori %10, %13 : i1
      %15 = arith.select %14, %in, %out : f32
      %16 = arith.select %14, %9, %out_1 : i32
      linalg.yield %15, %16 : f32, i32
    } -> (tensor<256xf32>, tensor<256xi32>)
    return %7#1 : tensor<256xi32>
  }
}

// -----

// A transpose of exp(x) is folded into the exp, which writes the
// transposed layout directly.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$SWAP:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @e(
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[X:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SWAP]]], {{.+}} ins(%arg0 : tensor<2x4x8xf32>) outs(%{{.+}} : tensor<2x8x4xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      math.exp
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[X]] : tensor<2x8x4xf32>

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {
  func.func @e(%arg0: tensor<2x4x8xf32> {arr.name = "x"}) -> (tensor<2x8x4xf32> {arr.name = "out"}) attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
    %0 = tensor.empty() : tensor<2x4x8xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x4x8xf32>) outs(%0 : tensor<2x4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %3 = math.exp %in : f32
      linalg.yield %3 : f32
    } -> tensor<2x4x8xf32>
    %2 = tensor.empty() : tensor<2x8x4xf32>
    %transposed = linalg.transpose ins(%1 : tensor<2x4x8xf32>) outs(%2 : tensor<2x8x4xf32>) permutation = [0, 2, 1] 
    return %transposed : tensor<2x8x4xf32>
  }
}

// -----

// x @ w already reads w [k, n] along the output's innermost loop n: no copy.
// CHECK-LABEL: func.func @e(
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.matmul ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>)
// CHECK-NOT:     linalg.transpose

module {
  func.func @e(%arg0: tensor<16x64xf32> {arr.name = "x"}, %arg1: tensor<64x32xf32> {arr.name = "w"}) -> (tensor<16x32xf32> {arr.name = "out"}) attributes {arr.batch = 16 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<16x32xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
    return %2 : tensor<16x32xf32>
  }
}
