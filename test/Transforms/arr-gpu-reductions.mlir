// RUN: vmapc-opt %s -split-input-file -verify-diagnostics --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions | FileCheck %s
// RUN: not vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-reductions 2>&1 | FileCheck %s --check-prefix=NO-BLOCK

// --arr-gpu-reductions after --arr-gpu-block-size: a reduction of 32-bit
// values whose payload combines (sum, max, argmin, ...) and that has fewer
// outputs than the block's threads is replaced by the code of the block's
// threads and a barrier: a warp per output when there are at least as many
// outputs as warps, else the whole block per output. Every other op (a
// fill, an elementwise op, a reduction with many outputs, of 64-bit values
// or with a payload that does not combine) is left as it is, a linalg op,
// for the later passes. Each kernel records the bytes of shared memory the
// warps exchange through, after the scratch, in
// vmapc.transient_shared_bytes.

// 4 row sums of 1000, 256 threads: 4 outputs, fewer than the 8 warps, so
// the whole block takes each row in turn: each thread folds elements
// tid, tid + 256, ... from -0.0 (the identity of addf), the warp combines
// with 5 xor shuffles (16, 8, 4, 2, 1 lanes apart), lane 0 of each warp
// writes its sum into a row of 8 f32 of shared memory at offset 0 (no
// scratch): 32 transient bytes; warp 0 combines the 8 and adds the row's
// value. The fill before stays a linalg.fill.
// CHECK-LABEL: gpu.func @vmapc_kernel_row_sums(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<4x1000xf32>, %[[OUT:[a-z0-9]+]]: memref<4xf32>)
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      sched.scratch_bytes = 0 : i64
// CHECK-SAME:      vmapc.transient_shared_bytes = 32 : i64
// CHECK-DAG:     %[[SHARED:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[TID:.+]] = gpu.thread_id x
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : memref<4xf32>)
// CHECK:         %[[C32:.+]] = arith.constant 32 : index
// CHECK-NEXT:    %[[LANE:.+]] = arith.remui %[[TID]], %[[C32]] : index
// CHECK-NEXT:    %[[WARP:.+]] = arith.divui %[[TID]], %[[C32]] : index
// CHECK-NEXT:    %[[OFF:.+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ROWBUF:.+]] = memref.view %[[SHARED]][%[[OFF]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:         scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:           %[[MINUS0:.+]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:      %[[C256:.+]] = arith.constant 256 : index
// CHECK-NEXT:      %[[PART:.+]] = scf.for %[[K:.+]] = %[[TID]] to %{{.+}} step %[[C256]] iter_args(%[[ACC:.+]] = %[[MINUS0]]) -> (f32) {
// CHECK-NEXT:        %[[V:.+]] = memref.load %[[X]][%[[ROW]], %[[K]]] : memref<4x1000xf32>
// CHECK-NEXT:        %[[S:.+]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK-NEXT:        scf.yield %[[S]] : f32
// CHECK:           %[[W32:.+]] = arith.constant 32 : i32
// CHECK-NEXT:      %[[C16:.+]] = arith.constant 16 : i32
// CHECK-NEXT:      %[[SH16:.+]], %{{.+}} = gpu.shuffle xor %[[PART]], %[[C16]], %[[W32]] : f32
// CHECK-NEXT:      %[[P16:.+]] = arith.addf %[[SH16]], %[[PART]] : f32
// CHECK-NEXT:      %[[C8:.+]] = arith.constant 8 : i32
// CHECK-NEXT:      %{{.+}}, %{{.+}} = gpu.shuffle xor %[[P16]], %[[C8]], %[[W32]] : f32
// CHECK:           %[[C4:.+]] = arith.constant 4 : i32
// CHECK-NEXT:      gpu.shuffle xor %{{.+}}, %[[C4]], %[[W32]] : f32
// CHECK:           %[[C2:.+]] = arith.constant 2 : i32
// CHECK-NEXT:      gpu.shuffle xor %{{.+}}, %[[C2]], %[[W32]] : f32
// CHECK:           %[[C1:.+]] = arith.constant 1 : i32
// CHECK-NEXT:      gpu.shuffle xor %{{.+}}, %[[C1]], %[[W32]] : f32
// CHECK-NEXT:      %[[WSUM:.+]] = arith.addf
// CHECK-NEXT:      %[[IS0:.+]] = arith.cmpi eq, %[[LANE]], %{{.+}} : index
// CHECK-NEXT:      scf.if %[[IS0]] {
// CHECK-NEXT:        memref.store %[[WSUM]], %[[ROWBUF]][%[[WARP]]] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      %[[ISW0:.+]] = arith.cmpi eq, %[[WARP]], %{{.+}} : index
// CHECK-NEXT:      scf.if %[[ISW0]] {
// CHECK:             memref.load %[[ROWBUF]][%{{.+}}] : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-5:     gpu.shuffle xor
// CHECK:             scf.if
// CHECK-NEXT:          %[[INIT:.+]] = memref.load %[[OUT]][%[[ROW]]] : memref<4xf32>
// CHECK-NEXT:          %[[SUM:.+]] = arith.addf %{{.+}}, %[[INIT]] : f32
// CHECK-NEXT:          memref.store %[[SUM]], %[[OUT]][%[[ROW]]] : memref<4xf32>
// CHECK:           gpu.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
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

