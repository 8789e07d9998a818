// RUN: vmapc-opt %s --arr-cpu-vectorize=isa=x86-64-v4 | FileCheck %s --check-prefix=V4
// RUN: vmapc-opt %s --arr-cpu-vectorize=isa=x86-64 | FileCheck %s --check-prefix=SSE
// RUN: not vmapc-opt %s --arr-cpu-vectorize=isa=x86-64-v5 2>&1 | FileCheck %s --check-prefix=ISA

// Kernels after --arr-tile-workgroups (workgroups of 16 examples): exp(x @ w)
// with x [64] and w [64, 32], and max over 1000 values.

// exp(x @ w) at AVX-512: the workgroup's rows as one slab (up to 64 rows;
// here its 16), full or partial in one version (passes/Codegen/PadSlab.h):
// x read in place when the slab is full, else from a copy of its rows
// padded to 16 (row i read from row i, or from row 0 past its own: one
// vector load per row), cut into register
// tiles of 8 rows inside each 32-column panel of w (the panel serves every
// tile of the slab), each an 8 x 32 accumulator carried as a vector through
// the 64 steps of the reduction. The exp, the root, reads the slab's real
// rows R only, as vectors of 32, and writes them in place. Each op's loop
// over its tiles stops at the rows its users read: the contraction's at R,
// so it computes R rounded up to 8 rows (ROWS8), which the padded copy of x
// holds. Bounds of tiles that divide one another fold: one round-up of R
// per tile size, no max of the users' rows.
// V4-LABEL: func.func private @e_dispatch_0(
// V4:         scf.forall
// V4:           scf.for
// V4:             %[[R:.+]] = arith.minsi %{{.+}}, %c16
// V4-NEXT:        %[[UP:.+]] = arith.addi %[[R]], %c7
// V4-NEXT:        %[[TILES:.+]] = arith.divui %[[UP]], %c8
// V4-NEXT:        %[[ROUNDED:.+]] = arith.muli %[[TILES]], %c8
// V4-NEXT:        %[[ROWS8:.+]] = arith.minsi %[[ROUNDED]], %c16
// V4-NOT:         arith.maxsi
// V4:             %[[ROWS:.+]] = affine.min
// V4:             %[[PARTIAL:.+]] = arith.cmpi slt, %[[ROWS]], %c16
// V4:             %[[X:.+]] = scf.if %[[PARTIAL]] -> (tensor<16x64xf32>)
// V4:               scf.for %[[I:.+]] = %c0 to %[[ROWS8]] step %c1
// V4-NEXT:            %[[REAL:.+]] = arith.cmpi ult, %[[I]], %[[ROWS]]
// V4-NEXT:            arith.select %[[REAL]], %[[I]], %c0
// V4:                 vector.transfer_read {{.+}} : tensor<16x64xf32>, vector<1x64xf32>
// V4:             } else {
// V4:               tensor.extract_slice {{.+}} [16, 64] [1, 1] : tensor<?x64xf32> to tensor<16x64xf32>
// V4:             scf.for %{{.+}} = %c0 to %[[R]] step %c8
// The accumulators' fill: one splat of the whole tile, which the read of
// the accumulators then folds into (not a loop over its rows).
// V4-NEXT:          tensor.extract_slice
// V4-NEXT:          %[[ZERO:.+]] = vector.transfer_write %{{cst[_0-9]*}}, %{{.+}}[%c0, %c0] {{.+}} : vector<8x32xf32>, tensor<8x32xf32>
// V4-NEXT:          vector.transfer_read %[[ZERO]][%c0, %c0]
// V4:               scf.for %{{.+}} = %c0 to %c64 step %c1 iter_args(%{{.+}} = %{{.+}}, %[[ACC:.+]] = %{{.+}}) -> (tensor<8x32xf32>, vector<8x32xf32>)
// V4:                 vector.transfer_read %[[X]]{{.+}} : tensor<16x64xf32>, vector<8x1xf32>
// V4:                 vector.transfer_read {{.+}} : tensor<64x32xf32>, vector<1x32xf32>
// V4:                 vector.contract {{.+}} %[[ACC]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// V4:             %[[REAL:.+]] = arith.minsi %[[ROWS]], %[[R]]
// V4-NEXT:        scf.for %{{.+}} = %c0 to %[[REAL]] step %c1
// V4:               vector.transfer_read {{.+}} : tensor<16x32xf32>, vector<32xf32>
// V4:               math.exp %{{.+}} : vector<32xf32>
// V4-NOT:         vector<1x1xf32>
// V4-NOT:     linalg.
// V4-LABEL: func.func private @m_dispatch_0(
// The max: 64 lanes over the first 960 values, the last 40 in a vector of
// 40 against the first 40 lanes, then one reduction across the lanes.
// V4:           scf.for %{{.+}} = %c0 to %c960 step %c64 iter_args(%{{.+}} = %{{.+}}, %[[M:.+]] = %{{.+}}) -> (tensor<1x64xf32>, vector<64xf32>)
// V4:             %[[X:.+]] = vector.transfer_read {{.+}} : tensor<16x1000xf32>, vector<64xf32>
// V4:             arith.maximumf %[[X]], %[[M]] : vector<64xf32>
// V4:           vector.transfer_read %{{.+}}[%{{.+}}, %c960], {{.+}} : tensor<16x1000xf32>, vector<40xf32>
// V4:           arith.maximumf {{.+}} : vector<40xf32>
// V4:           vector.multi_reduction <maximumf>, {{.+}} [1] : vector<1x64xf32> to vector<1xf32>
// V4-NOT:     linalg.

