// RUN: vmapc-opt %s -split-input-file -verify-diagnostics --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads | FileCheck %s
// RUN: vmapc-opt %s -split-input-file -verify-diagnostics --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads | FileCheck %s --check-prefix=NO-LINALG
// RUN: not vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-distribute-threads 2>&1 | FileCheck %s --check-prefix=NO-BLOCK

// --arr-gpu-distribute-threads after --arr-gpu-reductions and
// --arr-gpu-contraction-tiles: every structured op left is spread over the
// block's threads: its parallel iterations, linearized innermost fastest,
// strided by the block size from gpu.thread_id x (one per kernel), each
// thread running the reduction loops of its outputs in order; a gpu.barrier
// follows each op. No linalg op (nor memref.copy) is left in any kernel.
// NO-LINALG:     gpu.module @vmapc_kernels
// NO-LINALG-NOT: {{linalg\.|memref\.copy}}

// Two elementwise ops over a partial tile of at most 8 x 32 (256 threads):
// each a loop from tid to rows x 32 step 256, the element delinearized into
// (rows, 32), a barrier after each (the second reads what the first wrote
// into the scratch).
// CHECK-LABEL: gpu.func @vmapc_kernel_scale(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[ROWS:.+]] = affine.min
// CHECK:         %[[TILE:.+]] = memref.memory_space_cast
// CHECK:         %[[C32:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[N:.+]] = arith.muli %{{.+}}, %[[C32]] : index
// CHECK-NEXT:    %[[C256:.+]] = arith.constant 256 : index
// CHECK-NEXT:    scf.for %[[E:.+]] = %[[TID]] to %[[N]] step %[[C256]] {
// CHECK:           %[[IJ:.+]]:2 = affine.delinearize_index %[[E]] into (%[[ROWS]], 32) : index, index
// CHECK-NEXT:      %[[V:.+]] = memref.load %{{.+}}[%[[IJ]]#0, %[[IJ]]#1] : memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:      %[[EXP:.+]] = math.exp %[[V]] : f32
// CHECK-NEXT:      memref.store %[[EXP]], %[[TILE]][%[[IJ]]#0, %[[IJ]]#1] : memref<?x32xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.for %[[E2:.+]] = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK:           %[[IJ2:.+]]:2 = affine.delinearize_index %[[E2]] into (%{{.+}}, 32) : index, index
// CHECK-NEXT:      %[[T:.+]] = memref.load %[[TILE]][%[[IJ2]]#0, %[[IJ2]]#1] : memref<?x32xf32>
// CHECK-NEXT:      %[[SQ:.+]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK-NEXT:      memref.store %[[SQ]], %{{.+}}[%[[IJ2]]#0, %[[IJ2]]#1] : memref<?x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0)[s0] -> (8, s0 - d0)>
func.func private @scale(%x: memref<64x32xf32>, %out: memref<64x32xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
  scf.forall (%i) = (0) to (%n) step (8) {
    %r = affine.min #rows(%i)[%n]
    %xs = memref.subview %x[%i, 0] [%r, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %os = memref.subview %out[%i, 0] [%r, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %t = memref.alloc(%r) : memref<?x32xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<?x32xf32, strided<[32, 1], offset: ?>>) outs(%t : memref<?x32xf32>) {
    ^bb0(%a: f32, %b: f32):
      %e = math.exp %a : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<?x32xf32>) outs(%os : memref<?x32xf32, strided<[32, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32):
      %m = arith.mulf %a, %a : f32
      linalg.yield %m : f32
    }
    memref.dealloc %t : memref<?x32xf32>
  }
  return
}

// 4096 elements, at least 4 per thread: 4 per iteration, 256 apart (step
// 4 x 256 = 1024), all 4 loaded (the last 3 clamped to the end) before any
// is stored; elements 2 to 4 are stored only if inside. The broadcast
// scalar (a 0-d memref) is loaded once, before the loop.
// CHECK-LABEL: gpu.func @vmapc_kernel_axpy(
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[A:.+]] = memref.load %{{.+}}[] : memref<f32>
// CHECK-NEXT:    %[[C1024:.+]] = arith.constant 1024 : index
// CHECK-NEXT:    scf.for %[[E:.+]] = %[[TID]] to %{{.+}} step %[[C1024]] {
// CHECK-NEXT:      %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[LAST:.+]] = arith.subi %{{.+}}, %[[C1]] : index
// CHECK-NEXT:      %[[X0:.+]] = memref.load %{{.+}}[%[[E]]] : memref<4096xf32>
// CHECK-NEXT:      %[[R0:.+]] = arith.mulf %[[X0]], %[[A]] : f32
// CHECK-NEXT:      %[[C256:.+]] = arith.constant 256 : index
// CHECK-NEXT:      %[[E1:.+]] = arith.addi %[[E]], %[[C256]] : index
// CHECK-NEXT:      %[[IN1:.+]] = arith.cmpi ule, %[[E1]], %[[LAST]] : index
// CHECK-NEXT:      %[[AT1:.+]] = arith.minui %[[E1]], %[[LAST]] : index
// CHECK-NEXT:      memref.load %{{.+}}[%[[AT1]]] : memref<4096xf32>
// CHECK:           %[[C512:.+]] = arith.constant 512 : index
// CHECK-NEXT:      arith.addi %[[E]], %[[C512]] : index
// CHECK:           %[[C768:.+]] = arith.constant 768 : index
// CHECK-NEXT:      arith.addi %[[E]], %[[C768]] : index
// CHECK-NOT:       memref.store
// CHECK:           arith.mulf %{{.+}}, %[[A]] : f32
// CHECK-NEXT:      memref.store %[[R0]], %{{.+}}[%[[E]]] : memref<4096xf32>
// CHECK-NEXT:      scf.if %[[IN1]] {
// CHECK-NEXT:        memref.store %{{.+}}, %{{.+}}[%[[AT1]]] : memref<4096xf32>
// CHECK-COUNT-2:   scf.if
// CHECK-NOT:       memref.load
// CHECK:         gpu.barrier
// CHECK-NEXT:    gpu.return
func.func private @axpy(%x: memref<4096xf32>, %a: memref<f32>, %out: memref<4096xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %a : memref<4096xf32>, memref<f32>) outs(%out : memref<4096xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    linalg.yield %m : f32
  }
  return
}

