// RUN: vmapc-opt %s -split-input-file -verify-diagnostics --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch | FileCheck %s
// RUN: not vmapc-opt %s --arr-gpu-promote-scratch 2>&1 | FileCheck %s --check-prefix=NOT-OUTLINED

// --arr-gpu-promote-scratch after the grid loop is a block: every
// memref.alloc becomes a view of the block's dynamic shared memory (cast
// back to the default memory space for its users), its deallocs are erased,
// and sched.scratch_bytes is the bytes the views span.

// A partial tile of at most 8 rows of 32 f32 (the rows are
// min(8, n - i)): the view keeps the dynamic rows, its bytes are those of
// the bound, 8 x 32 x 4 = 1024.
// CHECK-LABEL: gpu.func @vmapc_kernel_scale(
// CHECK-SAME:      sched.scratch_bytes = 1024 : i64
// CHECK-NEXT:    %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[ROWS:.+]] = affine.min
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[VIEW:.+]] = memref.view %[[SHARED]][%[[C0]]][%[[ROWS]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[TILE:.+]] = memref.memory_space_cast %[[VIEW]] : memref<?x32xf32, #gpu.address_space<workgroup>> to memref<?x32xf32>
// CHECK-NEXT:    linalg.generic {{.+}} outs(%[[TILE]] : memref<?x32xf32>)
// CHECK:         linalg.generic {{.+}} ins(%[[TILE]] : memref<?x32xf32>)
// CHECK-NOT:     memref.dealloc
// CHECK:         gpu.return
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

// Packed by live interval (greedy by size, best fit): %a (4096 bytes) is
// last read by the op that writes %b, so %c, allocated after, takes %a's
// offset 0 while %b is at 4096: 8192 bytes, not 3 x 4096.
// CHECK-LABEL: gpu.func @vmapc_kernel_chain(
// CHECK-SAME:      sched.scratch_bytes = 8192 : i64
// CHECK-NEXT:    %[[SHARED:.+]] = gpu.dynamic_shared_memory
// CHECK-NEXT:    %[[OA:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.+]] = memref.view %[[SHARED]][%[[OA]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[CA:.+]] = memref.memory_space_cast %[[A]]
// CHECK-NEXT:    linalg.generic {{.+}} outs(%[[CA]] : memref<1024xf32>)
// CHECK:         %[[OB:.+]] = arith.constant 4096 : index
// CHECK-NEXT:    %[[B:.+]] = memref.view %[[SHARED]][%[[OB]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[CB:.+]] = memref.memory_space_cast %[[B]]
// CHECK-NEXT:    linalg.generic {{.+}} ins(%[[CA]] : memref<1024xf32>) outs(%[[CB]] : memref<1024xf32>)
// CHECK:         %[[OC:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C:.+]] = memref.view %[[SHARED]][%[[OC]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[CC:.+]] = memref.memory_space_cast %[[C]]
// CHECK-NEXT:    linalg.generic {{.+}} ins(%[[CB]] : memref<1024xf32>) outs(%[[CC]] : memref<1024xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.return
#vec = affine_map<(d0) -> (d0)>
func.func private @chain(%x: memref<1024xf32>, %out: memref<1024xf32>) attributes {sched.kernel} {
  %a = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  %c = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%b : memref<1024xf32>) outs(%c : memref<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%c : memref<1024xf32>) outs(%out : memref<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// Offsets are 16-byte aligned: 5 f32 (20 bytes) at 0, 5 i8 live at the same
// time at 32 (the next 16-byte boundary after 20), 32 + 5 = 37 bytes.
// CHECK-LABEL: gpu.func @vmapc_kernel_aligned(
// CHECK-SAME:      sched.scratch_bytes = 37 : i64
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[F:.+]] = memref.view %{{.+}}[%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.memory_space_cast %[[F]] : memref<5xf32, #gpu.address_space<workgroup>> to memref<5xf32>
// CHECK-NEXT:    %[[C32:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[I8:.+]] = memref.view %{{.+}}[%[[C32]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:    memref.memory_space_cast %[[I8]] : memref<5xi8, #gpu.address_space<workgroup>> to memref<5xi8>
// CHECK-NOT:     memref.dealloc
// CHECK:         gpu.return
func.func private @aligned(%x: memref<5xf32>, %out: memref<5xf32>) attributes {sched.kernel} {
  %a = memref.alloc() : memref<5xf32>
  %b = memref.alloc() : memref<5xi8>
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%x : memref<5xf32>) outs(%a : memref<5xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%a : memref<5xf32>) outs(%b : memref<5xi8>) {
  ^bb0(%v: f32, %o: i8):
    %t = arith.fptosi %v : f32 to i8
    linalg.yield %t : i8
  }
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%b : memref<5xi8>) outs(%out : memref<5xf32>) {
  ^bb0(%v: i8, %o: f32):
    %t = arith.sitofp %v : i8 to f32
    linalg.yield %t : f32
  }
  memref.dealloc %a : memref<5xf32>
  memref.dealloc %b : memref<5xi8>
  return
}

// No scratch: no shared memory, 0 bytes.
// CHECK-LABEL: gpu.func @vmapc_kernel_no_scratch(
// CHECK-SAME:      sched.scratch_bytes = 0 : i64
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         gpu.return
func.func private @no_scratch(%x: memref<4xf32>, %out: memref<4xf32>) attributes {sched.kernel} {
  linalg.copy ins(%x : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

func.func private @unbounded_scratch(%out: memref<64xf32>, %n: index) attributes {sched.kernel} {
  // expected-error @+1 {{allocates per-workgroup scratch of a size with no known bound}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func private @strided_scratch(%out: memref<64xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{allocates scratch with a non-identity layout}}
  %a = memref.alloc() : memref<4x4xf32, strided<[8, 1]>>
  return
}

// NOT-OUTLINED: error: 'func.func' op is a kernel not yet outlined: 'arr-gpu-promote-scratch' runs on the gpu.funcs of gpu.module @vmapc_kernels; run --arr-gpu-outline-kernels first
// NOT-OUTLINED-NEXT: func.func private @scale(
