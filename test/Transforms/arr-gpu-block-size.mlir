// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size | FileCheck %s
// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size=threads-per-block=128 | FileCheck %s --check-prefix=T128
// RUN: not vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size=threads-per-block=100 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not vmapc-opt %s --arr-gpu-block-size 2>&1 | FileCheck %s --check-prefix=NOT-OUTLINED

// --arr-gpu-block-size after --arr-gpu-promote-scratch: each kernel's
// known_block_size is threads-per-block (256 by default), or, when no
// structured op of the kernel has that many iterations (all its loops,
// reductions included), the largest count rounded up to a warp of 32, at
// least one warp. Nothing else changes: the ops are distributed later.

// 5 x 10 = 50 iterations: 64 threads, whatever threads-per-block.
// CHECK-LABEL: gpu.func @vmapc_kernel_fifty(
// CHECK-SAME:      known_block_size = array<i32: 64, 1, 1>
// CHECK-NEXT:    linalg.generic
// T128-LABEL:  gpu.func @vmapc_kernel_fifty(
// T128-SAME:       known_block_size = array<i32: 64, 1, 1>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @fifty(%x: memref<5x10xf32>, %out: memref<5x10xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<5x10xf32>) outs(%out : memref<5x10xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// The largest op counts: a sum of 4 x 1000 iterations (4 outputs) next to
// a copy of 4: threads-per-block, 256 (128 with threads-per-block=128).
// CHECK-LABEL: gpu.func @vmapc_kernel_big(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// T128-LABEL:  gpu.func @vmapc_kernel_big(
// T128-SAME:       known_block_size = array<i32: 128, 1, 1>
func.func private @big(%x: memref<4x1000xf32>, %s: memref<4xf32>, %out: memref<4xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x1000xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %e = arith.addf %a, %acc : f32
    linalg.yield %e : f32
  }
  linalg.copy ins(%s : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// 129 iterations: 160 threads (5 warps); over 128, so 128 there.
// CHECK-LABEL: gpu.func @vmapc_kernel_odd(
// CHECK-SAME:      known_block_size = array<i32: 160, 1, 1>
// T128-LABEL:  gpu.func @vmapc_kernel_odd(
// T128-SAME:       known_block_size = array<i32: 128, 1, 1>
func.func private @odd(%x: memref<129xf32>, %out: memref<129xf32>) attributes {sched.kernel} {
  linalg.copy ins(%x : memref<129xf32>) outs(%out : memref<129xf32>)
  return
}

// 3 iterations: one warp, 32.
// CHECK-LABEL: gpu.func @vmapc_kernel_tiny(
// CHECK-SAME:      known_block_size = array<i32: 32, 1, 1>
func.func private @tiny(%out: memref<3xf32>) attributes {sched.kernel} {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%out : memref<3xf32>)
  return
}

// A partial tile of at most 2 rows (min(2, n - i)) of 40: 80 iterations,
// 96 threads. The middle op reads and writes only scratch: its rows are
// bounded through the sizes of the scratch's shared-memory views (an op
// without a bound would give the kernel 256 threads).
// CHECK-LABEL: gpu.func @vmapc_kernel_partial(
// CHECK-SAME:      known_block_size = array<i32: 96, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 640 : i64
// T128-LABEL:  gpu.func @vmapc_kernel_partial(
// T128-SAME:       known_block_size = array<i32: 96, 1, 1>
func.func private @partial(%x: memref<64x40xf32>, %out: memref<64x40xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -2, 1, 1>} {
  scf.forall (%i) = (0) to (%n) step (2) {
    %r = affine.min affine_map<(d0)[s0] -> (2, s0 - d0)>(%i)[%n]
    %xs = memref.subview %x[%i, 0] [%r, 40] [1, 1] : memref<64x40xf32> to memref<?x40xf32, strided<[40, 1], offset: ?>>
    %os = memref.subview %out[%i, 0] [%r, 40] [1, 1] : memref<64x40xf32> to memref<?x40xf32, strided<[40, 1], offset: ?>>
    %t = memref.alloc(%r) : memref<?x40xf32>
    %u = memref.alloc(%r) : memref<?x40xf32>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<?x40xf32, strided<[40, 1], offset: ?>>) outs(%t : memref<?x40xf32>) {
    ^bb0(%a: f32, %b: f32):
      %e = math.exp %a : f32
      linalg.yield %e : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<?x40xf32>) outs(%u : memref<?x40xf32>) {
    ^bb0(%a: f32, %b: f32):
      %e = math.log %a : f32
      linalg.yield %e : f32
    }
    linalg.copy ins(%u : memref<?x40xf32>) outs(%os : memref<?x40xf32, strided<[40, 1], offset: ?>>)
  }
  return
}

// An op whose size has no known bound: threads-per-block.
// CHECK-LABEL: gpu.func @vmapc_kernel_unbounded(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// T128-LABEL:  gpu.func @vmapc_kernel_unbounded(
// T128-SAME:       known_block_size = array<i32: 128, 1, 1>
func.func private @unbounded(%x: memref<64xf32>, %out: memref<64xf32>, %n: index) attributes {sched.kernel} {
  %xs = memref.subview %x[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  %os = memref.subview %out[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  linalg.copy ins(%xs : memref<?xf32, strided<[1]>>) outs(%os : memref<?xf32, strided<[1]>>)
  return
}

// THREADS: error: threads-per-block must be a multiple of 32 in [32, 1024], not 100

// NOT-OUTLINED: error: 'func.func' op is a kernel not yet outlined: 'arr-gpu-block-size' runs on the gpu.funcs of gpu.module @vmapc_kernels; run --arr-gpu-outline-kernels first
// NOT-OUTLINED-NEXT: func.func private @fifty(
