// RUN: vmapc-opt %s --arr-cpu-workgroups | FileCheck %s

// A grid of ceil(n / 8) workgroups of rows. The forall is replaced by its
// body for workgroup (x, y, z), three new index arguments: row i = 8 x.
// Scratch moves to 64-byte aligned allocas at the entry: the 8 x 32 tile
// (1024 bytes), the partial tile's rows (bounded by min(8, n - i): 1024
// bytes, viewed with the actual rows) and 3 floats (12 bytes, 64 with
// alignment): 2112 bytes. Its dealloc is erased. It reads x (access 1)
// and writes out (2).
// CHECK: #[[$TIMES8:.+]] = affine_map<()[s0] -> (s0 * 8)>
// CHECK-LABEL: func.func private @rows(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<64x32xf32>, %[[OUT:[a-z0-9]+]]: memref<64x32xf32>, %[[N:[a-z0-9]+]]: index {sched.num_examples},
// CHECK-SAME:      %[[WX:[a-z0-9]+]]: index, %{{[a-z0-9]+}}: index, %{{[a-z0-9]+}}: index)
// CHECK-SAME:      sched.binding_access = array<i64: 1, 2>, sched.binding_bytes = array<i64: 8192, 8192>, sched.kernel, sched.scratch_bytes = 2112 : i64, sched.workgroup_count = array<i64: -8, 1, 1>
// CHECK-NEXT:    %[[TILE:.+]] = memref.alloca() {alignment = 64 : i64} : memref<8x32xf32>
// CHECK-NEXT:    %[[BYTES:.+]] = memref.alloca() {alignment = 64 : i64} : memref<1024xi8>
// CHECK-NEXT:    %[[THREE:.+]] = memref.alloca() {alignment = 64 : i64} : memref<3xf32>
// CHECK-NOT:     scf.forall
// CHECK:         %[[I:.+]] = affine.apply #[[$TIMES8]]()[%[[WX]]]
// CHECK-NEXT:    %[[ROWS:.+]] = affine.min #{{.+}}(%[[I]])[%[[N]]]
// CHECK:         %[[PART:.+]] = memref.view %[[BYTES]][%{{.+}}][%[[ROWS]]] : memref<1024xi8> to memref<?x32xf32>
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

func.func @not_a_kernel(%a: memref<4xf32>) {
  %m = memref.alloc() : memref<4xf32>
  memref.copy %a, %m : memref<4xf32> to memref<4xf32>
  return
}
