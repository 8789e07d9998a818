// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles | FileCheck %s
// RUN: not vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-contraction-tiles 2>&1 | FileCheck %s --check-prefix=NO-BLOCK

// --arr-gpu-contraction-tiles after --arr-gpu-reductions: a contraction
// (one reduction loop of at least 8 steps, an input reused across output
// elements or read along the reduction innermost) is computed by output
// tiles: the block stages 16 reduction steps of each reused input in shared
// memory after the scratch (innermost padded by one element), a barrier
// after the copy and one after the steps, and each thread accumulates a
// register tile. The tile (threads and accumulators per thread) has the
// fewest padded outputs times shared loads per multiply-add. Other ops (an
// elementwise op, a copy, a contraction of 4 steps) stay linalg ops.
// vmapc.transient_shared_bytes is the staged tiles' bytes.

// A 64 x 64 x 64 matmul, 256 threads: one 64 x 64 tile, a 16 x 16 grid of
// threads (column tid % 16, row tid / 16) with 4 x 4 accumulators each (16
// values carried by the reduction loop). A's 64 x 16 slice is staged as
// 64 x 17 f32 at 0 (4352 bytes), B's 16 x 64 as 16 x 65 at 4352: 4352 +
// 4160 = 8512 bytes. The relu after stays a linalg.generic.
// CHECK-LABEL: gpu.func @vmapc_kernel_matmul_relu(
// CHECK-SAME:      %[[A:[a-z0-9]+]]: memref<64x64xf32>, %[[B:[a-z0-9]+]]: memref<64x64xf32>, %[[C:[a-z0-9]+]]: memref<64x64xf32>, %[[OUT:[a-z0-9]+]]: memref<64x64xf32>)
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 0 : i64
// CHECK-SAME:      vmapc.transient_shared_bytes = 8512 : i64
// CHECK-DAG:     %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG:     %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[OA:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[TA:.+]] = memref.view %[[SHARED]][%[[OA]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x17xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[OB:.+]] = arith.constant 4352 : index
// CHECK-NEXT:    %[[TB:.+]] = memref.view %[[SHARED]][%[[OB]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[C16:.+]] = arith.constant 16 : index
// CHECK-NEXT:    arith.remui %[[TID]], %[[C16]] : index
// CHECK:         arith.divui %[[TID]], %{{.+}} : index
// CHECK:         scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:      affine.delinearize_index %[[T]] into (%{{.+}}, %{{.+}})
// CHECK-COUNT-16:  memref.load %[[C]][%{{.+}}, %{{.+}}] : memref<64x64xf32>
// CHECK:           %[[ACC:.+]]:16 = scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK:             scf.for %{{.+}} = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK-NEXT:          %[[EA:.+]]:2 = affine.delinearize_index %{{.+}} into (64, 16)
// CHECK:               %[[VA:.+]] = memref.load %[[A]][%{{.+}}, %{{.+}}] : memref<64x64xf32>
// CHECK-NEXT:          memref.store %[[VA]], %[[TA]][%[[EA]]#0, %[[EA]]#1] : memref<64x17xf32, #gpu.address_space<workgroup>>
// CHECK:             scf.for %{{.+}} = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK-NEXT:          %[[EB:.+]]:2 = affine.delinearize_index %{{.+}} into (16, 64)
// CHECK:               %[[VB:.+]] = memref.load %[[B]][%{{.+}}, %{{.+}}] : memref<64x64xf32>
// CHECK-NEXT:          memref.store %[[VB]], %[[TB]][%[[EB]]#0, %[[EB]]#1] : memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK:             gpu.barrier
// CHECK:             scf.for %[[KK:.+]] = {{.+}} iter_args(
// CHECK:               %[[LA:.+]] = memref.load %[[TA]][%{{.+}}, %[[KK]]] : memref<64x17xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[LB:.+]] = memref.load %[[TB]][%[[KK]], %{{.+}}] : memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:          %[[P:.+]] = arith.mulf %[[LA]], %[[LB]] : f32
// CHECK-NEXT:          arith.addf %{{.+}}, %[[P]] : f32
// CHECK-COUNT-15:      arith.mulf
// CHECK:             gpu.barrier
// CHECK-NEXT:        scf.yield
// CHECK-COUNT-16:  memref.store %{{.+}}, %[[C]][%{{.+}}, %{{.+}}] : memref<64x64xf32>
// CHECK:         gpu.barrier
// CHECK-NEXT:    linalg.generic {{.+}} ins(%[[C]] : memref<64x64xf32>) outs(%[[OUT]] : memref<64x64xf32>)
// CHECK:           arith.maximumf
// CHECK-NOT:     linalg.matmul
// CHECK:         gpu.return
func.func private @matmul_relu(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>, %out: memref<64x64xf32>) attributes {sched.kernel} {
  %z = arith.constant 0.0 : f32
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<64x64xf32>) outs(%out : memref<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %z : f32
    linalg.yield %m : f32
  }
  return
}

