// RUN: vmapc-opt %s --arr-vmap -split-input-file | FileCheck %s

// Batching rules of arr.gather and arr.scatter (JAX's gather and scatter
// batching rules). Each case checks where the batch dimension goes and
// that an unbatched operand of a gather is read as it is, never broadcast
// to B copies.

// A batched index into a shared table (an embedding lookup): the gather
// reads the one table; the batch dimension is an index dimension.
func.func private @lookup(%table: tensor<100x8xf32>, %ids: tensor<5xi32>) -> tensor<5x8xf32> {
  %e = arr.gather %table[%ids], axis = 0, batch_dims = 0, mode = fill : (tensor<100x8xf32>, tensor<5xi32>) -> tensor<5x8xf32>
  return %e : tensor<5x8xf32>
}
func.func @lookup_entry(%table: tensor<100x8xf32>, %ids: tensor<5x16xi32>) -> tensor<16x5x8xf32> {
  %r = arr.vmap_call @lookup(%table, %ids) {in_axes = [unit, 1], out_axes = [0], axis_size = 16 : i64} : (tensor<100x8xf32>, tensor<5x16xi32>) -> tensor<16x5x8xf32>
  return %r : tensor<16x5x8xf32>
}
// CHECK-LABEL: func.func private @lookup_vmap_n_1_b16(
// CHECK-SAME:      %[[T:.+]]: tensor<100x8xf32>, %[[I:.+]]: tensor<5x16xi32>) -> tensor<5x16x8xf32>
// CHECK-NOT:     arr.broadcast_in_dim
// CHECK-NEXT:    %[[E:.+]] = arr.gather %[[T]][%[[I]]], axis = 0, batch_dims = 0, mode = fill : (tensor<100x8xf32>, tensor<5x16xi32>) -> tensor<5x16x8xf32>
// CHECK-NEXT:    return %[[E]]

// -----

