// RUN: vmapc-opt %s --arr-vmap -split-input-file | FileCheck %s
// RUN: vmapc-opt %s --arr-vmap --inline --symbol-dce --canonicalize -split-input-file | FileCheck %s --check-prefix=INLINED

// The kNN program of docs/design.md: a nested vmap (sqdist over references inside
// nearest, nearest over queries). The references are never copied per query:
// they reach the subtraction through a broadcast, and the batched function
// holds no loop over the batch calling the per-example function.

func.func private @sqdist(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<f32> {
  %d = arr.sub %a, %b : tensor<64xf32>
  %m = arr.mul %d, %d : tensor<64xf32>
  %s = arr.reduce_sum %m, dims = [0] : (tensor<64xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @nearest(%q: tensor<64xf32>, %refs: tensor<1000x64xf32>) -> tensor<i32> {
  %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 0], out_axes = [0], axis_size = 1000 : i64} : (tensor<64xf32>, tensor<1000x64xf32>) -> tensor<1000xf32>
  %i = arr.argmin %d, axis = 0 : (tensor<1000xf32>) -> tensor<i32>
  return %i : tensor<i32>
}
func.func @classify(%q: tensor<256x64xf32>, %refs: tensor<1000x64xf32>) -> tensor<256xi32> {
  %r = arr.vmap_call @nearest(%q, %refs) {in_axes = [0, unit], out_axes = [0], axis_size = 256 : i64} : (tensor<256x64xf32>, tensor<1000x64xf32>) -> tensor<256xi32>
  return %r : tensor<256xi32>
}

// The inner map: q is shared, refs mapped on 0.
// CHECK-LABEL: func.func private @sqdist_vmap_n_0_b1000(
// CHECK-SAME:      %[[Q:.+]]: tensor<64xf32>, %[[R:.+]]: tensor<1000x64xf32>) -> tensor<1000xf32>
// CHECK:         %[[QB:.+]] = arr.broadcast_in_dim %[[Q]], dims = [1] : (tensor<64xf32>) -> tensor<1000x64xf32>
// CHECK:         %[[D:.+]] = arr.sub %[[QB]], %[[R]] : tensor<1000x64xf32>
// CHECK:         %[[M:.+]] = arr.mul %[[D]], %[[D]]
// CHECK:         arr.reduce_sum %[[M]], dims = [1] : (tensor<1000x64xf32>) -> tensor<1000xf32>

// The inner map batched again by the outer one: q mapped on 0, refs shared.
// CHECK-LABEL: func.func private @sqdist_vmap_n_0_b1000_vmap_0_n_b256(
// CHECK-SAME:      %[[Q:.+]]: tensor<256x64xf32>, %[[R:.+]]: tensor<1000x64xf32>) -> tensor<256x1000xf32>
// CHECK:         arr.broadcast_in_dim %[[Q]], dims = [0, 2] : (tensor<256x64xf32>) -> tensor<256x1000x64xf32>
// CHECK:         arr.broadcast_in_dim %[[R]], dims = [1, 2] : (tensor<1000x64xf32>) -> tensor<256x1000x64xf32>
// CHECK:         arr.reduce_sum %{{.+}}, dims = [2] : (tensor<256x1000x64xf32>) -> tensor<256x1000xf32>

// CHECK-LABEL: func.func private @nearest_vmap_0_n_b256(
// CHECK:         %[[D:.+]] = call @sqdist_vmap_n_0_b1000_vmap_0_n_b256(
// CHECK:         arr.argmin %[[D]], axis = 1 : (tensor<256x1000xf32>) -> tensor<256xi32>

// CHECK-LABEL: func.func @classify(
// CHECK-NOT:     arr.vmap_call
// CHECK:         call @nearest_vmap_0_n_b256(
// CHECK-NOT:     call @nearest(

// After inlining, the entry is one straight-line schedule.
// INLINED-LABEL: func.func @classify(
// INLINED-SAME:      %[[Q:.+]]: tensor<256x64xf32>, %[[R:.+]]: tensor<1000x64xf32>
// INLINED-NEXT:    %[[QB:.+]] = arr.broadcast_in_dim %[[Q]], dims = [0, 2]
// INLINED-NEXT:    %[[RB:.+]] = arr.broadcast_in_dim %[[R]], dims = [1, 2]
// INLINED-NEXT:    %[[D:.+]] = arr.sub %[[QB]], %[[RB]] : tensor<256x1000x64xf32>
// INLINED-NEXT:    %[[M:.+]] = arr.mul %[[D]], %[[D]]
// INLINED-NEXT:    %[[S:.+]] = arr.reduce_sum %[[M]], dims = [2]
// INLINED-NEXT:    %[[I:.+]] = arr.argmin %[[S]], axis = 1
// INLINED-NEXT:    return %[[I]]
// INLINED-NOT:   func.func
// INLINED:       // -----

// -----

// `@` with one side unmapped: the weight matrix is not batched; its batch
// dimension becomes a free dimension of the mapped side (JAX's dot_general
// rule), so the contraction reads w as it is.
func.func private @layer(%x: tensor<64xf32>, %w: tensor<64x10xf32>) -> tensor<10xf32> {
  %y = arr.dot_general %x, %w, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<64xf32>, tensor<64x10xf32>) -> tensor<10xf32>
  %t = arr.tanh %y : tensor<10xf32>
  return %t : tensor<10xf32>
}
func.func @mlp(%x: tensor<32x64xf32>, %w: tensor<64x10xf32>) -> tensor<32x10xf32> {
  %r = arr.vmap_call @layer(%x, %w) {in_axes = [0, unit], out_axes = [0], axis_size = 32 : i64} : (tensor<32x64xf32>, tensor<64x10xf32>) -> tensor<32x10xf32>
  return %r : tensor<32x10xf32>
}
// CHECK-LABEL: func.func private @layer_vmap_0_n_b32(
// CHECK-SAME:      %[[X:.+]]: tensor<32x64xf32>, %[[W:.+]]: tensor<64x10xf32>
// CHECK-NOT:     broadcast_in_dim %[[W]]
// CHECK:         %[[Y:.+]] = arr.dot_general %[[X]], %[[W]], lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<32x64xf32>, tensor<64x10xf32>) -> tensor<32x10xf32>
// CHECK:         arr.tanh %[[Y]] : tensor<32x10xf32>

