// RUN: vmapc-opt %s --arr-gpu-workgroups | FileCheck %s

// An elementwise kernel over a grid of ceil(n / 8) workgroups of rows: the
// forall becomes a block (row i = 8 x block_id.x), the 8 x 32 scratch tile
// a view of the block's dynamic shared memory (1024 bytes, the bound of its
// rows), each generic a loop over the tile's elements strided by the 256
// threads, a barrier after each. The kernel takes its bindings then n (an
// i64 parameter, whatever the index bitwidth of the lowering).
// CHECK-LABEL: gpu.module @vmapc_kernels
// CHECK-LABEL: gpu.func @vmapc_kernel_scale(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<64x32xf32>, %[[OUT:[a-z0-9]+]]: memref<64x32xf32>, %[[N64:[a-z0-9]+]]: i64) kernel
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      sched.binding_access = array<i64: 1, 2>, sched.binding_bytes = array<i64: 8192, 8192>, sched.scratch_bytes = 1024 : i64, sched.workgroup_count = array<i64: -8, 1, 1>
// CHECK-DAG:     %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG:     %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[BID:.+]] = gpu.block_id x
// CHECK-DAG:     %[[N:.+]] = arith.index_cast %[[N64]] : i64 to index
// CHECK:         %[[I:.+]] = affine.apply #{{.+}}()[%[[BID]]]
// CHECK:         %[[ROWS:.+]] = affine.min #{{.+}}(%[[I]])[%[[N]]]
// CHECK:         %[[VIEW:.+]] = memref.view %[[SHARED]][%{{.+}}][%[[ROWS]]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?x32xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[TILE:.+]] = memref.memory_space_cast %[[VIEW]]
// CHECK:         scf.for %[[E:.+]] = %[[TID]] to %{{.+}} step %[[C256:.+]] {
// CHECK:           %[[IJ:.+]]:2 = affine.delinearize_index %[[E]] into (%[[ROWS]], 32)
// CHECK:           math.exp
// CHECK:           memref.store %{{.+}}, %[[TILE]][%[[IJ]]#0, %[[IJ]]#1]
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK:         gpu.barrier
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.return
// The kernel's descriptor: "VMK5" | 2 bindings << 32, 1 scalar, the grid,
// 0 scratch (a CUDA kernel's is its launch's shared memory), the launch
// (256 | 1 << 32, then 1 | 1024 << 32: a block of 256 x 1 x 1 threads with
// 1024 shared bytes), the bindings' bytes and accesses (x read, out
// written).
// CHECK: llvm.mlir.global external constant @vmapc_kernel_scale_descriptor(dense<[9484062038, 1, -8, 1, 1, 0, 4294967552, 4398046511105, 8192, 8192, 1, 2]>

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
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

// 4 row sums of 1000: fewer outputs (4) than warps (8), so the whole block
// takes each row in turn: each thread folds elements tid, tid + 256, ...
// from -0.0, the warp combines with 5 xor shuffles, lane 0 of each warp
// writes its warp's sum into a row of 8 floats of shared memory (after the
// kernel's scratch: here none), warp 0 combines the 8 and adds the row's
// initial value (the fill).
// CHECK-LABEL: gpu.func @vmapc_kernel_row_sums(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 32 : i64
// CHECK-DAG:     %[[TID:.+]] = gpu.thread_id x
// CHECK-DAG:     %[[SHARED:.+]] = gpu.dynamic_shared_memory
// CHECK:         scf.for %{{.+}} = %[[TID]] to %{{.+}} step %{{.+}} {
// CHECK:           memref.store %{{.+}}, %[[OUTS:.+]][
// CHECK:         gpu.barrier
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %[[C32:.+]] : index
// CHECK:         %[[WARP:.+]] = arith.divui %[[TID]], %[[C32]] : index
// CHECK:         %[[PARTIALS:.+]] = memref.view %[[SHARED]][%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:           %[[MINUS0:.+]] = arith.constant -0.000000e+00 : f32
// CHECK:           %[[PART:.+]] = scf.for %[[K:.+]] = %[[TID]] to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[MINUS0]]) -> (f32) {
// CHECK:             %[[V:.+]] = memref.load %{{.+}}[%[[ROW]], %[[K]]] : memref<4x1000xf32>
// CHECK:             arith.addf %[[V]], %[[ACC]] fastmath<contract> : f32
// CHECK:           gpu.shuffle xor %[[PART]], %{{.+}}, %{{.+}} : f32
// CHECK-COUNT-4:   gpu.shuffle xor
// CHECK:           %[[IS0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
// CHECK:           scf.if %[[IS0]] {
// CHECK:             memref.store %{{.+}}, %[[PARTIALS]][%[[WARP]]]
// CHECK:           gpu.barrier
// CHECK:           %[[ISW0:.+]] = arith.cmpi eq, %[[WARP]], %{{.+}} : index
// CHECK:           scf.if %[[ISW0]] {
// CHECK:             memref.load %[[PARTIALS]]
// CHECK-COUNT-5:     gpu.shuffle xor
// CHECK:             scf.if
// CHECK:               %[[INIT:.+]] = memref.load %{{.+}}[%[[ROW]]] : memref<4xf32>
// CHECK:               %[[SUM:.+]] = arith.addf %{{.+}}, %[[INIT]] fastmath<contract> : f32
// CHECK:               memref.store %[[SUM]], %{{.+}}[%[[ROW]]] : memref<4xf32>
// CHECK:           gpu.barrier
// CHECK:         gpu.return
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

