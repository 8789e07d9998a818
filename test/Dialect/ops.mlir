// RUN: vmapc-opt %s | vmapc-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<3xi32>) -> tensor<4x8xi1> {
  // CHECK: arr.neg %{{.*}} : tensor<4x8xf32>
  %0 = arr.neg %a : tensor<4x8xf32>
  // CHECK: arr.exp
  %1 = arr.exp %0 : tensor<4x8xf32>
  // CHECK: arr.log
  %2 = arr.log %1 : tensor<4x8xf32>
  // CHECK: arr.tanh
  %3 = arr.tanh %2 : tensor<4x8xf32>
  // CHECK: arr.sqrt
  %4 = arr.sqrt %3 : tensor<4x8xf32>
  // CHECK: arr.add
  %5 = arr.add %4, %b : tensor<4x8xf32>
  // CHECK: arr.sub
  %6 = arr.sub %5, %b : tensor<4x8xf32>
  // CHECK: arr.mul
  %7 = arr.mul %6, %b : tensor<4x8xf32>
  // CHECK: arr.div
  %8 = arr.div %7, %b : tensor<4x8xf32>
  // CHECK: arr.div %{{.*}} : tensor<3xi32>
  %9 = arr.div %i, %i : tensor<3xi32>
  // CHECK: arr.cmp ge, %{{.*}}, %{{.*}} : tensor<4x8xf32> -> tensor<4x8xi1>
  %10 = arr.cmp ge, %8, %a : tensor<4x8xf32> -> tensor<4x8xi1>
  return %10 : tensor<4x8xi1>
}

// The elementwise math functions of f32.
// CHECK-LABEL: func.func @math_functions
func.func @math_functions(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: arr.sin %{{.*}} : tensor<4x8xf32>
  %0 = arr.sin %a : tensor<4x8xf32>
  // CHECK: arr.cos %{{.*}} : tensor<4x8xf32>
  %1 = arr.cos %0 : tensor<4x8xf32>
  // CHECK: arr.log1p %{{.*}} : tensor<4x8xf32>
  %2 = arr.log1p %1 : tensor<4x8xf32>
  // CHECK: arr.expm1 %{{.*}} : tensor<4x8xf32>
  %3 = arr.expm1 %2 : tensor<4x8xf32>
  // CHECK: arr.erf %{{.*}} : tensor<4x8xf32>
  %4 = arr.erf %3 : tensor<4x8xf32>
  // CHECK: arr.floor %{{.*}} : tensor<4x8xf32>
  %5 = arr.floor %4 : tensor<4x8xf32>
  // CHECK: arr.ceil %{{.*}} : tensor<4x8xf32>
  %6 = arr.ceil %5 : tensor<4x8xf32>
  // CHECK: arr.round %{{.*}} : tensor<4x8xf32>
  %7 = arr.round %6 : tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%a: tensor<8xf32>, %m: tensor<2x4xf32>) -> tensor<4x2xf32> {
  // CHECK: arr.constant dense<2.000000e+00> : tensor<f32>
  %c = arr.constant dense<2.0> : tensor<f32>
  // CHECK: arr.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
  %b = arr.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
  // CHECK: arr.reshape %{{.*}} : (tensor<8xf32>) -> tensor<2x4xf32>
  %r = arr.reshape %a : (tensor<8xf32>) -> tensor<2x4xf32>
  %s = arr.add %r, %b : tensor<2x4xf32>
  // CHECK: arr.transpose %{{.*}}, perm = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %t = arr.transpose %s, perm = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%a: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<2x4xf32>, tensor<2x4xi32>, tensor<3x4xi32>) {
  // CHECK: arr.reduce_sum %{{.*}}, dims = [0, 2] : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %0 = arr.reduce_sum %a, dims = [0, 2] : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: arr.reduce_max %{{.*}}, dims = [0, 1, 2]
  %1 = arr.reduce_max %a, dims = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: arr.reduce_min %{{.*}}, dims = [1]
  %2 = arr.reduce_min %a, dims = [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  // CHECK: arr.argmin %{{.*}}, axis = 1 : (tensor<2x3x4xf32>) -> tensor<2x4xi32>
  %3 = arr.argmin %a, axis = 1 : (tensor<2x3x4xf32>) -> tensor<2x4xi32>
  // CHECK: arr.argmax %{{.*}}, axis = 0
  %4 = arr.argmax %a, axis = 0 : (tensor<2x3x4xf32>) -> tensor<3x4xi32>
  return %0, %1, %2, %3, %4 : tensor<3xf32>, tensor<f32>, tensor<2x4xf32>, tensor<2x4xi32>, tensor<3x4xi32>
}

// CHECK-LABEL: func.func @contraction
func.func @contraction(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  // CHECK: arr.dot_general %{{.*}}, %{{.*}}, lhs_batch = [0], rhs_batch = [0], lhs_contract = [2], rhs_contract = [1]
  %0 = arr.dot_general %a, %b, lhs_batch = [0], rhs_batch = [0], lhs_contract = [2], rhs_contract = [1] : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

func.func private @g(%x: tensor<3xf32>) -> tensor<f32> {
  %s = arr.reduce_sum %x, dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func.func @vmapped
func.func @vmapped(%x: tensor<3x7xf32>) -> tensor<7xf32> {
  // CHECK: arr.vmap_call @g(%{{.*}}) {axis_size = 7 : i64, in_axes = [1], out_axes = [0]}
  %r = arr.vmap_call @g(%x) {in_axes = [1], out_axes = [0], axis_size = 7 : i64} : (tensor<3x7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}
