// RUN: vmapc-opt %s --arr-cpu-workgroups | FileCheck %s

// A grid of ceil(n / 8) workgroups of rows. The forall is replaced by its
// body for workgroup (x, y, z), three new index arguments: row i = 8 x.
// Scratch becomes views of one 64-byte aligned alloca at the entry: the
// 8 x 32 tile (1024 bytes), the partial tile's rows (bounded by min(8, n -
// i): 1024 bytes, viewed with the actual rows) and 3 floats (12 bytes, 64
// with alignment), all live at the store to %tile: 2112 bytes. Its dealloc
// is erased. It reads x (access 1) and writes out (2).
// CHECK: #[[$TIMES8:.+]] = affine_map<()[s0] -> (s0 * 8)>
// CHECK-LABEL: func.func private @rows(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<64x32xf32>, %[[OUT:[a-z0-9]+]]: memref<64x32xf32>, %[[N:[a-z0-9]+]]: index {sched.num_examples},
// CHECK-SAME:      %[[WX:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index)
// CHECK-SAME:      sched.binding_access = array<i64: 1, 2>, sched.binding_bytes = array<i64: 8192, 8192>, sched.kernel, sched.scratch_bytes = 2112 : i64, sched.workgroup_count = array<i64: -8, 1, 1>
// CHECK-NEXT:    %[[SCRATCH:.+]] = memref.alloca() {alignment = 64 : i64} : memref<2112xi8>
// CHECK-NOT:     scf.forall
// CHECK:         %[[I:.+]] = affine.apply #[[$TIMES8]]()[%[[WX]]]
// CHECK-NEXT:    %[[ROWS:.+]] = affine.min #{{.+}}(%[[I]])[%[[N]]]
// CHECK:         %[[TILE:.+]] = memref.view %[[SCRATCH]][%{{.+}}][] : memref<2112xi8> to memref<8x32xf32>
// CHECK:         %[[PART:.+]] = memref.view %[[SCRATCH]][%{{.+}}][%[[ROWS]]] : memref<2112xi8> to memref<?x32xf32>
// CHECK:         %[[THREE:.+]] = memref.view %[[SCRATCH]][%{{.+}}][] : memref<2112xi8> to memref<3xf32>
// CHECK:         memref.subview %[[X]][%[[I]], 0] [%[[ROWS]], 32]
// CHECK:         memref.store %{{.+}}, %[[TILE]]
// CHECK:         memref.store %{{.+}}, %[[THREE]]
// CHECK:         memref.copy %[[PART]], %{{.+}}
// CHECK-NOT:     memref.alloc(
// CHECK-NOT:     memref.dealloc
// CHECK:         return

// A fixed 2-D grid: i = 16 x, j = 8 y.
// CHECK-LABEL: func.func private @grid2(
// CHECK-SAME:      %[[O:[a-z0-9]+]]: memref<64x32xf32>, %[[GX:[a-z0-9]+]]: index, %[[GY:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index)
// CHECK-SAME:      sched.binding_access = array<i64: 2>, sched.binding_bytes = array<i64: 8192>, sched.kernel, sched.scratch_bytes = 0 : i64
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %[[GI:.+]] = affine.apply #{{.+}}()[%[[GX]]]
// CHECK-NEXT:    %[[GJ:.+]] = affine.apply #[[$TIMES8]]()[%[[GY]]]
// CHECK-NEXT:    memref.store %{{.+}}, %[[O]][%[[GI]], %[[GJ]]]
// CHECK-NEXT:    return

// A kernel without a grid (one workgroup) still takes the three ids.
// CHECK-LABEL: func.func private @copy(
// CHECK-SAME:      %{{[a-z0-9]+}}: memref<4xf32>, %{{[a-z0-9]+}}: memref<4xf32>, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index)
// CHECK-SAME:      sched.binding_bytes = array<i64: 16, 16>, sched.kernel, sched.scratch_bytes = 0 : i64

// Buffers whose live intervals do not overlap share bytes (the offsets come
// from the arena planner's assignOffsets): %first and %second one after the
// other, the buffers of the two branches of an scf.if, a loop's temporary
// and what is allocated after the loop. %acc is live across the loop, so
// the loop's %tmp gets bytes of its own (offset 64 against 0), within the
// bytes %first no longer needs: 8192 in all, the size of the largest.
// CHECK-LABEL: func.func private @shared(
// CHECK-SAME:      sched.scratch_bytes = 8192 : i64
// CHECK-NEXT:    %[[S:.+]] = memref.alloca() {alignment = 64 : i64} : memref<8192xi8>
// CHECK:         %[[C0:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[S]][%[[C0]]][] : memref<8192xi8> to memref<64x32xf32>
// CHECK:         %[[C0B:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    memref.view %[[S]][%[[C0B]]][] : memref<8192xi8> to memref<64x32xf32>
// CHECK:         scf.if
// CHECK:           %[[C0T:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      memref.view %[[S]][%[[C0T]]][] : memref<8192xi8> to memref<16xf32>
// CHECK:         } else {
// CHECK:           %[[C0E:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:      memref.view %[[S]][%[[C0E]]][] : memref<8192xi8> to memref<16xf32>
// CHECK:         %[[OFFA:c0_[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[ACC:.+]] = memref.view %[[S]][%[[OFFA]]][] : memref<8192xi8> to memref<4xf32>
// CHECK:         scf.for
// CHECK:           %[[OFFT:.+]] = arith.constant 64 : index
// CHECK-NEXT:      memref.view %[[S]][%[[OFFT]]][] : memref<8192xi8> to memref<4xf32>

