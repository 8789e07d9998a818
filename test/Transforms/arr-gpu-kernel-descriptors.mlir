// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads --arr-gpu-fma-contraction --arr-gpu-kernel-descriptors | FileCheck %s
// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads --arr-gpu-fma-contraction --arr-gpu-kernel-descriptors=max-shared-bytes=4048 | FileCheck %s
// RUN: not vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads --arr-gpu-fma-contraction --arr-gpu-kernel-descriptors=max-shared-bytes=4047 2>&1 | FileCheck %s --check-prefix=TOO-MUCH
// RUN: not vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-kernel-descriptors 2>&1 | FileCheck %s --check-prefix=NO-BLOCK

// --arr-gpu-kernel-descriptors, last of --arr-gpu-workgroups: each
// kernel's sched.scratch_bytes becomes the dynamic shared memory of its
// launch, the scratch plus the transient region of the distribution passes
// (whose attribute vmapc.transient_shared_bytes is removed), checked
// against max-shared-bytes (inclusive: 4048 passes, 4047 fails), and its
// descriptor, vmapc_kernel_NAME_descriptor, follows the kernel. The
// descriptor's 12 words: "VMK5" (894127446) | bindings << 32, the scalars,
// the grid (1 x 1 x 1 without one), 0 scratch (a CUDA kernel's is its
// launch's shared memory), threads.x | threads.y << 32, threads.z | shared
// bytes << 32, then the bindings' bytes and accesses (1 read, 2 written,
// 3 both).

// 4004 bytes of scratch (1 x 1001 f32) and the block reduction's exchange
// row at 4016 (16-byte aligned): 4016 + 8 x 4 = 4048 bytes. Descriptor:
// 2 bindings (894127446 + 2 << 32 = 9484062038), no scalar, no grid, 256
// threads (256 | 1 << 32 = 4294967552), 1 | 4048 << 32 = 17386027614209.
// CHECK-LABEL: gpu.func @vmapc_kernel_exp_sum(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>, sched.binding_access = array<i64: 1, 3>, sched.binding_bytes = array<i64: 4004, 4>, sched.scratch_bytes = 4048 : i64} {
// CHECK:         gpu.return
// CHECK-NEXT:  }
// CHECK-NEXT:  llvm.mlir.global external constant @vmapc_kernel_exp_sum_descriptor(dense<[9484062038, 0, 1, 1, 1, 0, 4294967552, 17386027614209, 4004, 4, 1, 3]> : tensor<12xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<12 x i64>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @exp_sum(%x: memref<1x1001xf32>, %out: memref<1xf32>) attributes {sched.kernel} {
  %t = memref.alloc() : memref<1x1001xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<1x1001xf32>) outs(%t : memref<1x1001xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%t : memref<1x1001xf32>) outs(%out : memref<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// A grid of ceil(n / 8) blocks of rows, 1 scalar (n), 1024 bytes of
// scratch (8 x 32 f32) and no transient region: 1 | 1024 << 32 =
// 4398046511105.
// CHECK-LABEL: gpu.func @vmapc_kernel_scale(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>, sched.binding_access = array<i64: 1, 2>, sched.binding_bytes = array<i64: 8192, 8192>, sched.scratch_bytes = 1024 : i64, sched.workgroup_count = array<i64: -8, 1, 1>} {
// CHECK:         gpu.return
// CHECK-NEXT:  }
// CHECK-NEXT:  llvm.mlir.global external constant @vmapc_kernel_scale_descriptor(dense<[9484062038, 1, -8, 1, 1, 0, 4294967552, 4398046511105, 8192, 8192, 1, 2]> : tensor<12xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<12 x i64>
func.func private @scale(%x: memref<64x32xf32>, %out: memref<64x32xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
  scf.forall (%i) = (0) to (%n) step (8) {
    %r = affine.min affine_map<(d0)[s0] -> (8, s0 - d0)>(%i)[%n]
    %xs = memref.subview %x[%i, 0] [%r, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %os = memref.subview %out[%i, 0] [%r, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %t = memref.alloc(%r) : memref<?x32xf32>
    linalg.copy ins(%xs : memref<?x32xf32, strided<[32, 1], offset: ?>>) outs(%t : memref<?x32xf32>)
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : memref<?x32xf32>) outs(%os : memref<?x32xf32, strided<[32, 1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32):
      %m = arith.mulf %a, %a : f32
      linalg.yield %m : f32
    }
  }
  return

// 50 iterations: 64 threads (64 | 1 << 32 = 4294967360), no shared memory.
// CHECK-LABEL: gpu.func @vmapc_kernel_fifty(
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 64, 1, 1>, sched.binding_access = array<i64: 1, 2>, sched.binding_bytes = array<i64: 200, 200>, sched.scratch_bytes = 0 : i64} {
// CHECK:         gpu.return
// CHECK-NEXT:  }
// CHECK-NEXT:  llvm.mlir.global external constant @vmapc_kernel_fifty_descriptor(dense<[9484062038, 0, 1, 1, 1, 0, 4294967360, 1, 200, 200, 1, 2]> : tensor<12xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<12 x i64>
// CHECK-NEXT: }
// CHECK-NOT:  vmapc.transient_shared_bytes
}
func.func private @fifty(%x: memref<5x10xf32>, %out: memref<5x10xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<5x10xf32>) outs(%out : memref<5x10xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// With max-shared-bytes=4047 the exchange row is what does not fit (the
// 4004 bytes of scratch alone would).
// TOO-MUCH: error: 'gpu.func' op needs 4048 bytes of shared memory per block, more than the 4047 a block may have
// TOO-MUCH-NEXT: func.func private @exp_sum(

// The launch needs the block size.
// NO-BLOCK: error: 'gpu.func' op has no known_block_size: run --arr-gpu-block-size first
// NO-BLOCK-NEXT: func.func private @exp_sum(