// 64 row maxima of 45 i32: at least as many outputs as the 8 warps: warp w
// takes rows w, w + 8, ...; its lanes fold elements lane, lane + 32 from
// INT32_MIN, 5 shuffles, lane 0 stores max(result, initial value). No
// shared memory.
// CHECK-LABEL: gpu.func @vmapc_kernel_row_max(
// CHECK-SAME:      vmapc.transient_shared_bytes = 0 : i64
// CHECK-NOT:     gpu.dynamic_shared_memory
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[LANE:.+]] = arith.remui %[[TID]], %{{.+}} : index
// CHECK-NEXT:    %[[WARP:.+]] = arith.divui %[[TID]], %{{.+}} : index
// CHECK:         %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT:    scf.for %[[ROW:.+]] = %[[WARP]] to %{{.+}} step %[[C8]] {
// CHECK:           %[[IMIN:.+]] = arith.constant -2147483648 : i32
// CHECK-NEXT:      %[[C32:.+]] = arith.constant 32 : index
// CHECK-NEXT:      %[[PART:.+]] = scf.for %{{.+}} = %[[LANE]] to %{{.+}} step %[[C32]] iter_args(%{{.+}} = %[[IMIN]]) -> (i32) {
// CHECK:             arith.maxsi
// CHECK:           gpu.shuffle xor %[[PART]], %{{.+}}, %{{.+}} : i32
// CHECK-COUNT-4:   gpu.shuffle xor
// CHECK:           scf.if
// CHECK-NEXT:        %[[INIT:.+]] = memref.load %{{.+}}[%[[ROW]]] : memref<64xi32>
// CHECK-NEXT:        %[[MAX:.+]] = arith.maxsi %{{.+}}, %[[INIT]] : i32
// CHECK-NEXT:        memref.store %[[MAX]], %{{.+}}[%[[ROW]]] : memref<64xi32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    gpu.return
func.func private @row_max(%x: memref<64x45xi32>, %out: memref<64xi32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x45xi32>) outs(%out : memref<64xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %m = arith.maxsi %a, %acc : i32
    linalg.yield %m : i32
  }
  return
}