// 64 examples per block (at most: a partial tile of rows) times a 64 x 96
// weight: 64 x 32 output tiles (16 x 16 threads, 4 x 2 accumulators). The
// staged tiles go after the 16 KiB scratch (the copied rows of x): x's
// 64 x 16 slice as 64 x 17 at 16384, w's 16 x 32 as 16 x 33 at 16384 +
// 4352 = 20736; 4352 + 2112 = 6464 transient bytes. The copy into the
// scratch stays a linalg.copy.
// CHECK-LABEL: gpu.func @vmapc_kernel_dense(
// CHECK-SAME:      sched.scratch_bytes = 16384 : i64
// CHECK-SAME:      vmapc.transient_shared_bytes = 6464 : i64
// CHECK:         linalg.copy ins(%{{.+}} : memref<?x64xf32, strided<[64, 1], offset: ?>>) outs(%{{.+}} : memref<?x64xf32>)
// CHECK:         %[[OX:.+]] = arith.constant 16384 : index
// CHECK-NEXT:    memref.view %{{.+}}[%[[OX]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x17xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[OW:.+]] = arith.constant 20736 : index
// CHECK-NEXT:    memref.view %{{.+}}[%[[OW]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x33xf32, #gpu.address_space<workgroup>>
// CHECK:         %{{.+}}:8 = scf.for
// CHECK:               affine.delinearize_index %{{.+}} into (64, 16)
// CHECK:               affine.delinearize_index %{{.+}} into (16, 32)
// CHECK-COUNT-8:   scf.if
// CHECK-NOT:     linalg.matmul
// CHECK:         gpu.return
func.func private @dense(%x: memref<256x64xf32>, %w: memref<64x96xf32>, %out: memref<256x96xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -64, 1, 1>} {
  scf.forall (%i) = (0) to (%n) step (64) {
    %r = affine.min affine_map<(d0)[s0] -> (64, s0 - d0)>(%i)[%n]
    %xs = memref.subview %x[%i, 0] [%r, 64] [1, 1] : memref<256x64xf32> to memref<?x64xf32, strided<[64, 1], offset: ?>>
    %os = memref.subview %out[%i, 0] [%r, 96] [1, 1] : memref<256x96xf32> to memref<?x96xf32, strided<[96, 1], offset: ?>>
    %t = memref.alloc(%r) : memref<?x64xf32>
    linalg.copy ins(%xs : memref<?x64xf32, strided<[64, 1], offset: ?>>) outs(%t : memref<?x64xf32>)
    linalg.matmul ins(%t, %w : memref<?x64xf32>, memref<64x96xf32>) outs(%os : memref<?x96xf32, strided<[96, 1], offset: ?>>)
  }
  return
}

// A matrix-vector product, 512 outputs: no row loop, but w is read along
// the reduction innermost: tiles of one row of 256 threads x 2 columns
// (512 outputs, 2 accumulators). w's 512 x 16 slice is staged as 512 x 17
// at 0 (34816 bytes), x's 16 steps as 17 at 34816: 34884 bytes.
// CHECK-LABEL: gpu.func @vmapc_kernel_matvec(
// CHECK-SAME:      vmapc.transient_shared_bytes = 34884 : i64
// CHECK:         memref.view %{{.+}}[%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512x17xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[OV:.+]] = arith.constant 34816 : index
// CHECK-NEXT:    memref.view %{{.+}}[%[[OV]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<17xf32, #gpu.address_space<workgroup>>
// CHECK:         %{{.+}}:2 = scf.for %{{.+}} iter_args(%{{.+}}, %{{.+}}) -> (f32, f32) {
// CHECK:               affine.delinearize_index %{{.+}} into (512, 16)
// CHECK:             gpu.barrier
// CHECK-NOT:     linalg.matvec
// CHECK:         gpu.return
func.func private @matvec(%w: memref<512x64xf32>, %x: memref<64xf32>, %out: memref<512xf32>) attributes {sched.kernel} {
  linalg.matvec ins(%w, %x : memref<512x64xf32>, memref<64xf32>) outs(%out : memref<512xf32>)
  return
}

// 4 reduction steps (fewer than 8): nothing to stage, left as it is.
// CHECK-LABEL: gpu.func @vmapc_kernel_short_k(
// CHECK-SAME:      vmapc.transient_shared_bytes = 0 : i64
// CHECK-NOT:     memref.view
// CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : memref<64x4xf32>, memref<4x64xf32>) outs(%{{.+}} : memref<64x64xf32>)
// CHECK-NEXT:    gpu.return
func.func private @short_k(%a: memref<64x4xf32>, %b: memref<4x64xf32>, %c: memref<64x64xf32>) attributes {sched.kernel} {
  linalg.matmul ins(%a, %b : memref<64x4xf32>, memref<4x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// NO-BLOCK: error: 'gpu.func' op has no known_block_size: run --arr-gpu-block-size first
// NO-BLOCK-NEXT: func.func private @matmul_relu(
