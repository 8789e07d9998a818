// RUN: vmapc-opt %s --arr-tile-workgroups | FileCheck %s
// RUN: vmapc-opt %s --arr-tile-workgroups=target=cuda | FileCheck %s --check-prefix=CUDA

// Kernels as --arr-form-dispatches and --arr-bufferize-entries leave them
// (from softmax over 4096 classes, and x @ (w @ w), both with batch 64).

// Softmax: the root's batch loop runs over [0, n) in workgroups of 8 rows
// (8 x 4 ops x 4096 iterations reach the CPU's ~128K per workgroup), the
// last one taking min(8, n - i); exp and the row sum are fused into the
// workgroup's tile, exp computed once for both of its readers.
// CHECK-LABEL: func.func private @softmax_dispatch_0(
// CHECK-SAME:      %[[N:[a-z0-9]+]]: index {sched.num_examples})
// CHECK-SAME:      sched.workgroup_count = array<i64: -8, 1, 1>
// CHECK:         %[[OUT:.+]] = bufferization.to_tensor %arg1 restrict writable
// CHECK:         %[[R:.+]] = scf.forall (%[[I:.+]]) = (0) to (%[[N]]) step (8) shared_outs(%[[O:.+]] = %[[OUT]]) -> (tensor<64x4096xf32>) {
// CHECK-NEXT:      %[[ROWS:.+]] = affine.min #{{.+}}(%[[I]])[%[[N]]]
// CHECK:           %[[X:.+]] = tensor.extract_slice %{{.+}}[%[[I]], 0] [%[[ROWS]], 4096] [1, 1] : tensor<64x4096xf32> to tensor<?x4096xf32>
// CHECK:           %[[E:.+]] = linalg.generic {{.+}} ins(%[[X]] : tensor<?x4096xf32>)
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:        math.exp
// CHECK-NOT:       math.exp
// CHECK:           %[[S:.+]] = linalg.generic {{.+}} ins(%[[E]] : tensor<?x4096xf32>) outs(%{{.+}} : tensor<?xf32>)
// CHECK:           %[[D:.+]] = tensor.extract_slice %[[O]][%[[I]], 0] [%[[ROWS]], 4096] [1, 1]
// CHECK:           %[[T:.+]] = linalg.generic {{.+}} ins(%[[E]], %[[S]] : tensor<?x4096xf32>, tensor<?xf32>) outs(%[[D]] : tensor<?x4096xf32>) attrs = {sched.batch_loop = 0 : i64}
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[T]] into %[[O]][%[[I]], 0] [%[[ROWS]], 4096] [1, 1] : tensor<?x4096xf32> into tensor<64x4096xf32>
// CHECK:         bufferization.materialize_in_destination %[[R]] in writable %arg1

// w @ w has no batch loop: its outermost loop (64 rows) is spread over a
// fixed grid of 2 workgroups of 32 rows.
// CHECK-LABEL: func.func private @mm_dispatch_0(
// CHECK-SAME:      sched.workgroup_count = array<i64: 2, 1, 1>
// CHECK:         scf.forall (%[[J:.+]]) = (0) to (64) step (32)
// CHECK:           linalg.fill
// CHECK:           linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<?x64xf32>, tensor<64x64xf32>) outs(%{{.+}} : tensor<?x64xf32>)
// CHECK:           tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[J]], 0]

// x @ ww over the batch: ceil(n / 64) workgroups, each a slab of 64
// examples that every column panel of ww serves.
// CHECK-LABEL: func.func private @mm_dispatch_1(
// CHECK-SAME:      %[[N1:[a-z0-9]+]]: index {sched.num_examples})
// CHECK-SAME:      sched.workgroup_count = array<i64: -64, 1, 1>
// CHECK:         scf.forall (%{{.+}}) = (0) to (%[[N1]]) step (64)
// CHECK:           linalg.matmul {sched.batch_loop = 0 : i64}

// A dispatch too small to share (a histogram's step: 32 iterations per
// example, 8192 for all 256) is one workgroup over the whole chunk, which
// the calling thread runs with no hand-off to the pool; it stopped at 64
// rows (4 workgroups) before.
// CHECK-LABEL: func.func private @bins_dispatch_0(
// CHECK-SAME:      %[[N2:[a-z0-9]+]]: index {sched.num_examples})
// CHECK-SAME:      sched.workgroup_count = array<i64: -256, 1, 1>
// CHECK:         scf.forall (%{{.+}}) = (0) to (%[[N2]]) step (256)

