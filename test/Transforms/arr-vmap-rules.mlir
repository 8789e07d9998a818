// RUN: vmapc-opt %s --arr-vmap -split-input-file | FileCheck %s

// Batching rules of abs, sign, maximum, pow, select, convert, concat, slice,
// iota, arr.for and the math functions (sin, erf, floor, ...). Each case checks where the batch dimension goes and that
// an unbatched operand is read through arr.broadcast_in_dim (an indexing map after lowering), never
// copied.

// where(c, a, b) with the condition mapped on axis 1 and both arrays shared:
// the arrays are broadcast to the condition's batch dimension.
func.func private @sel(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arr.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @sel_entry(%c: tensor<4x8xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %r = arr.vmap_call @sel(%c, %a, %b) {in_axes = [1, unit, unit], out_axes = [0], axis_size = 8 : i64} : (tensor<4x8xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
// CHECK-LABEL: func.func private @sel_vmap_1_n_n_b8(
// CHECK-SAME:      %[[C:.+]]: tensor<4x8xi1>, %[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[AB:.+]] = arr.broadcast_in_dim %[[A]], dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[BB:.+]] = arr.broadcast_in_dim %[[B]], dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[R:.+]] = arr.select %[[C]], %[[AB]], %[[BB]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK-NEXT:    return %[[R]]
// CHECK-LABEL: func.func @sel_entry(
// CHECK:         arr.transpose %{{.+}}, perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>

// -----

// Elementwise ops with operands batched on different dimensions: the second
// is moved to the first one's batch dimension.
func.func private @mix(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xi32> {
  %m = arr.maximum %a, %b : tensor<3xf32>
  %p = arr.pow %m, %b : tensor<3xf32>
  %s = arr.sign %p : tensor<3xf32>
  %i = arr.convert %s : tensor<3xf32> -> tensor<3xi32>
  %n = arr.abs %i : tensor<3xi32>
  return %n : tensor<3xi32>
}
func.func @mix_entry(%a: tensor<5x3xf32>, %b: tensor<3x5xf32>) -> tensor<3x5xi32> {
  %r = arr.vmap_call @mix(%a, %b) {in_axes = [0, 1], out_axes = [1], axis_size = 5 : i64} : (tensor<5x3xf32>, tensor<3x5xf32>) -> tensor<3x5xi32>
  return %r : tensor<3x5xi32>
}
// CHECK-LABEL: func.func private @mix_vmap_0_1_b5(
// CHECK-SAME:      %[[A:.+]]: tensor<5x3xf32>, %[[B:.+]]: tensor<3x5xf32>) -> tensor<5x3xi32>
// CHECK:         %[[BT:.+]] = arr.transpose %[[B]], perm = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK:         %[[M:.+]] = arr.maximum %[[A]], %[[BT]] : tensor<5x3xf32>
// CHECK:         %[[P:.+]] = arr.pow %[[M]], %{{.+}} : tensor<5x3xf32>
// CHECK:         %[[S:.+]] = arr.sign %[[P]] : tensor<5x3xf32>
// CHECK:         %[[I:.+]] = arr.convert %[[S]] : tensor<5x3xf32> -> tensor<5x3xi32>
// CHECK:         arr.abs %[[I]] : tensor<5x3xi32>

// -----

// concat of a shared piece with a piece mapped on axis 1: the shared piece
// is broadcast to the batch dimension, the concatenated dimension moves
// past it.
func.func private @cat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %r = arr.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}
func.func @cat_entry(%a: tensor<2x3xf32>, %b: tensor<2x7x5xf32>) -> tensor<7x2x8xf32> {
  %r = arr.vmap_call @cat(%a, %b) {in_axes = [unit, 1], out_axes = [0], axis_size = 7 : i64} : (tensor<2x3xf32>, tensor<2x7x5xf32>) -> tensor<7x2x8xf32>
  return %r : tensor<7x2x8xf32>
}
// CHECK-LABEL: func.func private @cat_vmap_n_1_b7(
// CHECK-SAME:      %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x7x5xf32>) -> tensor<2x7x8xf32>
// CHECK-NEXT:    %[[AB:.+]] = arr.broadcast_in_dim %[[A]], dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x7x3xf32>
// CHECK-NEXT:    %[[R:.+]] = arr.concat %[[AB]], %[[B]] dim = 2 : (tensor<2x7x3xf32>, tensor<2x7x5xf32>) -> tensor<2x7x8xf32>
// CHECK-NEXT:    return %[[R]]

// -----

// A slice keeps the batch dimension where it is and takes all of it.
func.func private @sl(%a: tensor<6x4xf32>) -> tensor<3x4xf32> {
  %r = arr.slice %a, start = [5, 0], stride = [-2, 1] : (tensor<6x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func @sl_entry(%a: tensor<6x9x4xf32>) -> tensor<3x4x9xf32> {
  %r = arr.vmap_call @sl(%a) {in_axes = [1], out_axes = [2], axis_size = 9 : i64} : (tensor<6x9x4xf32>) -> tensor<3x4x9xf32>
  return %r : tensor<3x4x9xf32>
}
// CHECK-LABEL: func.func private @sl_vmap_1_b9(
// CHECK-NEXT:    arr.slice %{{.+}}, start = [5, 0, 0], stride = [-2, 1, 1] : (tensor<6x9x4xf32>) -> tensor<3x9x4xf32>
// CHECK-LABEL: func.func @sl_entry(
// CHECK:         arr.transpose %{{.+}}, perm = [0, 2, 1] : (tensor<3x9x4xf32>) -> tensor<3x4x9xf32>

// -----

// iota has no operands: it stays unbatched and is read through a map by
// the batched add.
func.func private @io(%a: tensor<4xi32>) -> tensor<4xi32> {
  %i = arr.iota dim = 0 : tensor<4xi32>
  %r = arr.add %a, %i : tensor<4xi32>
  return %r : tensor<4xi32>
}
func.func @io_entry(%a: tensor<2x4xi32>) -> tensor<2x4xi32> {
  %r = arr.vmap_call @io(%a) {in_axes = [0], out_axes = [0], axis_size = 2 : i64} : (tensor<2x4xi32>) -> tensor<2x4xi32>
  return %r : tensor<2x4xi32>
}
// CHECK-LABEL: func.func private @io_vmap_0_b2(
// CHECK-NEXT:    %[[I:.+]] = arr.iota dim = 0 : tensor<4xi32>
// CHECK-NEXT:    %[[IB:.+]] = arr.broadcast_in_dim %[[I]], dims = [1] : (tensor<4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:    arr.add %{{.+}}, %[[IB]] : tensor<2x4xi32>

// -----

// arr.for, JAX's scan rule. Carry %q reads the mapped const, so it is
// batched after one round; carry %p reads only %q, so it is batched on the
// second round; the counter %k never meets a mapped value and stays
// unbatched (its out_axes may be none). Batched carries start as broadcasts
// of their unbatched inits at dimension 0; the const mapped on axis 1 is moved
// to dimension 0 once, before the loop, not on every iteration.
func.func private @loop(%w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  %z = arr.constant dense<0.0> : tensor<3xf32>
  %n = arr.constant dense<0.0> : tensor<f32>
  %r:3 = arr.for 5 consts(%w : tensor<3xf32>) iter_args(%z, %z, %n : tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %p: tensor<3xf32>, %q: tensor<3xf32>, %k: tensor<f32>):
    %p2 = arr.add %p, %q : tensor<3xf32>
    %q2 = arr.add %q, %wc : tensor<3xf32>
    %one = arr.constant dense<1.0> : tensor<f32>
    %k2 = arr.add %k, %one : tensor<f32>
    arr.yield %p2, %q2, %k2 : tensor<3xf32>, tensor<3xf32>, tensor<f32>
  }
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3xf32>, tensor<f32>
}
func.func @loop_entry(%w: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) {
  %r:3 = arr.vmap_call @loop(%w) {in_axes = [1], out_axes = [0, 0, unit], axis_size = 4 : i64} : (tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>
}
// CHECK-LABEL: func.func private @loop_vmap_1_b4(
// CHECK-SAME:      %[[W:.+]]: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>)
// CHECK-DAG:     %[[Z:.+]] = arr.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-DAG:     %[[N:.+]] = arr.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[WT:.+]] = arr.transpose %[[W]], perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
// CHECK:         %[[P0:.+]] = arr.broadcast_in_dim %[[Z]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[Q0:.+]] = arr.broadcast_in_dim %[[Z]], dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
// CHECK:         %[[R:.+]]:3 = arr.for 5 consts(%[[WT]] : tensor<4x3xf32>) iter_args(%[[P0]], %[[Q0]], %[[N]] : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>) {
// CHECK-NEXT:    ^bb0(%{{.+}}: tensor<i32>, %[[WC:.+]]: tensor<4x3xf32>, %[[P:.+]]: tensor<4x3xf32>, %[[Q:.+]]: tensor<4x3xf32>, %[[K:.+]]: tensor<f32>):
// CHECK-NEXT:      %[[P2:.+]] = arr.add %[[P]], %[[Q]] : tensor<4x3xf32>
// CHECK-NEXT:      %[[Q2:.+]] = arr.add %[[Q]], %[[WC]] : tensor<4x3xf32>
// CHECK-NEXT:      %[[ONE:.+]] = arr.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:      %[[K2:.+]] = arr.add %[[K]], %[[ONE]] : tensor<f32>
// CHECK-NEXT:      arr.yield %[[P2]], %[[Q2]], %[[K2]] : tensor<4x3xf32>, tensor<4x3xf32>, tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1, %[[R]]#2

// -----

// A loop whose carries are all unbatched, with a mapped value used only
// after it: the loop is cloned unbatched.
func.func private @pre(%x: tensor<2xf32>) -> tensor<2xf32> {
  %z = arr.constant dense<1.0> : tensor<2xf32>
  %r = arr.for 3 iter_args(%z : tensor<2xf32>) -> (tensor<2xf32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<2xf32>):
    %d = arr.add %c, %c : tensor<2xf32>
    arr.yield %d : tensor<2xf32>
  }
  %s = arr.mul %r, %x : tensor<2xf32>
  return %s : tensor<2xf32>
}
func.func @pre_entry(%x: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %r = arr.vmap_call @pre(%x) {in_axes = [0], out_axes = [0], axis_size = 6 : i64} : (tensor<6x2xf32>) -> tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}
// CHECK-LABEL: func.func private @pre_vmap_0_b6(
// CHECK:         %[[R:.+]] = arr.for 3 iter_args(%{{.+}} : tensor<2xf32>) -> (tensor<2xf32>)
// CHECK:         %[[RB:.+]] = arr.broadcast_in_dim %[[R]], dims = [1] : (tensor<2xf32>) -> tensor<6x2xf32>
// CHECK:         arr.mul %[[RB]], %{{.+}} : tensor<6x2xf32>

// -----

// A loop body calling a function and applying a nested vmap: both are
// batched inside the body.
func.func private @scale(%a: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %b = arr.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<3xf32>
  %r = arr.mul %a, %b : tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func private @body(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = arr.for 2 iter_args(%x : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<3xf32>):
    %f = arr.convert %i : tensor<i32> -> tensor<f32>
    %d = func.call @scale(%c, %f) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    arr.yield %d : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
func.func @body_entry(%x: tensor<3x5xf32>) -> tensor<5x3xf32> {
  %r = arr.vmap_call @body(%x) {in_axes = [1], out_axes = [0], axis_size = 5 : i64} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}
// CHECK-LABEL: func.func private @scale_vmap_0_n_b5(
// CHECK-SAME:      tensor<5x3xf32>, %{{.+}}: tensor<f32>) -> tensor<5x3xf32>
// CHECK-LABEL: func.func private @body_vmap_1_b5(
// CHECK-SAME:      %[[X:.+]]: tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK:         %[[XT:.+]] = arr.transpose %[[X]], perm = [1, 0]
// CHECK:         arr.for 2 iter_args(%[[XT]] : tensor<5x3xf32>) -> (tensor<5x3xf32>)
// CHECK:           call @scale_vmap_0_n_b5(%{{.+}}, %{{.+}}) : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x3xf32>

// -----

// The math functions are of the elementwise family: batched on axis 1, each
// keeps the batch dimension where it is; the entry moves it to out_axes.
func.func private @math(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.sin %x : tensor<4xf32>
  %1 = arr.erf %0 : tensor<4xf32>
  %2 = arr.floor %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func @math_entry(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %r = arr.vmap_call @math(%x) {in_axes = [1], out_axes = [0], axis_size = 8 : i64} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
// CHECK-LABEL: func.func private @math_vmap_1_b8(
// CHECK-SAME:      %[[X:.+]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT:    %[[S:.+]] = arr.sin %[[X]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[E:.+]] = arr.erf %[[S]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[F:.+]] = arr.floor %[[E]] : tensor<4x8xf32>
// CHECK-NEXT:    return %[[F]]
// CHECK-LABEL: func.func @math_entry(
// CHECK:         arr.transpose %{{.+}}, perm = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
