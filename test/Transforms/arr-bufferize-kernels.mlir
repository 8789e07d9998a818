// RUN: vmapc-opt %s --arr-bufferize-kernels | FileCheck %s
// RUN: vmapc-opt %s --arr-bufferize-kernels --canonicalize --cse --canonicalize | FileCheck %s --check-prefix=CLEAN

// Softmax rows after --arr-tile-workgroups (workgroups of up to 64 rows).
// Bufferized: the forall has no shared outputs; exp and the row sum are
// per-workgroup scratch sized by the workgroup's rows; the root reads the
// input binding's rows and writes its output binding's rows directly.
// CHECK-LABEL: func.func private @e_dispatch_0(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<64x16xf32>, %[[OUT:[a-z0-9]+]]: memref<64x16xf32>, %[[N:[a-z0-9]+]]: index {sched.num_examples})
// CHECK-NOT:     tensor<
// CHECK:         scf.forall (%[[I:.+]]) = (0) to (%[[N]]) step (64) {
// CHECK-NEXT:      %[[ROWS:.+]] = affine.min
// CHECK-NEXT:      %[[XS:.+]] = memref.subview %[[X]][%[[I]], 0] [%[[ROWS]], 16] [1, 1]
// CHECK:           %[[E:.+]] = memref.alloc(%[[ROWS]]) {alignment = 64 : i64} : memref<?x16xf32>
// CHECK-NEXT:      linalg.generic {{.+}} ins(%[[XS]] : {{.+}}) outs(%[[E]] : memref<?x16xf32>)
// CHECK:           %[[S:.+]] = memref.alloc(%[[ROWS]]) {alignment = 64 : i64} : memref<?xf32>
// CHECK-NEXT:      linalg.fill ins(%{{.+}} : f32) outs(%[[S]] : memref<?xf32>)
// CHECK-NEXT:      linalg.generic {{.+}} ins(%[[E]] : memref<?x16xf32>) outs(%[[S]] : memref<?xf32>)
// CHECK:           %[[OS:.+]] = memref.subview %[[OUT]][%[[I]], 0] [%[[ROWS]], 16] [1, 1]
// CHECK-NEXT:      linalg.generic {{.+}} ins(%[[E]], %[[S]] : memref<?x16xf32>, memref<?xf32>) outs(%[[OS]] : {{.+}}) attrs = {sched.batch_loop = 0 : i64}
// CHECK-NOT:     tensor<

// After cleanup only the per-workgroup scratch is allocated, and nothing
// is copied.
// CLEAN-LABEL: func.func private @e_dispatch_0(
// CLEAN-NOT:     memref.alloc
// CLEAN:         scf.forall
// CLEAN-NOT:     memref.copy
// CLEAN:         memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<?x16xf32>
// CLEAN-NOT:     memref.copy
// CLEAN:         memref.alloc(%{{.+}}) {alignment = 64 : i64} : memref<?xf32>
// CLEAN-NOT:     memref.alloc
// CLEAN-NOT:     memref.copy
// CLEAN:         return

#map = affine_map<(d0)[s0] -> (-d0 + s0, 64)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module {
  func.func private @e_dispatch_0(%arg0: memref<64x16xf32>, %arg1: memref<64x16xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -64, 1, 1>} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<64x16xf32> to tensor<64x16xf32>
    %1 = tensor.empty() : tensor<64x16xf32>
    %2 = tensor.empty() : tensor<64xf32>
    %3 = bufferization.to_tensor %arg1 restrict writable : memref<64x16xf32> to tensor<64x16xf32>
    %4 = scf.forall (%arg3) = (0) to (%arg2) step (64) shared_outs(%arg4 = %3) -> (tensor<64x16xf32>) {
      %5 = affine.min #map(%arg3)[%arg2]
      %extracted_slice = tensor.extract_slice %0[%arg3, 0] [%5, 16] [1, 1] : tensor<64x16xf32> to tensor<?x16xf32>
      %extracted_slice_1 = tensor.extract_slice %1[%arg3, 0] [%5, 16] [1, 1] : tensor<64x16xf32> to tensor<?x16xf32>
      %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%extracted_slice : tensor<?x16xf32>) outs(%extracted_slice_1 : tensor<?x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %10 = math.exp %in : f32
        linalg.yield %10 : f32
      } -> tensor<?x16xf32>
      %extracted_slice_2 = tensor.extract_slice %2[%arg3] [%5] [1] : tensor<64xf32> to tensor<?xf32>
      %7 = linalg.fill ins(%cst : f32) outs(%extracted_slice_2 : tensor<?xf32>) -> tensor<?xf32>
      %8 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%6 : tensor<?x16xf32>) outs(%7 : tensor<?xf32>) {
      ^bb0(%in: f32, %out: f32):
        %10 = arith.addf %in, %out : f32
        linalg.yield %10 : f32
      } -> tensor<?xf32>
      %extracted_slice_3 = tensor.extract_slice %arg4[%arg3, 0] [%5, 16] [1, 1] : tensor<64x16xf32> to tensor<?x16xf32>
      %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%6, %8 : tensor<?x16xf32>, tensor<?xf32>) outs(%extracted_slice_3 : tensor<?x16xf32>) attrs =  {sched.batch_loop = 0 : i64} {
      ^bb0(%in: f32, %in_4: f32, %out: f32):
        %10 = arith.divf %cst_0, %in_4 : f32
        %11 = arith.mulf %in, %10 : f32
        linalg.yield %11 : f32
      } -> tensor<?x16xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %9 into %arg4[%arg3, 0] [%5, 16] [1, 1] : tensor<?x16xf32> into tensor<64x16xf32>
      }
    }
    bufferization.materialize_in_destination %4 in writable %arg1 : (tensor<64x16xf32>, memref<64x16xf32>) -> ()
    return
  }
}
