// RUN: vmapc-opt %s -split-input-file -verify-diagnostics --arr-gpu-outline-kernels --arr-gpu-workgroup-ids | FileCheck %s
// RUN: not vmapc-opt %s --arr-gpu-workgroup-ids 2>&1 | FileCheck %s --check-prefix=NOT-OUTLINED

// --arr-gpu-workgroup-ids after --arr-gpu-outline-kernels: the grid loop of
// each gpu.func becomes the body of one block, each induction variable
// lower bound + gpu.block_id x step: block_id.x for the first dimension,
// block_id.y for the second (rows i = 8 x bx, columns j = 16 x by), and
// 16 x bx + 8 for a grid that starts at 8. The ops inside read the new
// values; nothing else changes (the linalg ops stay, no block size yet).
// The maps, printed at the top: 8 x bx, 16 x by, 16 x bx + 8.
// CHECK-DAG:   #[[MAP8:[a-z0-9_]+]] = affine_map<()[s0] -> (s0 * 8)>
// CHECK-DAG:   #[[MAP16:[a-z0-9_]+]] = affine_map<()[s0] -> (s0 * 16)>
// CHECK-DAG:   #[[MAPOFF:[a-z0-9_]+]] = affine_map<()[s0] -> (s0 * 16 + 8)>
// CHECK-LABEL: gpu.func @vmapc_kernel_grid2d(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<64x64xf32>, %[[OUT:[a-z0-9]+]]: memref<64x64xf32>, %[[N64:[a-z0-9]+]]: i64) kernel
// CHECK-NOT:       known_block_size
// CHECK-NEXT:    %[[N:.+]] = arith.index_cast %[[N64]] : i64 to index
// CHECK-NEXT:    %[[BX:.+]] = gpu.block_id x
// CHECK-NEXT:    %[[I:.+]] = affine.apply #[[MAP8]]()[%[[BX]]]
// CHECK-NEXT:    %[[BY:.+]] = gpu.block_id y
// CHECK-NEXT:    %[[J:.+]] = affine.apply #[[MAP16]]()[%[[BY]]]
// CHECK-NEXT:    %[[ROWS:.+]] = affine.min #{{.+}}(%[[I]])[%[[N]]]
// CHECK-NEXT:    %[[XS:.+]] = memref.subview %[[X]][%[[I]], %[[J]]] [%[[ROWS]], 16] [1, 1]
// CHECK-NEXT:    %[[OS:.+]] = memref.subview %[[OUT]][%[[I]], %[[J]]] [%[[ROWS]], 16] [1, 1]
// CHECK-NEXT:    linalg.copy ins(%[[XS]] : {{.+}}) outs(%[[OS]] : {{.+}})
// CHECK-NEXT:    gpu.return
func.func private @grid2d(%x: memref<64x64xf32>, %out: memref<64x64xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 4, 1>} {
  scf.forall (%i, %j) = (0, 0) to (%n, 64) step (8, 16) {
    %r = affine.min affine_map<(d0)[s0] -> (8, s0 - d0)>(%i)[%n]
    %xs = memref.subview %x[%i, %j] [%r, 16] [1, 1] : memref<64x64xf32> to memref<?x16xf32, strided<[64, 1], offset: ?>>
    %os = memref.subview %out[%i, %j] [%r, 16] [1, 1] : memref<64x64xf32> to memref<?x16xf32, strided<[64, 1], offset: ?>>
    linalg.copy ins(%xs : memref<?x16xf32, strided<[64, 1], offset: ?>>) outs(%os : memref<?x16xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// CHECK-LABEL: gpu.func @vmapc_kernel_offset_grid(
// CHECK:         %[[BX:.+]] = gpu.block_id x
// CHECK-NEXT:    %[[I:.+]] = affine.apply #[[MAPOFF]]()[%[[BX]]]
// CHECK-NEXT:    memref.subview %{{.+}}[%[[I]]] [16] [1]
// CHECK-NOT:     scf.forall
// CHECK:         gpu.return
func.func private @offset_grid(%out: memref<64xf32>) attributes {sched.kernel} {
  %z = arith.constant 0.0 : f32
  scf.forall (%i) = (8) to (64) step (16) {
    %os = memref.subview %out[%i] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.fill ins(%z : f32) outs(%os : memref<16xf32, strided<[1], offset: ?>>)
  }
  return
}

// A kernel without a grid is one block: no block id.
// CHECK-LABEL: gpu.func @vmapc_kernel_no_grid(
// CHECK-NOT:     gpu.block_id
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : memref<64xf32>)
// CHECK-NEXT:    gpu.return
func.func private @no_grid(%out: memref<64xf32>) attributes {sched.kernel} {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%out : memref<64xf32>)
  return
}

// -----

// expected-error @+1 {{has more than one workgroup loop}}
func.func private @two_grids(%out: memref<64xf32>) attributes {sched.kernel} {
  scf.forall (%i) = (0) to (64) step (8) {
  }
  scf.forall (%i) = (0) to (64) step (8) {
  }
  return
}

// -----

func.func private @grid4d(%out: memref<64xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{is not a bufferized grid of at most 3 dimensions}}
  scf.forall (%i, %j, %k, %l) = (0, 0, 0, 0) to (2, 2, 2, 2) step (1, 1, 1, 1) {
  }
  return
}

// Run before --arr-gpu-outline-kernels, the pass finds the kernels still
// func.funcs (the first is grid2d) and names the pass to run first.
// NOT-OUTLINED: error: 'func.func' op is a kernel not yet outlined: 'arr-gpu-workgroup-ids' runs on the gpu.funcs of gpu.module @vmapc_kernels; run --arr-gpu-outline-kernels first
// NOT-OUTLINED-NEXT: func.func private @grid2d(