// 64 row maxima of 45 i32: at least as many outputs as warps (8), fewer
// than threads: a warp per row, warp w taking rows w, w + 8, ...; lanes
// fold elements lane, lane + 32 from INT32_MIN, 5 shuffles, lane 0 stores
// max(result, initial value). No shared memory.
// CHECK-LABEL: gpu.func @vmapc_kernel_row_max(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 0 : i64
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]]
// CHECK:         %[[WARP:.+]] = arith.divui %[[TID]]
// CHECK:         scf.for %[[ROW:.+]] = %[[WARP]] to %{{.+}} step %[[C8:.+]] {
// CHECK:           %[[PART:.+]] = scf.for %{{.+}} = %[[LANE]] to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (i32) {
// CHECK:             arith.maxsi
// CHECK:           gpu.shuffle xor %[[PART]]
// CHECK-COUNT-4:   gpu.shuffle xor
// CHECK:           scf.if
// CHECK:             %[[INIT:.+]] = memref.load %{{.+}}[%[[ROW]]] : memref<64xi32>
// CHECK:             arith.maxsi %{{.+}}, %[[INIT]] : i32
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         gpu.return
func.func private @row_max(%x: memref<64x45xi32>, %out: memref<64xi32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x45xi32>) outs(%out : memref<64xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %a, %acc : i32
    linalg.yield %m : i32
  }
  return
}

