// RUN: vmapc-opt %s -split-input-file --arr-pack-operands | FileCheck %s

// The kNN's distances [q, r] read the unbatched references [r, d] along d,
// not along the output's innermost loop r: they read a transposed copy
// [d, r] instead (one linalg.transpose for the whole batch, made where the
// references are defined: at the top of the body, out of any loop), through
// the transposed map; the queries (batched) and the payload are unchanged.
// CHECK-DAG: #[[$Q:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$RT:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @classify(
// CHECK-SAME:      %[[Q:[a-z0-9]+]]: tensor<256x64xf32> {{.+}}, %[[R:[a-z0-9]+]]: tensor<1000x64xf32>
// CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<64x1000xf32>
// CHECK-NEXT:    %[[T:.+]] = linalg.transpose ins(%[[R]] : tensor<1000x64xf32>) outs(%[[E]] : tensor<64x1000xf32>) permutation = [1, 0]
// CHECK:         %[[D:.+]] = linalg.generic {indexing_maps = [#[[$Q]], #[[$RT]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[Q]], %[[T]] : tensor<256x64xf32>, tensor<64x1000xf32>)
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

// -----

// The RNN step tanh(W @ h + U @ x) in a loop, as --arr-vmap batches it:
// every value batch last ([8, 16]), then a transpose to the carry's [16, 8].
// The transpose folds into the tanh (1), and the tanh's layout goes back to
// both products (1b): each writes [16, 8], computed as h @ W^T and x @ U^T,
// so that its output is contiguous along W's and U's rows; then (2) W and U
// are read through transposed copies made at the top of the body, once, not
// in every iteration of the loop.
// CHECK-DAG: #[[$WT:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$H:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$BF:.+]] = affine_map<(d0, d1, d2) -> (d1, d0)>
// CHECK-DAG: #[[$EW:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @rnn_batch(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<16x4xf32> {{.+}}, %[[W:[a-z0-9]+]]: tensor<8x8xf32> {{.+}}, %[[U:[a-z0-9]+]]: tensor<8x4xf32>
// CHECK-NEXT:    %[[E1:.+]] = tensor.empty() : tensor<8x8xf32>
// CHECK-NEXT:    %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<8x8xf32>) outs(%[[E1]] : tensor<8x8xf32>) permutation = [1, 0]
// CHECK-NEXT:    %[[E2:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT:    %[[UT:.+]] = linalg.transpose ins(%[[U]] : tensor<8x4xf32>) outs(%[[E2]] : tensor<4x8xf32>) permutation = [1, 0]
// CHECK:         %[[UX:.+]] = linalg.generic {indexing_maps = [#[[$WT]], #[[$H]], #[[$BF]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[UT]], %[[X]] : tensor<4x8xf32>, tensor<16x4xf32>) outs(%{{.+}} : tensor<16x8xf32>)
// CHECK:         scf.for
// CHECK-NOT:       linalg.transpose
// CHECK:           %[[WH:.+]] = linalg.generic {indexing_maps = [#[[$WT]], #[[$H]], #[[$BF]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[WT]], %{{.+}} : tensor<8x8xf32>, tensor<16x8xf32>) outs(%{{.+}} : tensor<16x8xf32>)
// CHECK-NOT:       linalg.transpose
// CHECK:           linalg.generic {indexing_maps = [#[[$EW]], #[[$EW]], #[[$EW]]], iterator_types = ["parallel", "parallel"]} ins(%[[WH]], %[[UX]] : tensor<16x8xf32>, tensor<16x8xf32>) outs(%{{.+}} : tensor<16x8xf32>)
// CHECK:             math.tanh
// CHECK-NOT:     linalg.transpose

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
module {
  func.func @rnn_batch(%arg0: tensor<16x4xf32> {arr.name = "x"}, %arg1: tensor<8x8xf32> {arr.name = "w"}, %arg2: tensor<8x4xf32> {arr.name = "u"}) -> (tensor<16x8xf32> {arr.name = "out"}) attributes {arr.batch = 16 : i64, arr.in_axes = [0, unit, unit], arr.out_axes = [0]} {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %0 = tensor.empty() : tensor<16x8xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<16x8xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    } -> tensor<16x8xf32>
    %2 = tensor.empty() : tensor<8x16xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %4 = tensor.empty() : tensor<8x16xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg2, %arg0 : tensor<8x4xf32>, tensor<16x4xf32>) outs(%5 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %11 = arith.mulf %in, %in_0 : f32
      %12 = arith.addf %out, %11 : f32
      linalg.yield %12 : f32
    } -> tensor<8x16xf32>
    %7 = tensor.empty() : tensor<8x16xf32>
    %8 = tensor.empty() : tensor<16x8xf32>
    %9 = tensor.empty() : tensor<16x8xf32>
    %10 = scf.for %arg3 = %c0 to %c3 step %c1 iter_args(%arg4 = %1) -> (tensor<16x8xf32>) {
      %11 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg1, %arg4 : tensor<8x8xf32>, tensor<16x8xf32>) outs(%3 : tensor<8x16xf32>) {
      ^bb0(%in: f32, %in_0: f32, %out: f32):
        %15 = arith.mulf %in, %in_0 : f32
        %16 = arith.addf %out, %15 : f32
        linalg.yield %16 : f32
      } -> tensor<8x16xf32>
      %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %6 : tensor<8x16xf32>, tensor<8x16xf32>) outs(%7 : tensor<8x16xf32>) {
      ^bb0(%in: f32, %in_0: f32, %out: f32):
        %15 = arith.addf %in, %in_0 : f32
        %16 = math.tanh %15 : f32
        linalg.yield %16 : f32
      } -> tensor<8x16xf32>
      %transposed = linalg.transpose ins(%12 : tensor<8x16xf32>) outs(%8 : tensor<16x8xf32>) permutation = [1, 0] 
      %13 = linalg.copy ins(%transposed : tensor<16x8xf32>) outs(%9 : tensor<16x8xf32>) -> tensor<16x8xf32>
      %14 = bufferization.materialize_in_destination %13 in %arg4 : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
      scf.yield %14 : tensor<16x8xf32>
    }
    return %10 : tensor<16x8xf32>
  }
}