// -----

// Both sides mapped: a batch dimension pair (a batched matmul).
func.func private @mm(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %c = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}
func.func @bmm(%a: tensor<5x4x8xf32>, %b: tensor<8x5x3xf32>) -> tensor<4x5x3xf32> {
  %r = arr.vmap_call @mm(%a, %b) {in_axes = [0, 1], out_axes = [1], axis_size = 5 : i64} : (tensor<5x4x8xf32>, tensor<8x5x3xf32>) -> tensor<4x5x3xf32>
  return %r : tensor<4x5x3xf32>
}
// CHECK-LABEL: func.func private @mm_vmap_0_1_b5(
// CHECK-SAME:      %[[A:.+]]: tensor<5x4x8xf32>, %[[B:.+]]: tensor<8x5x3xf32>
// CHECK:         %[[BT:.+]] = arr.transpose %[[B]], perm = [1, 0, 2] : (tensor<8x5x3xf32>) -> tensor<5x8x3xf32>
// CHECK:         arr.dot_general %[[A]], %[[BT]], lhs_batch = [0], rhs_batch = [0], lhs_contract = [2], rhs_contract = [1] : (tensor<5x4x8xf32>, tensor<5x8x3xf32>) -> tensor<5x4x3xf32>
// The result's batch dimension moves to out_axes = 1.
// CHECK-LABEL: func.func @bmm(
// CHECK:         %[[C:.+]] = call @mm_vmap_0_1_b5(
// CHECK:         arr.transpose %[[C]], perm = [1, 0, 2] : (tensor<5x4x3xf32>) -> tensor<4x5x3xf32>

// -----