// Allocations of 0 bytes (an empty axis) are views of an alloca of 0 bytes.
// CHECK-LABEL: func.func private @empty(
// CHECK-SAME:      sched.scratch_bytes = 0 : i64
// CHECK-NEXT:    %[[E:.+]] = memref.alloca() {alignment = 64 : i64} : memref<0xi8>
// CHECK:         memref.view %[[E]][%{{.+}}][] : memref<0xi8> to memref<0xf32>

// Functions that are not kernels are left alone.
// CHECK-LABEL: func.func @not_a_kernel(%{{[a-z0-9]+}}: memref<4xf32>)
// CHECK-NEXT:    memref.alloc() : memref<4xf32>

#min8 = affine_map<(d0)[s0] -> (8, s0 - d0)>
func.func private @rows(%x: memref<64x32xf32>, %out: memref<64x32xf32>, %n: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  scf.forall (%i) = (0) to (%n) step (8) {
    %rows = affine.min #min8(%i)[%n]
    %tile = memref.alloc() {alignment = 64 : i64} : memref<8x32xf32>
    %part = memref.alloc(%rows) {alignment = 64 : i64} : memref<?x32xf32>
    %one = memref.alloc() : memref<3xf32>
    %xs = memref.subview %x[%i, 0] [%rows, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    %os = memref.subview %out[%i, 0] [%rows, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %xs, %part : memref<?x32xf32, strided<[32, 1], offset: ?>> to memref<?x32xf32>
    memref.store %cst, %tile[%c0, %c0] : memref<8x32xf32>
    memref.store %cst, %one[%c0] : memref<3xf32>
    memref.copy %part, %os : memref<?x32xf32> to memref<?x32xf32, strided<[32, 1], offset: ?>>
    memref.dealloc %part : memref<?x32xf32>
  }
  return
}

func.func private @grid2(%out: memref<64x32xf32>) attributes {sched.kernel, sched.workgroup_count = array<i64: 4, 4, 1>} {
  %cst = arith.constant 1.0 : f32
  scf.forall (%i, %j) = (0, 0) to (64, 32) step (16, 8) {
    memref.store %cst, %out[%i, %j] : memref<64x32xf32>
  }
  return
}

func.func private @copy(%a: memref<4xf32>, %b: memref<4xf32>) attributes {sched.kernel, sched.workgroup_count = array<i64: 1, 1, 1>} {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

func.func private @shared(%x: memref<64x32xf32>, %out: memref<64x32xf32>, %o4: memref<4xf32>, %n: index) attributes {sched.kernel, sched.workgroup_count = array<i64: 1, 1, 1>} {
  %c0 = arith.constant 0 : index
  %flag = arith.cmpi slt, %n, %c0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 0.0 : f32
  %first = memref.alloc() : memref<64x32xf32>
  memref.copy %x, %first : memref<64x32xf32> to memref<64x32xf32>
  memref.copy %first, %out : memref<64x32xf32> to memref<64x32xf32>
  %second = memref.alloc() : memref<64x32xf32>
  memref.copy %out, %second : memref<64x32xf32> to memref<64x32xf32>
  memref.copy %second, %out : memref<64x32xf32> to memref<64x32xf32>
  scf.if %flag {
    %t = memref.alloc() : memref<16xf32>
    memref.store %cst, %t[%c0] : memref<16xf32>
  } else {
    %e = memref.alloc() : memref<16xf32>
    memref.store %cst, %e[%c0] : memref<16xf32>
  }
  %acc = memref.alloc() : memref<4xf32>
  memref.copy %o4, %acc : memref<4xf32> to memref<4xf32>
  scf.for %k = %c0 to %c4 step %c1 {
    %tmp = memref.alloc() : memref<4xf32>
    memref.copy %acc, %tmp : memref<4xf32> to memref<4xf32>
    memref.copy %tmp, %acc : memref<4xf32> to memref<4xf32>
  }
  memref.copy %acc, %o4 : memref<4xf32> to memref<4xf32>
  %after = memref.alloc() : memref<64x32xf32>
  memref.copy %x, %after : memref<64x32xf32> to memref<64x32xf32>
  memref.copy %after, %out : memref<64x32xf32> to memref<64x32xf32>
  return
}

func.func private @empty(%out: memref<4xf32>) attributes {sched.kernel, sched.workgroup_count = array<i64: 1, 1, 1>} {
  %z = memref.alloc() : memref<0xf32>
  memref.copy %z, %z : memref<0xf32> to memref<0xf32>
  return
}

func.func @not_a_kernel(%a: memref<4xf32>) {
  %m = memref.alloc() : memref<4xf32>
  memref.copy %a, %m : memref<4xf32> to memref<4xf32>
  return
}
