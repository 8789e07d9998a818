// RUN: vmapc-opt %s --arr-to-nvvm-pipeline=serialize=false -split-input-file \
// RUN:   | FileCheck %s --implicit-check-not=gpu.alloc --implicit-check-not=memref.alloc --implicit-check-not=malloc
// RUN: vmapc-opt %s --arr-to-nvvm-pipeline="serialize=false threads-per-block=128" -split-input-file \
// RUN:   | FileCheck %s --check-prefix=T128

// The planned kNN program (arr-bufferize-pipeline's output for
// examples/knn_digits.arr): every intermediate is a view into the one arena.
// On the host, only the kernel launches are left; each kernel takes the
// entry's own pointers (the arena itself, never a view into it, and never a
// new allocation) and has blocks of 256 threads along the innermost loop.
// The reductions (over the 64 pixels, over the 1000 references) stay
// sequential loops inside each thread.

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1) -> (d0)>
func.func @classify(%arg0: memref<256x64xf32> {arr.name = "q", arr.staging, arr.staging_offset = 1024000 : i64}, %arg1: memref<1000x64xf32> {arr.name = "refs"}, %arg2: memref<256xi32> {arr.name = "out", arr.output, arr.staging, arr.staging_offset = 1025024 : i64}, %arg3: memref<1089536xi8> {arr.arena}) attributes {arr.batch = 256 : i64, arr.in_axes = [0, unit], arr.out_axes = [0], arr.plan = {arena_bytes = 1089536 : i64, buffers = 4 : i64, in_place = 0 : i64, lower_bound = 1089536 : i64, naive_sum = 1091584 : i64}} {
  %c0 = arith.constant 0 : index
  %c1024000 = arith.constant 1024000 : index
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0x7F800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %view = memref.view %arg3[%c0][] : memref<1089536xi8> to memref<256x1000xf32>
  linalg.fill ins(%cst_0 : f32) outs(%view : memref<256x1000xf32>)
  linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<256x64xf32>, memref<1000x64xf32>) outs(%view : memref<256x1000xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %0 = arith.subf %in, %in_2 : f32
    %1 = arith.mulf %0, %0 : f32
    %2 = arith.addf %1, %out : f32
    linalg.yield %2 : f32
  }
  %view_1 = memref.view %arg3[%c1024000][] : memref<1089536xi8> to memref<256xf32>
  linalg.fill ins(%cst : f32) outs(%view_1 : memref<256xf32>)
  linalg.fill ins(%c0_i32 : i32) outs(%arg2 : memref<256xi32>)
  linalg.generic {indexing_maps = [#map3, #map4, #map4], iterator_types = ["parallel", "reduction"]} ins(%view : memref<256x1000xf32>) outs(%view_1, %arg2 : memref<256xf32>, memref<256xi32>) {
  ^bb0(%in: f32, %out: f32, %out_2: i32):
    %0 = linalg.index 1 : index
    %1 = arith.index_cast %0 : index to i32
    %2 = arith.cmpf olt, %in, %out : f32
    %3 = arith.cmpf oeq, %in, %out : f32
    %4 = arith.cmpi slt, %1, %out_2 : i32
    %5 = arith.andi %3, %4 : i1
    %6 = arith.ori %2, %5 : i1
    %7 = arith.select %6, %in, %out : f32
    %8 = arith.select %6, %1, %out_2 : i32
    linalg.yield %7, %8 : f32, i32
  }
  return
}

// CHECK-LABEL: llvm.func @classify(
// CHECK-SAME:    %[[Q:[^:]+]]: !llvm.ptr {arr.name = "q"
// CHECK-SAME:    %[[REFS:[^:]+]]: !llvm.ptr {arr.name = "refs"}
// CHECK-SAME:    %[[OUT:[^:]+]]: !llvm.ptr {arr.name = "out"
// CHECK-SAME:    %[[ARENA:[^:]+]]: !llvm.ptr {arr.arena}
// CHECK-DAG:     %[[C1:.+]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG:     %[[C4:.+]] = llvm.mlir.constant(4 : index) : i64
// CHECK-DAG:     %[[C256:.+]] = llvm.mlir.constant(256 : index) : i64
// Zero the [256, 1000] distances: 4 x 256 blocks of 256 threads.
// CHECK:         gpu.launch_func @[[FILL:[a-z0-9_]+]]::@classify_kernel blocks in (%[[C4]], %[[C256]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) : i64 args(%[[ARENA]] : !llvm.ptr)
// The distances: reads q and refs, accumulates into the arena.
// CHECK-NEXT:    gpu.launch_func @[[DIST:[a-z0-9_]+]]::@classify_kernel blocks in (%[[C4]], %[[C256]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) : i64 args(%[[ARENA]] : !llvm.ptr, %[[Q]] : !llvm.ptr, %[[REFS]] : !llvm.ptr)
// CHECK-NEXT:    gpu.launch_func @{{.+}}::@classify_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) : i64 args(%[[ARENA]] : !llvm.ptr)
// CHECK-NEXT:    gpu.launch_func @{{.+}}::@classify_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) : i64 args(%[[OUT]] : !llvm.ptr)
// The argmin: reads the distances and the running minimum in the arena.
// CHECK-NEXT:    gpu.launch_func @[[ARGMIN:[a-z0-9_]+]]::@classify_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) : i64 args(%[[ARENA]] : !llvm.ptr, %[[OUT]] : !llvm.ptr)
// CHECK-NEXT:    llvm.return

