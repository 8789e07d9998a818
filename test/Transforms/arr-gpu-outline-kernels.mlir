// RUN: vmapc-opt %s -split-input-file -verify-diagnostics --arr-gpu-outline-kernels | FileCheck %s

// --arr-gpu-outline-kernels alone: each bufferized kernel NAME becomes
// gpu.func @vmapc_kernel_NAME of gpu.module @vmapc_kernels, with the CUDA
// ABI: its bindings first (here x and out, although the scalars come first
// in the func.func), then its index scalars as i64 (n, then m), each cast
// back to index at the entry. The body is copied as it is: the grid loop,
// the scratch allocation and the linalg ops stay for the later passes (no
// block size, no scratch bytes yet). The kernel keeps its grid and gets its
// bindings' bytes (64 x 4 x 4 = 1024) and accesses (1 read, 2 written, 3
// both: row_sums' out is filled, then read and written by the sum). The
// entry's descriptor and the constant global the kernel reads are copied
// into the GPU module; the host keeps its own, and loses the kernels.
// CHECK:       module attributes {gpu.container_module}
// CHECK-NEXT:    llvm.mlir.global external constant @vmapc_entry_e_descriptor(dense<[4851296279508110678, 1, 4, 256, 0, 1, 4, 0]>
// CHECK-NEXT:    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-NEXT:    gpu.module @vmapc_kernels {
// CHECK-NEXT:      llvm.mlir.global external constant @vmapc_entry_e_descriptor(dense<[4851296279508110678, 1, 4, 256, 0, 1, 4, 0]> : tensor<8xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
// CHECK-NEXT:      memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK-NEXT:      gpu.func @vmapc_kernel_scale(
// CHECK-SAME:        %[[X:[a-z0-9]+]]: memref<64x4xf32>, %[[OUT:[a-z0-9]+]]: memref<64x4xf32>, %[[N64:[a-z0-9]+]]: i64, %[[M64:[a-z0-9]+]]: i64) kernel
// CHECK-SAME:        attributes {sched.binding_access = array<i64: 1, 2>, sched.binding_bytes = array<i64: 1024, 1024>, sched.workgroup_count = array<i64: -8, 1, 1>} {
// CHECK-NEXT:        %[[N:.+]] = arith.index_cast %[[N64]] : i64 to index
// CHECK-NEXT:        %{{.+}} = arith.index_cast %[[M64]] : i64 to index
// CHECK-NEXT:        %[[C:.+]] = memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK-NEXT:        scf.forall (%[[I:.+]]) = (0) to (%[[N]]) step (8) {
// CHECK:               memref.subview %[[X]][%[[I]], 0]
// CHECK:               memref.subview %[[OUT]][%[[I]], 0]
// CHECK:               %[[T:.+]] = memref.alloc(%{{.+}}) : memref<?x4xf32>
// CHECK:               linalg.generic {{.+}} ins(%{{.+}}, %[[C]] : {{.+}}) outs(%[[T]] : memref<?x4xf32>)
// CHECK:               linalg.copy ins(%[[T]] : memref<?x4xf32>)
// CHECK:               memref.dealloc %[[T]]
// CHECK:             gpu.return
// CHECK:           gpu.func @vmapc_kernel_row_sums(%{{.+}}: memref<4x1000xf32>, %[[S:.+]]: memref<4xf32>) kernel
// CHECK-SAME:        attributes {sched.binding_access = array<i64: 1, 3>, sched.binding_bytes = array<i64: 16000, 16>} {
// CHECK:             linalg.fill ins(%{{.+}} : f32) outs(%[[S]] : memref<4xf32>)
// CHECK:             linalg.generic
// CHECK:             gpu.return
// CHECK-NOT:       {{func.func|gpu.func}}

llvm.mlir.global external constant @vmapc_entry_e_descriptor(dense<[4851296279508110678, 1, 4, 256, 0, 1, 4, 0]> : tensor<8xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func private @scale(%n: index {sched.num_examples}, %x: memref<64x4xf32>, %m: index, %out: memref<64x4xf32>) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
  %c = memref.get_global @__constant_4xf32 : memref<4xf32>
  scf.forall (%i) = (0) to (%n) step (8) {
    %r = affine.min affine_map<(d0)[s0] -> (8, s0 - d0)>(%i)[%n]
    %xs = memref.subview %x[%i, 0] [%r, 4] [1, 1] : memref<64x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
    %os = memref.subview %out[%i, 0] [%r, 4] [1, 1] : memref<64x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
    %t = memref.alloc(%r) : memref<?x4xf32>
    linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%xs, %c : memref<?x4xf32, strided<[4, 1], offset: ?>>, memref<4xf32>) outs(%t : memref<?x4xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %e = arith.mulf %a, %b : f32
      linalg.yield %e : f32
    }
    linalg.copy ins(%t : memref<?x4xf32>) outs(%os : memref<?x4xf32, strided<[4, 1], offset: ?>>)
    memref.dealloc %t : memref<?x4xf32>
  }
  return
}

func.func private @row_sums(%x: memref<4x1000xf32>, %out: memref<4xf32>) attributes {sched.kernel} {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x1000xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The ABI passes bindings as bare pointers: their shapes must be static.
// expected-error @+1 {{has a binding of dynamic shape}}
func.func private @dynamic_binding(%out: memref<?xf32>) attributes {sched.kernel} {
  return
}

// -----

// A kernel has no host state to share: it reads constant globals only.
memref.global "private" @mutable : memref<4xf32> = dense<0.0>

func.func private @reads_mutable_global(%out: memref<4xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{reads @mutable, which is not a constant with an initial value}}
  %g = memref.get_global @mutable : memref<4xf32>
  linalg.copy ins(%g : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// A program not yet dispatched into kernels (linalg on tensors): the error
// names the passes to run first.
// expected-error @+1 {{'arr-gpu-outline-kernels' runs on entries that dispatch sched.kernel functions, on tensors (the output of --arr-form-dispatches) up to kernels only, the entries' schedules erased (the output of --arr-erase-schedules); this IR is linalg on tensors (the output of --arr-to-linalg-pipeline): run --arr-pack-operands --arr-form-dispatches first}}
func.func @not_dispatched(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
