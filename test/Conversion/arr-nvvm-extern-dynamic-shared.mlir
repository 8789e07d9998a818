// RUN: vmapc-opt %s --pass-pipeline='builtin.module(gpu.module(arr-nvvm-extern-dynamic-shared))' | FileCheck %s

// The zero-length shared-memory arrays that convert-gpu-to-nvvm makes for
// gpu.dynamic_shared_memory become external declarations (CUDA's
// `extern __shared__ char s[]`); every other global keeps its linkage.

// CHECK-LABEL: gpu.module @vmapc_kernels
gpu.module @vmapc_kernels {
  // CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  // A static shared array (non-zero length) stays internal.
  // CHECK: llvm.mlir.global internal @__dynamic_shmem__1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x i8>
  llvm.mlir.global internal @__dynamic_shmem__1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x i8>
  // Another name in shared memory stays internal.
  // CHECK: llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  // The name in global memory (address space 1) stays internal.
  // CHECK: llvm.mlir.global internal @__dynamic_shmem__2() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__dynamic_shmem__2() {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
}
