// RUN: vmapc-opt %s --canonicalize --split-input-file | FileCheck %s

// A gather of an elementwise value gathers the operands instead: only the
// gathered elements are computed (-log_softmax(z)[y] reads z[y], not the
// whole normalised row).

// CHECK-LABEL: func.func @gather_of_elementwise
// CHECK-SAME: (%[[Z:.+]]: tensor<4x1000xf32>, %[[M:.+]]: tensor<4x1000xf32>, %[[Y:.+]]: tensor<4xi32>)
// CHECK-DAG: %[[ZY:.+]] = arr.gather %[[Z]][%[[Y]]], axis = 1, batch_dims = 1, mode = clamp : (tensor<4x1000xf32>, tensor<4xi32>) -> tensor<4xf32>
// CHECK-DAG: %[[MY:.+]] = arr.gather %[[M]][%[[Y]]], axis = 1, batch_dims = 1, mode = clamp : (tensor<4x1000xf32>, tensor<4xi32>) -> tensor<4xf32>
// CHECK: %[[D:.+]] = arr.sub %[[ZY]], %[[MY]] : tensor<4xf32>
// CHECK: %[[N:.+]] = arr.neg %[[D]] : tensor<4xf32>
// CHECK: return %[[N]]
func.func @gather_of_elementwise(%z: tensor<4x1000xf32>, %m: tensor<4x1000xf32>,
                                 %y: tensor<4xi32>) -> tensor<4xf32> {
  %d = arr.sub %z, %m : tensor<4x1000xf32>
  %n = arr.neg %d : tensor<4x1000xf32>
  %g = arr.gather %n[%y], axis = 1, batch_dims = 1, mode = clamp
         : (tensor<4x1000xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A broadcast that does not vary along the gathered axis is broadcast
// straight into the gather's shape; the keepdims reshape below it folds
// into the broadcast first.

// CHECK-LABEL: func.func @gather_of_broadcast
// CHECK-SAME: (%[[S:.+]]: tensor<4xf32>, %[[Y:.+]]: tensor<4x3xi32>)
// CHECK-NOT: arr.gather
// CHECK-NOT: arr.reshape
// CHECK: %[[B:.+]] = arr.broadcast_in_dim %[[S]], dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
// CHECK: return %[[B]]
func.func @gather_of_broadcast(%s: tensor<4xf32>, %y: tensor<4x3xi32>)
    -> tensor<4x3xf32> {
  %k = arr.reshape %s : (tensor<4xf32>) -> tensor<4x1xf32>
  %b = arr.broadcast_in_dim %k, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x1000xf32>
  %g = arr.gather %b[%y], axis = 1, batch_dims = 1, mode = clip
         : (tensor<4x1000xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}

// -----

// Dimensions after the axis move by the indices' rank: the broadcast
// dimension 2 of f32[4, 10, 8] is dimension 3 of the gather f32[4, 2, 3, 8].

// CHECK-LABEL: func.func @gather_of_broadcast_after_axis
// CHECK: arr.broadcast_in_dim %{{.+}}, dims = [3] : (tensor<8xf32>) -> tensor<4x2x3x8xf32>
func.func @gather_of_broadcast_after_axis(%s: tensor<8xf32>, %y: tensor<2x3xi32>)
    -> tensor<4x2x3x8xf32> {
  %b = arr.broadcast_in_dim %s, dims = [2] : (tensor<8xf32>) -> tensor<4x10x8xf32>
  %g = arr.gather %b[%y], axis = 1, batch_dims = 0, mode = clamp
         : (tensor<4x10x8xf32>, tensor<2x3xi32>) -> tensor<4x2x3x8xf32>
  return %g : tensor<4x2x3x8xf32>
}

// -----

// Not moved: fill mode (an out-of-range index reads NaN, not exp(NaN) of
// the operand's fill), a broadcast varying along the axis, and a gather
// reading more elements than the producer makes.

// CHECK-LABEL: func.func @kept
// CHECK: %[[E:.+]] = arr.exp
// CHECK: arr.gather %[[E]]{{.+}}mode = fill
// CHECK: %[[B:.+]] = arr.broadcast_in_dim
// CHECK: arr.gather %[[B]]{{.+}}mode = clamp
// CHECK: %[[N:.+]] = arr.neg
// CHECK: arr.gather %[[N]]{{.+}}mode = clamp : (tensor<4xf32>, tensor<8xi32>) -> tensor<8xf32>
func.func @kept(%x: tensor<4xf32>, %i: tensor<2xi32>, %many: tensor<8xi32>)
    -> (tensor<2xf32>, tensor<3x2xf32>, tensor<8xf32>) {
  %e = arr.exp %x : tensor<4xf32>
  %a = arr.gather %e[%i], axis = 0, batch_dims = 0, mode = fill
         : (tensor<4xf32>, tensor<2xi32>) -> tensor<2xf32>
  %b = arr.broadcast_in_dim %x, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
  %c = arr.gather %b[%i], axis = 1, batch_dims = 0, mode = clamp
         : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  %n = arr.neg %x : tensor<4xf32>
  %d = arr.gather %n[%many], axis = 0, batch_dims = 0, mode = clamp
         : (tensor<4xf32>, tensor<8xi32>) -> tensor<8xf32>
  return %a, %c, %d : tensor<2xf32>, tensor<3x2xf32>, tensor<8xf32>
}