// CHECK:       gpu.module @[[DIST]] [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK:         llvm.func @classify_kernel(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// CHECK-SAME:      nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK:         nvvm.read.ptx.sreg.tid.x
// One thread's sequential loop over the 64 pixels:
// CHECK:       ^[[HEAD:bb[0-9]+]](%[[D:.+]]: i64):
// CHECK:         llvm.icmp "slt" %[[D]], %{{.+}} : i64
// CHECK:         llvm.fsub
// CHECK:         llvm.fmul
// CHECK:         llvm.fadd
// CHECK:         llvm.br ^[[HEAD]]

// CHECK:       gpu.module @[[ARGMIN]]
// CHECK:         llvm.func @classify_kernel(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// One thread's sequential loop over the 1000 references:
// CHECK:       ^[[HEAD2:bb[0-9]+]](%[[R:.+]]: i64):
// CHECK:         llvm.icmp "slt" %[[R]], %{{.+}} : i64
// CHECK:         llvm.fcmp "olt"
// CHECK:         llvm.br ^[[HEAD2]]

// T128-LABEL: llvm.func @classify(
// T128-DAG:     %[[C8:.+]] = llvm.mlir.constant(8 : index) : i64
// T128-DAG:     %[[C128:.+]] = llvm.mlir.constant(128 : index) : i64
// T128:         gpu.launch_func @{{.+}} blocks in (%[[C8]], %{{.+}}, %{{.+}}) threads in (%[[C128]], %{{.+}}, %{{.+}})
// T128:       gpu.module
// T128:         nvvm.maxntid = array<i32: 128, 1, 1>

// -----

// A nest smaller than a block: the tile takes the inner dimension whole and
// as many rows as fit, a [64, 8] nest runs as one block of 32 x 8 threads.

// CHECK-LABEL: llvm.func @small(
// CHECK-SAME:    %[[IN:[^:]+]]: !llvm.ptr, %[[RES:[^:]+]]: !llvm.ptr)
// CHECK-DAG:     %[[C1:.+]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG:     %[[C2:.+]] = llvm.mlir.constant(2 : index) : i64
// CHECK-DAG:     %[[C8:.+]] = llvm.mlir.constant(8 : index) : i64
// CHECK-DAG:     %[[C32:.+]] = llvm.mlir.constant(32 : index) : i64
// CHECK:         gpu.launch_func @{{.+}} blocks in (%[[C1]], %[[C2]], %[[C1]]) threads in (%[[C8]], %[[C32]], %[[C1]]) : i64 args(%[[IN]] : !llvm.ptr, %[[RES]] : !llvm.ptr)
// CHECK:       gpu.module
// CHECK:         llvm.call @__nv_expf
func.func @small(%in: memref<64x8xf32>, %out: memref<64x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%in : memref<64x8xf32>) outs(%out : memref<64x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A memref.copy that bufferization left becomes a kernel like any linalg op.

// CHECK-LABEL: llvm.func @copy(
// CHECK-SAME:    %[[SRC:[^:]+]]: !llvm.ptr, %[[DST:[^:]+]]: !llvm.ptr)
// CHECK:         gpu.launch_func @{{.+}} args(%[[SRC]] : !llvm.ptr, %[[DST]] : !llvm.ptr)
// CHECK-NEXT:    llvm.return
func.func @copy(%src: memref<300xf32>, %dst: memref<300xf32>) {
  memref.copy %src, %dst : memref<300xf32> to memref<300xf32>
  return
}