// An argmin over 129: 129 iterations, so 160 threads (5 warps); the block
// shares the one output. Each thread starts from (+inf, INT32_MAX) and runs
// the payload; partials combine by value (a NaN first), then by the lower index
// on a tie (so the first NaN or the lowest index wins whatever the block size), through rows of 5
// floats and 5 i32 in shared memory.
// CHECK-LABEL: gpu.func @vmapc_kernel_argmin(
// CHECK-SAME:      known_block_size = array<i32: 160, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 40 : i64
// CHECK-DAG:     memref.view %{{.+}}[%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.view %{{.+}}[%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xi32, #gpu.address_space<workgroup>>
// CHECK:         %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK:         %[[IMAX:.+]] = arith.constant 2147483647 : i32
// CHECK:         scf.for %{{.+}} iter_args(%{{.+}} = %[[INF]], %{{.+}} = %[[IMAX]]) -> (f32, i32) {
// CHECK:         %[[V:.+]], %{{.+}} = gpu.shuffle xor %[[BEST:.+]]#0, %{{.+}}, %{{.+}} : f32
// CHECK:         %[[K:.+]], %{{.+}} = gpu.shuffle xor %[[BEST]]#1, %{{.+}}, %{{.+}} : i32
// CHECK:         %[[VNAN:.+]] = arith.cmpf uno, %[[V]], %[[V]] fastmath<contract> : f32
// CHECK:         %[[LT:.+]] = arith.cmpf olt, %[[V]], %[[BEST]]#0 fastmath<contract> : f32
// CHECK:         %[[BNUM:.+]] = arith.cmpf ord, %[[BEST]]#0, %[[BEST]]#0 fastmath<contract> : f32
// CHECK:         %[[NANWINS:.+]] = arith.andi %[[VNAN]], %[[BNUM]] : i1
// CHECK:         %[[BETTER:.+]] = arith.ori %[[LT]], %[[NANWINS]] : i1
// CHECK:         %[[EQ:.+]] = arith.cmpf oeq, %[[V]], %[[BEST]]#0 fastmath<contract> : f32
// CHECK:         %[[BNAN:.+]] = arith.cmpf uno, %[[BEST]]#0, %[[BEST]]#0 fastmath<contract> : f32
// CHECK:         %[[BOTHNAN:.+]] = arith.andi %[[VNAN]], %[[BNAN]] : i1
// CHECK:         %[[SAME:.+]] = arith.ori %[[EQ]], %[[BOTHNAN]] : i1
// CHECK:         %[[LOWER:.+]] = arith.cmpi slt, %[[K]], %[[BEST]]#1 : i32
// CHECK:         %[[TIE:.+]] = arith.andi %[[SAME]], %[[LOWER]] : i1
// CHECK:         %[[TAKE:.+]] = arith.ori %[[BETTER]], %[[TIE]] : i1
// CHECK:         arith.select %[[TAKE]], %[[V]], %[[BEST]]#0 : f32
// CHECK:         arith.select %[[TAKE]], %[[K]], %[[BEST]]#1 : i32
// CHECK:         gpu.return
func.func private @argmin(%x: memref<1x129xf32>, %best: memref<1xf32>, %index: memref<1xi32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<1x129xf32>) outs(%best, %index : memref<1xf32>, memref<1xi32>) {
  ^bb0(%in: f32, %b: f32, %k: i32):
    %0 = linalg.index 1 : index
    %1 = arith.index_cast %0 : index to i32
    %2 = arith.cmpf uno, %in, %in : f32
    %3 = arith.cmpf olt, %in, %b : f32
    %4 = arith.cmpf ord, %b, %b : f32
    %5 = arith.andi %2, %4 : i1
    %6 = arith.ori %3, %5 : i1
    %7 = arith.cmpf oeq, %in, %b : f32
    %8 = arith.cmpf uno, %b, %b : f32
    %9 = arith.andi %2, %8 : i1
    %10 = arith.ori %7, %9 : i1
    %11 = arith.cmpi slt, %1, %k : i32
    %12 = arith.andi %10, %11 : i1
    %13 = arith.ori %6, %12 : i1
    %14 = arith.select %13, %in, %b : f32
    %15 = arith.select %13, %1, %k : i32
    linalg.yield %14, %15 : f32, i32
  }
  return
}

// (Multiplies and adds carry fastmath<contract>: they may become FMAs.)
// A sum whose payload is not `combine(x, out)` (a running x * out) is not
// shared by a warp (no shuffle): its one reduction loop reads x along it
// innermost, so arr-gpu-contraction-tiles computes it by output tiles, each
// thread running its elements' reduction in order.
// CHECK-LABEL: gpu.func @vmapc_kernel_unrecognized(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-NOT:     gpu.shuffle
// CHECK:         scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK-NOT:     gpu.shuffle
// CHECK:         gpu.return
func.func private @unrecognized(%x: memref<2x300xf32>, %out: memref<2xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x300xf32>) outs(%out : memref<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %a, %acc : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  }
  return
}

// A contraction, 64 examples per block: out[b, n] += x[b, k] * w[k, n] with
// w shared by the examples. The block covers the 64 x 96 output in tiles of
// 64 x 32 (a 16 x 16 grid of threads, 4 x 2 accumulators each: the fewest
// padded elements, 3 tiles with none, times shared loads per multiply-add);
// the reduction runs 16 steps at a time, the block first copying x's 64 x 16
// slice and w's 16 x 32 slice into shared memory (innermost padded by one
// element; after the 16 KiB scratch: 64 x 17 x 4 + 16 x 33 x 4 bytes), a
// barrier before the steps and one after. Rows and columns past the output
// are clamped and computed, not stored.
// CHECK-LABEL: gpu.func @vmapc_kernel_dense(
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 22848 : i64
// CHECK:         %[[X:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x17xf32, #gpu.address_space<workgroup>>
// CHECK:         %[[W:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x33xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:           affine.delinearize_index %[[T]] into (%{{.+}}, %{{.+}})
// CHECK-COUNT-8:   memref.load %{{.+}} : memref<?x96xf32, strided<[96, 1], offset: ?>>
// CHECK:           %[[ACC:.+]]:8 = scf.for %[[K0:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK:             scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:               affine.delinearize_index %{{.+}} into (64, 16)
// CHECK:               memref.store %{{.+}}, %[[X]]
// CHECK:             scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:               affine.delinearize_index %{{.+}} into (16, 32)
// CHECK:               memref.store %{{.+}}, %[[W]]
// CHECK:             gpu.barrier
// CHECK:             scf.for {{.+}} iter_args(
// CHECK-COUNT-8:       arith.mulf {{.+}} fastmath<contract> : f32
// CHECK:             gpu.barrier
// CHECK-COUNT-8:   scf.if
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