// For CUDA a workgroup is a block. A block that reduces takes up to 64
// rows, as many as keep its fused intermediates within 48 KiB of shared
// memory: softmax's exp is 16 KiB per row, so 2 rows; w @ w's 64 rows in
// one block.
// CUDA-LABEL: func.func private @softmax_dispatch_0(
// CUDA-SAME:      sched.workgroup_count = array<i64: -2, 1, 1>
// CUDA:         scf.forall (%{{.+}}) = (0) to (%arg2) step (2)
// CUDA-LABEL: func.func private @mm_dispatch_0(
// CUDA-SAME:      sched.workgroup_count = array<i64: 1, 1, 1>
// A block takes at most 64 rows however little each does: the tiny
// dispatch's 32 iterations per example reach a block's 256 threads with 8.
// CUDA-LABEL: func.func private @bins_dispatch_0(
// CUDA-SAME:      sched.workgroup_count = array<i64: -8, 1, 1>

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func private @softmax_dispatch_0(%arg0: memref<64x4096xf32>, %arg1: memref<64x4096xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<64x4096xf32> to tensor<64x4096xf32>
    %1 = tensor.empty() : tensor<64x4096xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<64x4096xf32>) outs(%1 : tensor<64x4096xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = math.exp %in : f32
      linalg.yield %8 : f32
    } -> tensor<64x4096xf32>
    %3 = tensor.empty() : tensor<64xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<64xf32>) -> tensor<64xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%2 : tensor<64x4096xf32>) outs(%4 : tensor<64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.addf %in, %out : f32
      linalg.yield %8 : f32
    } -> tensor<64xf32>
    %6 = bufferization.to_tensor %arg1 restrict writable : memref<64x4096xf32> to tensor<64x4096xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %5 : tensor<64x4096xf32>, tensor<64xf32>) outs(%6 : tensor<64x4096xf32>) attrs =  {sched.batch_loop = 0 : i64} {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %8 = arith.divf %cst_0, %in_1 : f32
      %9 = arith.mulf %in, %8 : f32
      linalg.yield %9 : f32
    } -> tensor<64x4096xf32>
    bufferization.materialize_in_destination %7 in writable %arg1 : (tensor<64x4096xf32>, memref<64x4096xf32>) -> ()
    return
  }
  func.func private @mm_dispatch_0(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>) attributes {sched.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<64x64xf32> to tensor<64x64xf32>
    %1 = bufferization.to_tensor %arg1 restrict writable : memref<64x64xf32> to tensor<64x64xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %3 = linalg.matmul ins(%0, %0 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    bufferization.materialize_in_destination %3 in writable %arg1 : (tensor<64x64xf32>, memref<64x64xf32>) -> ()
    return
  }
  func.func private @mm_dispatch_1(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64x64xf32>, %arg3: index {sched.num_examples}) attributes {sched.kernel} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<64x64xf32> to tensor<64x64xf32>
    %1 = bufferization.to_tensor %arg1 restrict : memref<64x64xf32> to tensor<64x64xf32>
    %2 = bufferization.to_tensor %arg2 restrict writable : memref<64x64xf32> to tensor<64x64xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %4 = linalg.matmul {sched.batch_loop = 0 : i64} ins(%0, %1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%3 : tensor<64x64xf32>) -> tensor<64x64xf32>
    bufferization.materialize_in_destination %4 in writable %arg2 : (tensor<64x64xf32>, memref<64x64xf32>) -> ()
    return
  }
  func.func private @bins_dispatch_0(%arg0: memref<256x32xi32>, %arg1: memref<256x32xi32>, %arg2: index {sched.num_examples}) attributes {sched.kernel} {
    %c1 = arith.constant 1 : i32
    %0 = bufferization.to_tensor %arg0 restrict : memref<256x32xi32> to tensor<256x32xi32>
    %1 = bufferization.to_tensor %arg1 restrict writable : memref<256x32xi32> to tensor<256x32xi32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<256x32xi32>) outs(%1 : tensor<256x32xi32>) attrs =  {sched.batch_loop = 0 : i64} {
    ^bb0(%in: i32, %out: i32):
      %3 = arith.addi %in, %c1 : i32
      linalg.yield %3 : i32
    } -> tensor<256x32xi32>
    bufferization.materialize_in_destination %2 in writable %arg1 : (tensor<256x32xi32>, memref<256x32xi32>) -> ()
    return
  }
}
