// RUN: vmapc-opt %s --arr-plan-buffers=alignment=256 --arr-verify-buffer-plan -split-input-file | FileCheck %s
// RUN: vmapc-opt %s --arr-plan-buffers --arr-verify-buffer-plan -split-input-file | FileCheck %s --check-prefix=ALIGN64

// Inputs are the output of
//   mlir-opt --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries
//     function-boundary-type-conversion=identity-layout-map" --canonicalize
// on linalg-on-tensors programs (outputs written with
// bufferization.materialize_in_destination ... restrict writable), or
// hand-written where a case needs a particular shape.

// An MLP: matmul, bias add, relu, matmul, tanh, matmul, exp. Schedule points:
// 2 fill, 3 matmul, 5 bias, 7 relu, 9 fill, 10 matmul, 12 tanh, 14 fill,
// 15 matmul, 16 exp, 17 return. The bias add writes over the matmul result,
// the relu over the bias add, the tanh over the second matmul (3 in place).
// Two 128 KiB slots live together at points 9 and 10: arena == lower bound
// == 256 KiB; the naive sum is 5 x 128 KiB + 16 KiB + staging 64 + 16 KiB.

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<256x64xf32> {arr.name = "x", arr.staging, arr.staging_offset = 131072 : i64}
// CHECK-SAME: {arr.name = "out", arr.output, arr.staging, arr.staging_offset = 16384 : i64}
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<262144xi8> {arr.arena})
// CHECK-SAME: attributes {arr.plan = #arr.plan<arena_bytes = 262144, lower_bound = 262144, aligned_lower_bound = 262144, naive_sum = 753664, in_place = 3, buffers = 8, alignment = 256>}
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C128K:.+]] = arith.constant 131072 : index
// CHECK-NOT: memref.alloc
// CHECK: %[[H1:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<262144xi8> to memref<256x128xf32>
// CHECK: linalg.matmul ins(%[[X]], %{{.+}} : {{.+}}) outs(%[[H1]] :
// CHECK: %[[H1B:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<262144xi8> to memref<256x128xf32>
// CHECK: linalg.generic {{.+}} ins(%[[H1]], %{{.+}} : {{.+}}) outs(%[[H1B]] :
// CHECK: %[[R1:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<262144xi8> to memref<256x128xf32>
// CHECK: linalg.generic {{.+}} ins(%[[H1B]] : {{.+}}) outs(%[[R1]] :
// CHECK: %[[H2:.+]] = memref.view %[[ARENA]][%[[C128K]]][] : memref<262144xi8> to memref<256x128xf32>
// CHECK: linalg.matmul ins(%[[R1]], %{{.+}} : {{.+}}) outs(%[[H2]] :
// CHECK: %[[T2:.+]] = memref.view %[[ARENA]][%[[C128K]]][] : memref<262144xi8> to memref<256x128xf32>
// CHECK: linalg.generic {{.+}} ins(%[[H2]] : {{.+}}) outs(%[[T2]] :
// CHECK: %[[H3:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<262144xi8> to memref<256x16xf32>
// CHECK: linalg.matmul ins(%[[T2]], %{{.+}} : {{.+}}) outs(%[[H3]] :
// CHECK-NOT: memref.alloc
// CHECK: return

// ALIGN64-LABEL: func.func @mlp(
// ALIGN64-SAME: arena_bytes = 262144, lower_bound = 262144, aligned_lower_bound = 262144, naive_sum = {{[0-9]+}}, in_place = 3, buffers = 8, alignment = 64
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @mlp(%arg0: memref<256x64xf32> {arr.name = "x", arr.staging}, %arg1: memref<64x128xf32> {arr.name = "w1"}, %arg2: memref<128xf32> {arr.name = "b1"}, %arg3: memref<128x128xf32> {arr.name = "w2"}, %arg4: memref<128x16xf32> {arr.name = "w3"}, %arg5: memref<256x16xf32> {arr.name = "out", arr.output, arr.staging}) {
  %cst = arith.constant 0.000000e+00 : f32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.fill ins(%cst : f32) outs(%alloc : memref<256x128xf32>)
  linalg.matmul ins(%arg0, %arg1 : memref<256x64xf32>, memref<64x128xf32>) outs(%alloc : memref<256x128xf32>)
  %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc, %arg2 : memref<256x128xf32>, memref<128xf32>) outs(%alloc_0 : memref<256x128xf32>) {
  ^bb0(%in: f32, %in_5: f32, %out: f32):
    %0 = arith.addf %in, %in_5 : f32
    linalg.yield %0 : f32
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_0 : memref<256x128xf32>) outs(%alloc_1 : memref<256x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %cst : f32
    linalg.yield %0 : f32
  }
  %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<256x128xf32>)
  linalg.matmul ins(%alloc_1, %arg3 : memref<256x128xf32>, memref<128x128xf32>) outs(%alloc_2 : memref<256x128xf32>)
  %alloc_3 = memref.alloc() {alignment = 64 : i64} : memref<256x128xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_2 : memref<256x128xf32>) outs(%alloc_3 : memref<256x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  }
  %alloc_4 = memref.alloc() {alignment = 64 : i64} : memref<256x16xf32>
  linalg.fill ins(%cst : f32) outs(%alloc_4 : memref<256x16xf32>)
  linalg.matmul ins(%alloc_3, %arg4 : memref<256x128xf32>, memref<128x16xf32>) outs(%alloc_4 : memref<256x16xf32>)
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_4 : memref<256x16xf32>) outs(%arg5 : memref<256x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Nearest reference: all-pairs distances [256, 1000] reduced by an argmin
// that writes the index straight into the output. The 1,024,000-byte
// distance matrix is live with the staged queries (point 5) and with the
// running minimum and the output slot (points 7-9): arena == lower bound.

// CHECK-LABEL: func.func @classify(
// CHECK-SAME: {arr.name = "q", arr.staging, arr.staging_offset = 1024000 : i64}
// CHECK-SAME: {arr.name = "out", arr.output, arr.staging, arr.staging_offset = 1025024 : i64}
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<1089536xi8> {arr.arena})
// CHECK-SAME: arr.plan = #arr.plan<arena_bytes = 1089536, lower_bound = 1089536, aligned_lower_bound = 1089536, naive_sum = 1091584, in_place = 0, buffers = 4, alignment = 256>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[CMIN:.+]] = arith.constant 1024000 : index
// CHECK: %[[D:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<1089536xi8> to memref<256x1000xf32>
// CHECK: %[[M:.+]] = memref.view %[[ARENA]][%[[CMIN]]][] : memref<1089536xi8> to memref<256xf32>
// CHECK: linalg.generic {{.+}} ins(%[[D]] : {{.+}}) outs(%[[M]], %{{.+}} :