// Scratch is packed by live interval (the arena planner's greedy by size):
// %a dies at the op that writes %c, so %c takes %a's bytes, and the kernel
// needs 2 x 4096 bytes of shared memory, not 3.
// CHECK-LABEL: gpu.func @vmapc_kernel_chain(
// CHECK-SAME:      sched.scratch_bytes = 8192 : i64
// CHECK:         memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.+}}[%c4096{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.view %{{.+}}[%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
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

// An elementwise op of 4096 elements (at least 4 per thread): each thread
// takes 4 elements per iteration, 256 apart (adjacent threads, adjacent
// elements), and loads all 4 (the last clamped to the end) before storing
// any; elements 2 to 4 are stored only if inside. The broadcast scalar %a
// (a 0-d memref, the same element for every iteration) is loaded once,
// before the loop.
// CHECK-LABEL: gpu.func @vmapc_kernel_axpy(
// CHECK:         %[[A:.+]] = memref.load %{{.+}}[] : memref<f32>
// CHECK:         scf.for %[[E:.+]] = %{{.+}} to %{{.+}} step %c1024
// CHECK-NOT:       memref.store
// CHECK-COUNT-4:   arith.mulf %{{.+}}, %[[A]]
// CHECK-NOT:       memref.load
// CHECK:           memref.store
// CHECK-COUNT-3:   scf.if
// CHECK-NOT:       memref.load %{{.+}}[] : memref<f32>
// CHECK:         gpu.barrier
func.func private @axpy(%x: memref<4096xf32>, %a: memref<f32>, %out: memref<4096xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %a : memref<4096xf32>, memref<f32>) outs(%out : memref<4096xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.mulf %v, %s : f32
    linalg.yield %m : f32
  }
  return
}

// A row sum from scratch into scratch whose rows are dynamic (a partial
// tile): the bound of the rows (4) is read through the scratch's
// shared-memory views, so the 4 sums of 1000 are shared by the block (fewer
// rows than warps), not computed by 4 threads alone.
// CHECK-LABEL: gpu.func @vmapc_kernel_exp_sums(
// CHECK:         math.exp
// CHECK:         gpu.barrier
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK:         gpu.barrier
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK:         gpu.barrier
// CHECK:         math.log
// CHECK:         gpu.return
func.func private @exp_sums(%x: memref<64x1000xf32>, %out: memref<64xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -4, 1, 1>} {
  scf.forall (%i) = (0) to (%n) step (4) {
    %r = affine.min affine_map<(d0)[s0] -> (4, s0 - d0)>(%i)[%n]
    %xs = memref.subview %x[%i, 0] [%r, 1000] [1, 1] : memref<64x1000xf32> to memref<?x1000xf32, strided<[1000, 1], offset: ?>>
    %os = memref.subview %out[%i] [%r] [1] : memref<64xf32> to memref<?xf32, strided<[1], offset: ?>>
    %e = memref.alloc(%r) : memref<?x1000xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<?x1000xf32, strided<[1000, 1], offset: ?>>) outs(%e : memref<?x1000xf32>) {
    ^bb0(%v: f32, %o: f32):
      %x1 = math.exp %v : f32
      linalg.yield %x1 : f32
    }
    %sums = memref.alloc(%r) : memref<?xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%e : memref<?x1000xf32>) outs(%sums : memref<?xf32>) {
    ^bb0(%v: f32, %acc: f32):
      %s = arith.addf %v, %acc : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sums : memref<?xf32>) outs(%os : memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%v: f32, %o: f32):
      %l = math.log %v : f32
      linalg.yield %l : f32
    }
  }
  return
}