// A batched operand with a shared index: each example's row, along the
// shifted axis; the batch dimension stays where it was.
func.func private @row(%x: tensor<10x4xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  %r = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp : (tensor<10x4xf32>, tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @row_entry(%x: tensor<10x6x4xf32>, %i: tensor<i32>) -> tensor<6x4xf32> {
  %r = arr.vmap_call @row(%x, %i) {in_axes = [1, unit], out_axes = [0], axis_size = 6 : i64} : (tensor<10x6x4xf32>, tensor<i32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
// CHECK-LABEL: func.func private @row_vmap_1_n_b6(
// CHECK-SAME:      %[[X:.+]]: tensor<10x6x4xf32>, %[[I:.+]]: tensor<i32>) -> tensor<6x4xf32>
// CHECK-NEXT:    %[[R:.+]] = arr.gather %[[X]][%[[I]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<10x6x4xf32>, tensor<i32>) -> tensor<6x4xf32>
// CHECK-NEXT:    return %[[R]]

// -----

// Both batched: a leading batch dimension shared by the operand and the
// indices (each example reads its own operand); the operand's batch
// dimension moves to 0 first.
func.func private @col(%x: tensor<10x4xf32>, %i: tensor<i32>) -> tensor<10xf32> {
  %c = arr.gather %x[%i], axis = 1, batch_dims = 0, mode = clamp : (tensor<10x4xf32>, tensor<i32>) -> tensor<10xf32>
  return %c : tensor<10xf32>
}
func.func @col_entry(%x: tensor<10x4x3xf32>, %i: tensor<3xi32>) -> tensor<3x10xf32> {
  %r = arr.vmap_call @col(%x, %i) {in_axes = [2, 0], out_axes = [0], axis_size = 3 : i64} : (tensor<10x4x3xf32>, tensor<3xi32>) -> tensor<3x10xf32>
  return %r : tensor<3x10xf32>
}
// CHECK-LABEL: func.func private @col_vmap_2_0_b3(
// CHECK-SAME:      %[[X:.+]]: tensor<10x4x3xf32>, %[[I:.+]]: tensor<3xi32>) -> tensor<3x10xf32>
// CHECK-NEXT:    %[[T:.+]] = arr.transpose %[[X]], perm = [2, 0, 1] : (tensor<10x4x3xf32>) -> tensor<3x10x4xf32>
// CHECK-NEXT:    %[[C:.+]] = arr.gather %[[T]][%[[I]]], axis = 2, batch_dims = 1, mode = clamp : (tensor<3x10x4xf32>, tensor<3xi32>) -> tensor<3x10xf32>
// CHECK-NEXT:    return %[[C]]

// -----

// x.at[i].add(v) with x and i batched and v shared: the indices are
// batched, so all three get a leading batch dimension (v through a
// broadcast, an indexing map after lowering).
func.func private @upd(%x: tensor<10xf32>, %i: tensor<i32>, %v: tensor<f32>) -> tensor<10xf32> {
  %y = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = add : (tensor<10xf32>, tensor<i32>, tensor<f32>) -> tensor<10xf32>
  return %y : tensor<10xf32>
}
func.func @upd_entry(%x: tensor<7x10xf32>, %i: tensor<7xi32>, %v: tensor<f32>) -> tensor<7x10xf32> {
  %r = arr.vmap_call @upd(%x, %i, %v) {in_axes = [0, 0, unit], out_axes = [0], axis_size = 7 : i64} : (tensor<7x10xf32>, tensor<7xi32>, tensor<f32>) -> tensor<7x10xf32>
  return %r : tensor<7x10xf32>
}
// CHECK-LABEL: func.func private @upd_vmap_0_0_n_b7(
// CHECK-SAME:      %[[X:.+]]: tensor<7x10xf32>, %[[I:.+]]: tensor<7xi32>, %[[V:.+]]: tensor<f32>) -> tensor<7x10xf32>
// CHECK-NEXT:    %[[VB:.+]] = arr.broadcast_in_dim %[[V]], dims = [] : (tensor<f32>) -> tensor<7xf32>
// CHECK-NEXT:    %[[Y:.+]] = arr.scatter %[[X]][%[[I]]], %[[VB]], axis = 1, batch_dims = 1, kind = add : (tensor<7x10xf32>, tensor<7xi32>, tensor<7xf32>) -> tensor<7x10xf32>
// CHECK-NEXT:    return %[[Y]]

// -----

// A shared index, batched updates into a shared operand: every example
// updates its own copy of the operand (broadcast, the scatter's
// destination), the batch dimension an ordinary dimension of both.
func.func private @put(%x: tensor<6x2xi32>, %i: tensor<3xi32>, %v: tensor<3x2xi32>) -> tensor<6x2xi32> {
  %y = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = max : (tensor<6x2xi32>, tensor<3xi32>, tensor<3x2xi32>) -> tensor<6x2xi32>
  return %y : tensor<6x2xi32>
}
func.func @put_entry(%x: tensor<6x2xi32>, %i: tensor<3xi32>, %v: tensor<3x2x4xi32>) -> tensor<4x6x2xi32> {
  %r = arr.vmap_call @put(%x, %i, %v) {in_axes = [unit, unit, 2], out_axes = [0], axis_size = 4 : i64} : (tensor<6x2xi32>, tensor<3xi32>, tensor<3x2x4xi32>) -> tensor<4x6x2xi32>
  return %r : tensor<4x6x2xi32>
}
// CHECK-LABEL: func.func private @put_vmap_n_n_2_b4(
// CHECK-SAME:      %[[X:.+]]: tensor<6x2xi32>, %[[I:.+]]: tensor<3xi32>, %[[V:.+]]: tensor<3x2x4xi32>) -> tensor<4x6x2xi32>
// CHECK-NEXT:    %[[XB:.+]] = arr.broadcast_in_dim %[[X]], dims = [1, 2] : (tensor<6x2xi32>) -> tensor<4x6x2xi32>
// CHECK-NEXT:    %[[VT:.+]] = arr.transpose %[[V]], perm = [2, 0, 1] : (tensor<3x2x4xi32>) -> tensor<4x3x2xi32>
// CHECK-NEXT:    %[[Y:.+]] = arr.scatter %[[XB]][%[[I]]], %[[VT]], axis = 1, batch_dims = 0, kind = max : (tensor<4x6x2xi32>, tensor<3xi32>, tensor<4x3x2xi32>) -> tensor<4x6x2xi32>
// CHECK-NEXT:    return %[[Y]]