// SSE2 (16 xmm registers): 4 x 8 accumulators, max in 16 lanes (4 xmm)
// over the first 992 values and 8 more.
// SSE-LABEL: func.func private @e_dispatch_0(
// SSE:         vector.contract {{.+}} : vector<4x1xf32>, vector<1x8xf32> into vector<4x8xf32>
// SSE:         math.exp %{{.+}} : vector<16xf32>
// SSE-NOT:     linalg.
// SSE-LABEL: func.func private @m_dispatch_0(
// SSE:         scf.for %{{.+}} = %c0 to %c992 step %c16 {{.+}} -> (tensor<1x16xf32>, vector<16xf32>)
// SSE:         arith.maximumf {{.+}} : vector<8xf32>
// SSE:         vector.multi_reduction <maximumf>, {{.+}} : vector<1x16xf32> to vector<1xf32>
// SSE-NOT:     linalg.

// ISA: error: unknown ISA level 'x86-64-v5' (x86-64, x86-64-v3, x86-64-v4)

#map = affine_map<(d0)[s0] -> (-d0 + s0, 16)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module {
  func.func private @e_dispatch_0(%arg0: memref<16x64xf32>, %arg1: memref<64x32xf32>, %arg2: memref<16x32xf32>, %arg3: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -16, 1, 1>} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<16x64xf32> to tensor<16x64xf32>
    %1 = bufferization.to_tensor %arg1 restrict : memref<64x32xf32> to tensor<64x32xf32>
    %2 = tensor.empty() : tensor<16x32xf32>
    %3 = bufferization.to_tensor %arg2 restrict writable : memref<16x32xf32> to tensor<16x32xf32>
    %4 = scf.forall (%arg4) = (0) to (%arg3) step (16) shared_outs(%arg5 = %3) -> (tensor<16x32xf32>) {
      %5 = affine.min #map(%arg4)[%arg3]
      %extracted_slice = tensor.extract_slice %0[%arg4, 0] [%5, 64] [1, 1] : tensor<16x64xf32> to tensor<?x64xf32>
      %extracted_slice_0 = tensor.extract_slice %2[%arg4, 0] [%5, 32] [1, 1] : tensor<16x32xf32> to tensor<?x32xf32>
      %6 = linalg.fill ins(%cst : f32) outs(%extracted_slice_0 : tensor<?x32xf32>) -> tensor<?x32xf32>
      %7 = linalg.matmul ins(%extracted_slice, %1 : tensor<?x64xf32>, tensor<64x32xf32>) outs(%6 : tensor<?x32xf32>) -> tensor<?x32xf32>
      %extracted_slice_1 = tensor.extract_slice %arg5[%arg4, 0] [%5, 32] [1, 1] : tensor<16x32xf32> to tensor<?x32xf32>
      %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<?x32xf32>) outs(%extracted_slice_1 : tensor<?x32xf32>) attrs =  {sched.batch_loop = 0 : i64} {
      ^bb0(%in: f32, %out: f32):
        %9 = math.exp %in : f32
        linalg.yield %9 : f32
      } -> tensor<?x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %8 into %arg5[%arg4, 0] [%5, 32] [1, 1] : tensor<?x32xf32> into tensor<16x32xf32>
      }
    }
    bufferization.materialize_in_destination %4 in writable %arg2 : (tensor<16x32xf32>, memref<16x32xf32>) -> ()
    return
  }
  func.func private @m_dispatch_0(%arg0: memref<16x1000xf32>, %arg1: memref<16xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -16, 1, 1>} {
    %cst = arith.constant 0xFF800000 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<16x1000xf32> to tensor<16x1000xf32>
    %1 = bufferization.to_tensor %arg1 restrict writable : memref<16xf32> to tensor<16xf32>
    %2 = scf.forall (%arg3) = (0) to (%arg2) step (16) shared_outs(%arg4 = %1) -> (tensor<16xf32>) {
      %3 = affine.min #map(%arg3)[%arg2]
      %extracted_slice = tensor.extract_slice %0[%arg3, 0] [%3, 1000] [1, 1] : tensor<16x1000xf32> to tensor<?x1000xf32>
      %extracted_slice_0 = tensor.extract_slice %arg4[%arg3] [%3] [1] : tensor<16xf32> to tensor<?xf32>
      %4 = linalg.fill ins(%cst : f32) outs(%extracted_slice_0 : tensor<?xf32>) -> tensor<?xf32>
      %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%extracted_slice : tensor<?x1000xf32>) outs(%4 : tensor<?xf32>) attrs =  {sched.batch_loop = 0 : i64} {
      ^bb0(%in: f32, %out: f32):
        %6 = arith.maximumf %in, %out : f32
        linalg.yield %6 : f32
      } -> tensor<?xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %5 into %arg4[%arg3] [%3] [1] : tensor<?xf32> into tensor<16xf32>
      }
    }
    bufferization.materialize_in_destination %2 in writable %arg1 : (tensor<16xf32>, memref<16xf32>) -> ()
    return
  }
}