// Only the rhs mapped, on its contracting side's neighbour: the batch
// dimension is a free dimension of rhs, after lhs's free dimensions.
func.func private @mv(%a: tensor<4x8xf32>, %v: tensor<8xf32>) -> tensor<4xf32> {
  %c = arr.dot_general %a, %v, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
func.func @mv_batched(%a: tensor<4x8xf32>, %v: tensor<8x6xf32>) -> tensor<6x4xf32> {
  %r = arr.vmap_call @mv(%a, %v) {in_axes = [unit, 1], out_axes = [0], axis_size = 6 : i64} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
// CHECK-LABEL: func.func private @mv_vmap_n_1_b6(
// CHECK-SAME:      %[[A:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<8x6xf32>
// CHECK:         %[[C:.+]] = arr.dot_general %[[A]], %[[V]], lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK:         return %[[C]]
// CHECK-LABEL: func.func @mv_batched(
// CHECK:         arr.transpose %{{.+}}, perm = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>

// -----

// Reducers and shape ops move the batch dimension first; an elementwise op
// moves a batched operand to the first batched operand's dimension.
func.func private @f(%x: tensor<3x4xf32>, %y: tensor<4x3xf32>) -> tensor<4xi32> {
  %t = arr.transpose %x, perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = arr.add %t, %y : tensor<4x3xf32>
  %r = arr.reshape %s : (tensor<4x3xf32>) -> tensor<12xf32>
  %b = arr.broadcast_in_dim %r, dims = [1] : (tensor<12xf32>) -> tensor<2x12xf32>
  %m = arr.reduce_max %b, dims = [0] : (tensor<2x12xf32>) -> tensor<12xf32>
  %k = arr.reshape %m : (tensor<12xf32>) -> tensor<4x3xf32>
  %i = arr.argmax %k, axis = 1 : (tensor<4x3xf32>) -> tensor<4xi32>
  return %i : tensor<4xi32>
}
func.func @g(%x: tensor<3x7x4xf32>, %y: tensor<4x3x7xf32>) -> tensor<4x7xi32> {
  %r = arr.vmap_call @f(%x, %y) {in_axes = [1, 2], out_axes = [1], axis_size = 7 : i64} : (tensor<3x7x4xf32>, tensor<4x3x7xf32>) -> tensor<4x7xi32>
  return %r : tensor<4x7xi32>
}
// CHECK-LABEL: func.func private @f_vmap_1_2_b7(
// CHECK-SAME:      %[[X:.+]]: tensor<3x7x4xf32>, %[[Y:.+]]: tensor<4x3x7xf32>
// CHECK:         %[[T:.+]] = arr.transpose %[[X]], perm = [1, 2, 0] : (tensor<3x7x4xf32>) -> tensor<7x4x3xf32>
// CHECK:         %[[YT:.+]] = arr.transpose %[[Y]], perm = [2, 0, 1] : (tensor<4x3x7xf32>) -> tensor<7x4x3xf32>
// CHECK:         %[[S:.+]] = arr.add %[[T]], %[[YT]] : tensor<7x4x3xf32>
// CHECK:         %[[R:.+]] = arr.reshape %[[S]] : (tensor<7x4x3xf32>) -> tensor<7x12xf32>
// CHECK:         %[[B:.+]] = arr.broadcast_in_dim %[[R]], dims = [0, 2] : (tensor<7x12xf32>) -> tensor<7x2x12xf32>
// CHECK:         %[[M:.+]] = arr.reduce_max %[[B]], dims = [1] : (tensor<7x2x12xf32>) -> tensor<7x12xf32>
// CHECK:         %[[K:.+]] = arr.reshape %[[M]] : (tensor<7x12xf32>) -> tensor<7x4x3xf32>
// CHECK:         arr.argmax %[[K]], axis = 2 : (tensor<7x4x3xf32>) -> tensor<7x4xi32>

// -----

// A result that depends on no mapped operand is broadcast along the batch
// axis (JAX), and an unbatched op is cloned, not batched.
func.func private @h(%x: tensor<3xf32>, %c: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %e = arr.exp %c : tensor<3xf32>
  %s = arr.add %x, %e : tensor<3xf32>
  %t = arr.reduce_sum %e, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s, %t : tensor<3xf32>, tensor<f32>
}
func.func @h2(%x: tensor<5x3xf32>, %c: tensor<3xf32>) -> (tensor<5x3xf32>, tensor<5xf32>) {
  %r:2 = arr.vmap_call @h(%x, %c) {in_axes = [0, unit], out_axes = [0, 0], axis_size = 5 : i64} : (tensor<5x3xf32>, tensor<3xf32>) -> (tensor<5x3xf32>, tensor<5xf32>)
  return %r#0, %r#1 : tensor<5x3xf32>, tensor<5xf32>
}
// CHECK-LABEL: func.func private @h_vmap_0_n_b5(
// CHECK-SAME:      %[[X:.+]]: tensor<5x3xf32>, %[[C:.+]]: tensor<3xf32>) -> (tensor<5x3xf32>, tensor<f32>)
// CHECK:         %[[E:.+]] = arr.exp %[[C]] : tensor<3xf32>
// CHECK:         %[[EB:.+]] = arr.broadcast_in_dim %[[E]], dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
// CHECK:         %[[S:.+]] = arr.add %[[X]], %[[EB]] : tensor<5x3xf32>
// CHECK:         %[[T:.+]] = arr.reduce_sum %[[E]], dims = [0] : (tensor<3xf32>) -> tensor<f32>
// CHECK:         return %[[S]], %[[T]]
// CHECK-LABEL: func.func @h2(
// CHECK:         %[[R:.+]]:2 = call @h_vmap_0_n_b5(
// CHECK:         arr.broadcast_in_dim %[[R]]#1, dims = [] : (tensor<f32>) -> tensor<5xf32>

// -----

// One specialisation per batching signature, reused by every call with it.
func.func private @sq(%x: tensor<f32>) -> tensor<f32> {
  %m = arr.mul %x, %x : tensor<f32>
  return %m : tensor<f32>
}
func.func private @twice(%x: tensor<f32>) -> tensor<f32> {
  %a = call @sq(%x) : (tensor<f32>) -> tensor<f32>
  %b = call @sq(%a) : (tensor<f32>) -> tensor<f32>
  return %b : tensor<f32>
}
func.func @k(%x: tensor<9xf32>) -> tensor<9xf32> {
  %r = arr.vmap_call @twice(%x) {in_axes = [0], out_axes = [0], axis_size = 9 : i64} : (tensor<9xf32>) -> tensor<9xf32>
  return %r : tensor<9xf32>
}
// CHECK-LABEL: func.func private @sq_vmap_0_b9(
// CHECK-NOT:   func.func private @sq_vmap_0_b9(
// CHECK-LABEL: func.func private @twice_vmap_0_b9(
// CHECK:         %[[A:.+]] = call @sq_vmap_0_b9(
// CHECK:         call @sq_vmap_0_b9(%[[A]])
