// RUN: vmapc-opt %s --arr-cpu-vectorize=isa=x86-64-v3 | FileCheck %s

// A kernel whose workgroups hold at most 4 examples (CUDA's tiling in an
// artifact for both targets, or a batch of 4): exp(x @ w) with x [64] and
// w [64, 16]. Its slab is the workgroup's 4 rows; a full one is one 4 x 16
// register tile, and what a partial one leaves (fewer than 4 rows) goes
// one row at a time: no 4-row tile loop over the remainder, which could
// never run.
// CHECK-LABEL: func.func private @e_dispatch_0(
// CHECK:         scf.forall
// CHECK:           vector.contract {{.+}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// CHECK:           math.exp %{{.+}} : vector<16xf32>
// CHECK-NOT:       vector<4x1xf32>
// CHECK:           vector.contract {{.+}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
// CHECK-NOT:       vector<4x1xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NOT:     linalg.

#map = affine_map<(d0)[s0] -> (-d0 + s0, 4)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func private @e_dispatch_0(%arg0: memref<4x64xf32>, %arg1: memref<64x16xf32>, %arg2: memref<4x16xf32>, %arg3: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -4, 1, 1>} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<4x64xf32> to tensor<4x64xf32>
    %1 = bufferization.to_tensor %arg1 restrict : memref<64x16xf32> to tensor<64x16xf32>
    %2 = tensor.empty() : tensor<4x16xf32>
    %3 = bufferization.to_tensor %arg2 restrict writable : memref<4x16xf32> to tensor<4x16xf32>
    %4 = scf.forall (%arg4) = (0) to (%arg3) step (4) shared_outs(%arg5 = %3) -> (tensor<4x16xf32>) {
      %5 = affine.min #map(%arg4)[%arg3]
      %extracted_slice = tensor.extract_slice %0[%arg4, 0] [%5, 64] [1, 1] : tensor<4x64xf32> to tensor<?x64xf32>
      %extracted_slice_0 = tensor.extract_slice %2[%arg4, 0] [%5, 16] [1, 1] : tensor<4x16xf32> to tensor<?x16xf32>
      %6 = linalg.fill ins(%cst : f32) outs(%extracted_slice_0 : tensor<?x16xf32>) -> tensor<?x16xf32>
      %7 = linalg.matmul ins(%extracted_slice, %1 : tensor<?x64xf32>, tensor<64x16xf32>) outs(%6 : tensor<?x16xf32>) -> tensor<?x16xf32>
      %extracted_slice_1 = tensor.extract_slice %arg5[%arg4, 0] [%5, 16] [1, 1] : tensor<4x16xf32> to tensor<?x16xf32>
      %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<?x16xf32>) outs(%extracted_slice_1 : tensor<?x16xf32>) attrs =  {sched.batch_loop = 0 : i64} {
      ^bb0(%in: f32, %out: f32):
        %9 = math.exp %in : f32
        linalg.yield %9 : f32
      } -> tensor<?x16xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %8 into %arg5[%arg4, 0] [%5, 16] [1, 1] : tensor<?x16xf32> into tensor<4x16xf32>
      }
    }
    bufferization.materialize_in_destination %4 in writable %arg2 : (tensor<4x16xf32>, memref<4x16xf32>) -> ()
    return
  }
}