// -----

// The cosine similarity of each query against a shared set: the dot
// products [q, s] and the set's norms [s] both read set[s, d] along d, not
// along their output's innermost loop s. Both read one transposed copy
// [d, s] (made once, not once per reduction); the queries' norms read the
// batched queries as they are.
// CHECK-LABEL: func.func @sims(
// CHECK-SAME:      %[[Q:[a-z0-9]+]]: tensor<4x8xf32> {{.+}}, %[[S:[a-z0-9]+]]: tensor<16x8xf32>
// CHECK:         %[[T:.+]] = linalg.transpose ins(%[[S]] : tensor<16x8xf32>) outs(%{{.+}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK-NOT:     linalg.transpose
// CHECK:         linalg.generic {{.+}} ins(%[[Q]], %[[T]] : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK:         linalg.generic {{.+}} ins(%[[Q]] : tensor<4x8xf32>)
// CHECK:         linalg.generic {{.+}} ins(%[[T]] : tensor<8x16xf32>)
// CHECK-NOT:     linalg.transpose

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @sims(%arg0: tensor<4x8xf32> {arr.name = "q"}, %arg1: tensor<16x8xf32> {arr.name = "set"}) -> (tensor<4x16xf32> {arr.name = "out"}) attributes {arr.batch = 4 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x16xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<16x8xf32>) outs(%1 : tensor<4x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %11 = arith.mulf %in, %in_0 : f32
      %12 = arith.addf %11, %out : f32
      linalg.yield %12 : f32
    } -> tensor<4x16xf32>
    %3 = tensor.empty() : tensor<4xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4xf32>) -> tensor<4xf32>
    %5 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%4 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.mulf %in, %in : f32
      %12 = arith.addf %11, %out : f32
      linalg.yield %12 : f32
    } -> tensor<4xf32>
    %6 = tensor.empty() : tensor<16xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<16xf32>) -> tensor<16xf32>
    %8 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<16x8xf32>) outs(%7 : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.mulf %in, %in : f32
      %12 = arith.addf %11, %out : f32
      linalg.yield %12 : f32
    } -> tensor<16xf32>
    %9 = tensor.empty() : tensor<4x16xf32>
    %10 = linalg.generic {indexing_maps = [#map3, #map4, #map5, #map3], iterator_types = ["parallel", "parallel"]} ins(%2, %5, %8 : tensor<4x16xf32>, tensor<4xf32>, tensor<16xf32>) outs(%9 : tensor<4x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
      %11 = arith.mulf %in_0, %in_1 : f32
      %12 = math.sqrt %11 : f32
      %13 = arith.divf %in, %12 : f32
      linalg.yield %13 : f32
    } -> tensor<4x16xf32>
    return %10 : tensor<4x16xf32>
  }
}