// 300 column sums of 8: as many outputs as threads or more, so neither a
// warp nor the block shares them, and the reduction is not innermost in
// the input (no contraction tile): a thread per output (300 strided by
// 256), which loads the output's value and runs the 8 steps in order. The
// copy of the output onto itself does nothing and is erased.
// CHECK-LABEL: gpu.func @vmapc_kernel_col_sums(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<8x300xf32>, %[[OUT:[a-z0-9]+]]: memref<300xf32>)
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[C256:.+]] = arith.constant 256 : index
// CHECK-NEXT:    scf.for %[[J:.+]] = %[[TID]] to %{{.+}} step %[[C256]] {
// CHECK:           %[[INIT:.+]] = memref.load %[[OUT]][%[[J]]] : memref<300xf32>
// CHECK-NEXT:      %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT:      %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[SUM:.+]] = scf.for %[[K:.+]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[V:.+]] = memref.load %[[X]][%[[K]], %[[J]]] : memref<8x300xf32>
// CHECK-NEXT:        %[[S:.+]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK-NEXT:        scf.yield %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[SUM]], %[[OUT]][%[[J]]] : memref<300xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
func.func private @col_sums(%x: memref<8x300xf32>, %out: memref<300xf32>) attributes {sched.kernel} {
  memref.copy %out, %out : memref<300xf32> to memref<300xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x300xf32>) outs(%out : memref<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// The fill the reductions pass left before a block-shared row sum: a
// thread per element, with the kernel's one thread id, then a barrier; the
// sum (already the block's code) is not touched.
// CHECK-LABEL: gpu.func @vmapc_kernel_fill_sums(
// CHECK-SAME:      vmapc.transient_shared_bytes = 32 : i64
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK-NEXT:    %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT:     gpu.thread_id
// CHECK:         scf.for %[[I:.+]] = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK:           memref.store %[[ZERO]], %{{.+}}[%[[I]]] : memref<4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK:         gpu.shuffle xor
// CHECK:         gpu.return
func.func private @fill_sums(%x: memref<4x1000xf32>, %out: memref<4xf32>) attributes {sched.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x1000xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A copy between two buffers should have been a linalg.copy.
func.func private @copy_left(%a: memref<64xf32>, %b: memref<64xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{is left in a GPU kernel (arr-copies-to-linalg runs before arr-gpu-outline-kernels)}}
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  return
}

// Without --arr-gpu-block-size there is no block to spread the ops over.
// NO-BLOCK: error: 'gpu.func' op has no known_block_size: run --arr-gpu-block-size first
// NO-BLOCK-NEXT: func.func private @scale(