// An argmin over 129 (160 threads, 5 warps; one output: the block): each
// thread starts from (+inf, INT32_MAX); the exchange has two rows of 5, the
// values at offset 0 and the indices at 5 x 4 = 20: 40 transient bytes.
// Partials combine in argmin's order (passes/ArgReduction.h): by value,
// a NaN before any number, then by the lower index on a tie.
// CHECK-LABEL: gpu.func @vmapc_kernel_argmin(
// CHECK-SAME:      known_block_size = array<i32: 160, 1, 1>
// CHECK-SAME:      vmapc.transient_shared_bytes = 40 : i64
// CHECK:         arith.divui
// CHECK-NEXT:    %[[O0:.+]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %{{.+}}[%[[O0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:    %[[O20:.+]] = arith.constant 20 : index
// CHECK-NEXT:    memref.view %{{.+}}[%[[O20]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<5xi32, #gpu.address_space<workgroup>>
// CHECK:         %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT:    %[[IMAX:.+]] = arith.constant 2147483647 : i32
// CHECK:         %[[BEST:.+]]:2 = scf.for %{{.+}} iter_args(%{{.+}} = %[[INF]], %{{.+}} = %[[IMAX]]) -> (f32, i32) {
// CHECK:         %[[V:.+]], %{{.+}} = gpu.shuffle xor %[[BEST]]#0, %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    %[[K:.+]], %{{.+}} = gpu.shuffle xor %[[BEST]]#1, %{{.+}}, %{{.+}} : i32
// CHECK-NEXT:    %[[VNAN:.+]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT:    %[[LT:.+]] = arith.cmpf olt, %[[V]], %[[BEST]]#0 : f32
// CHECK-NEXT:    %[[BNUM:.+]] = arith.cmpf ord, %[[BEST]]#0, %[[BEST]]#0 : f32
// CHECK-NEXT:    %[[NANWINS:.+]] = arith.andi %[[VNAN]], %[[BNUM]] : i1
// CHECK-NEXT:    %[[BETTER:.+]] = arith.ori %[[LT]], %[[NANWINS]] : i1
// CHECK-NEXT:    %[[EQ:.+]] = arith.cmpf oeq, %[[V]], %[[BEST]]#0 : f32
// CHECK-NEXT:    %[[BNAN:.+]] = arith.cmpf uno, %[[BEST]]#0, %[[BEST]]#0 : f32
// CHECK-NEXT:    %[[BOTHNAN:.+]] = arith.andi %[[VNAN]], %[[BNAN]] : i1
// CHECK-NEXT:    %[[SAME:.+]] = arith.ori %[[EQ]], %[[BOTHNAN]] : i1
// CHECK-NEXT:    %[[LOWER:.+]] = arith.cmpi slt, %[[K]], %[[BEST]]#1 : i32
// CHECK-NEXT:    %[[TIE:.+]] = arith.andi %[[SAME]], %[[LOWER]] : i1
// CHECK-NEXT:    %[[TAKE:.+]] = arith.ori %[[BETTER]], %[[TIE]] : i1
// CHECK-NEXT:    arith.select %[[TAKE]], %[[V]], %[[BEST]]#0 : f32
// CHECK-NEXT:    arith.select %[[TAKE]], %[[K]], %[[BEST]]#1 : i32
// CHECK-NOT:     linalg.generic
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

// The exchange row goes after the scratch, at a 16-byte boundary: 1 x 1001
// f32 of scratch (4004 bytes), the row of 8 f32 at 4016: 12 bytes of
// padding + 32 = 44 transient bytes. The elementwise exp into the scratch
// stays a linalg.generic.
// CHECK-LABEL: gpu.func @vmapc_kernel_exp_sum(
// CHECK-SAME:      sched.scratch_bytes = 4004 : i64
// CHECK-SAME:      vmapc.transient_shared_bytes = 44 : i64
// CHECK:         %[[SCRATCH:.+]] = memref.memory_space_cast %{{.+}} : memref<1x1001xf32, #gpu.address_space<workgroup>> to memref<1x1001xf32>
// CHECK:         linalg.generic {{.+}} ins(%{{.+}} : memref<1x1001xf32>) outs(%[[SCRATCH]] : memref<1x1001xf32>)
// CHECK:           math.exp
// CHECK:         %[[O:.+]] = arith.constant 4016 : index
// CHECK-NEXT:    memref.view %{{.+}}[%[[O]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:         memref.load %[[SCRATCH]]
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK:         gpu.return
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

// Left as they are: 256 outputs (as many as threads: a thread each, later),
// f64 values (a shuffle moves 32 bits), and a payload that does not
// combine (x * out + x).
// CHECK-LABEL: gpu.func @vmapc_kernel_many_rows(
// CHECK-NOT:     gpu.shuffle
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : memref<256x4xf32>) outs(%{{.+}} : memref<256xf32>)
// CHECK-LABEL: gpu.func @vmapc_kernel_f64_sums(
// CHECK-NOT:     gpu.shuffle
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : memref<4x100xf64>) outs(%{{.+}} : memref<4xf64>)
// CHECK-LABEL: gpu.func @vmapc_kernel_unrecognized(
// CHECK-NOT:     gpu.shuffle
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : memref<2x300xf32>) outs(%{{.+}} : memref<2xf32>)
// CHECK-NOT:     gpu.shuffle
func.func private @many_rows(%x: memref<256x4xf32>, %out: memref<256xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<256x4xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func private @f64_sums(%x: memref<4x100xf64>, %out: memref<4xf64>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x100xf64>) outs(%out : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  }
  return
}
func.func private @unrecognized(%x: memref<2x300xf32>, %out: memref<2xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<2x300xf32>) outs(%out : memref<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %a, %acc : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// No distribution pass takes an op that writes an output element along a
// reduction loop.
func.func private @along(%x: memref<4x8xf32>, %out: memref<4x8xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{writes its output along a reduction loop}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// Without --arr-gpu-block-size the kernels have no block size to share.
// NO-BLOCK: error: 'gpu.func' op has no known_block_size: run --arr-gpu-block-size first
// NO-BLOCK-NEXT: func.func private @row_sums(