// ALIGN64-LABEL: func.func @classify(
// ALIGN64-SAME: arena_bytes = 1089536,
#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
func.func @classify(%arg0: memref<256x64xf32> {arr.name = "q", arr.staging}, %arg1: memref<1000x64xf32> {arr.name = "refs"}, %arg2: memref<256xi32> {arr.name = "out", arr.output, arr.staging}) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 0x7F800000 : f32
  %c0_i32 = arith.constant 0 : i32
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<256x1000xf32>
  linalg.fill ins(%cst : f32) outs(%alloc : memref<256x1000xf32>)
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<256x64xf32>, memref<1000x64xf32>) outs(%alloc : memref<256x1000xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %0 = arith.subf %in, %in_2 : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  linalg.fill ins(%cst_0 : f32) outs(%alloc_1 : memref<256xf32>)
  linalg.fill ins(%c0_i32 : i32) outs(%arg2 : memref<256xi32>)
  linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "reduction"]} ins(%alloc : memref<256x1000xf32>) outs(%alloc_1, %arg2 : memref<256xf32>, memref<256xi32>) {
  ^bb0(%in: f32, %out: f32, %out_2: i32):
    %0 = linalg.index 1 : index
    %1 = arith.index_cast %0 : index to i32
    %2 = arith.cmpf olt, %in, %out : f32
    %3 = arith.select %2, %in, %out : f32
    %4 = arith.select %2, %1, %out_2 : i32
    linalg.yield %3, %4 : f32, i32
  }
  return
}

// -----

// A loop: %alloc (x squared) is read on every iteration, so it is live over
// the whole scf.for (point 8), as is the loop-carried %alloc_0; the matmul
// result allocated inside the loop lives at point 8 only. No in-place inside
// the loop; the negation after the loop writes over %alloc_0 (point 10).
// Three 8 KiB buffers are live at point 8: arena == lower bound == 24 KiB.

// CHECK-LABEL: func.func @rnn(
// CHECK-SAME: {arr.name = "x", arr.staging, arr.staging_offset = 0 : i64}
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<24576xi8> {arr.arena})
// CHECK-SAME: arr.plan = #arr.plan<arena_bytes = 24576, lower_bound = 24576, aligned_lower_bound = 24576, naive_sum = 40960, in_place = 1, buffers = 5, alignment = 256>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C8K:.+]] = arith.constant 8192 : index
// CHECK-DAG: %[[C16K:.+]] = arith.constant 16384 : index
// CHECK: %[[SQ:.+]] = memref.view %[[ARENA]][%[[C8K]]][] : memref<24576xi8> to memref<64x32xf32>
// CHECK: %[[ACC:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<24576xi8> to memref<64x32xf32>
// CHECK: memref.copy %[[SQ]], %[[ACC]]
// CHECK: scf.for
// CHECK-NEXT: %[[MM:.+]] = memref.view %[[ARENA]][%[[C16K]]][] : memref<24576xi8> to memref<64x32xf32>
// CHECK: linalg.matmul ins(%[[ACC]], %{{.+}} : {{.+}}) outs(%[[MM]] :
// CHECK: linalg.generic {{.+}} ins(%[[MM]], %[[SQ]] : {{.+}}) outs(%[[ACC]] :
// CHECK: }
// CHECK: %[[NEG:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<24576xi8> to memref<64x32xf32>
// CHECK: linalg.generic {{.+}} ins(%[[ACC]] : {{.+}}) outs(%[[NEG]] :
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @rnn(%arg0: memref<64x32xf32> {arr.name = "x", arr.staging}, %arg1: memref<32x32xf32> {arr.name = "w"}, %arg2: memref<64x32xf32> {arr.name = "out", arr.output}) {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %alloc = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : memref<64x32xf32>) outs(%alloc : memref<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    linalg.yield %0 : f32
  }
  %alloc_0 = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
  memref.copy %alloc, %alloc_0 : memref<64x32xf32> to memref<64x32xf32>
  scf.for %arg3 = %c0 to %c4 step %c1 {
    %alloc_2 = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
    linalg.fill ins(%cst : f32) outs(%alloc_2 : memref<64x32xf32>)
    linalg.matmul ins(%alloc_0, %arg1 : memref<64x32xf32>, memref<32x32xf32>) outs(%alloc_2 : memref<64x32xf32>)
    linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_2, %alloc : memref<64x32xf32>, memref<64x32xf32>) outs(%alloc_0 : memref<64x32xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %0 = arith.addf %in, %in_3 : f32
      %1 = math.tanh %0 : f32
      linalg.yield %1 : f32
    }
  }
  %alloc_1 = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_0 : memref<64x32xf32>) outs(%alloc_1 : memref<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%alloc_1 : memref<64x32xf32>) outs(%arg2 : memref<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Views keep their root alive: %a is read through %flat at point 7, so %c
// (first written at 6) cannot take %a's bytes, but it takes %b's in place
// (linalg.copy is elementwise with identity maps). Deallocs are erased. With
// 256-byte alignment the two live 128-byte slots need 384 bytes; with 64,
// 256 == the lower bound.

// CHECK-LABEL: func.func @views(
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<384xi8> {arr.arena})
// CHECK-SAME: arr.plan = #arr.plan<arena_bytes = 384, lower_bound = 256, aligned_lower_bound = 384, naive_sum = 384, in_place = 1, buffers = 3, alignment = 256>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: %[[A:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<384xi8> to memref<4x8xf32>
// CHECK: %[[B:.+]] = memref.view %[[ARENA]][%[[C256]]][] : memref<384xi8> to memref<4x8xf32>
// CHECK: memref.collapse_shape %[[A]]
// CHECK: %[[C:.+]] = memref.view %[[ARENA]][%[[C256]]][] : memref<384xi8> to memref<4x8xf32>
// CHECK: linalg.copy ins(%[[B]] : memref<4x8xf32>) outs(%[[C]] : memref<4x8xf32>)
// CHECK-NOT: memref.dealloc
// CHECK: return

// ALIGN64-LABEL: func.func @views(
// ALIGN64-SAME: memref<256xi8> {arr.arena})
// ALIGN64-SAME: arena_bytes = 256, lower_bound = 256, aligned_lower_bound = 256, naive_sum = {{[0-9]+}}, in_place = 1, buffers = 3, alignment = 64
func.func @views(%x: memref<4x8xf32>, %out: memref<32xf32> {arr.output}) {
  %a = memref.alloc() : memref<4x8xf32>
  linalg.copy ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  %b = memref.alloc() : memref<4x8xf32>
  linalg.copy ins(%x : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  %c = memref.alloc() : memref<4x8xf32>
  linalg.copy ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
  linalg.copy ins(%flat : memref<32xf32>) outs(%out : memref<32xf32>)
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<4x8xf32>
  memref.dealloc %c : memref<4x8xf32>
  return
}

// -----

// No planned buffers: the function still gets an (empty) arena and figures.

// CHECK-LABEL: func.func @nothing(
// CHECK-SAME: memref<0xi8> {arr.arena})
// CHECK-SAME: arr.plan = #arr.plan<arena_bytes = 0, lower_bound = 0, aligned_lower_bound = 0, naive_sum = 0, in_place = 0, buffers = 0, alignment = 256>
func.func @nothing(%x: memref<4xf32>, %out: memref<4xf32> {arr.output}) {
  linalg.copy ins(%x : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// An allocation that asks for more alignment than the option raises the
// arena's: with alignment=64 the 1024-aligned buffer still lands on 1024.

// CHECK-LABEL: func.func @over_aligned(
// CHECK-SAME: %[[ARENA:[a-z0-9]+]]: memref<1040xi8> {arr.arena})
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C1024:.+]] = arith.constant 1024 : index
// CHECK: memref.view %[[ARENA]][%[[C0]]][] : memref<1040xi8> to memref<4xf32>
// CHECK: memref.view %[[ARENA]][%[[C1024]]][] : memref<1040xi8> to memref<4xf32>
// ALIGN64-LABEL: func.func @over_aligned(
// ALIGN64-SAME: memref<1040xi8> {arr.arena})
func.func @over_aligned(%x: memref<4xf32>, %out: memref<4xf32> {arr.output}) {
  %a = memref.alloc() {alignment = 1024 : i64} : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  linalg.copy ins(%x : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.add ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
