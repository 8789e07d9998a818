// RUN: vmapc-opt %s -split-input-file -verify-diagnostics

func.func @bad_broadcast(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operand dimension 0 of size 3 cannot broadcast to result dimension 1 of size 4}}
  %0 = arr.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_dims_count(%a: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{needs one dimension per operand dimension (1), got 2}}
  %0 = arr.broadcast_in_dim %a, dims = [0, 1] : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @not_a_permutation(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+2 {{'arr.transpose' op failed to infer returned types}}
  // expected-error @+1 {{perm is not a permutation}}
  %0 = arr.transpose %a, perm = [0, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @transpose_type(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'arr.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'arr.transpose' op failed to infer returned types}}
  %0 = arr.transpose %a, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{cannot reshape 6 elements into 7}}
  %0 = arr.reshape %a : (tensor<2x3xf32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @reduce_range(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{'arr.reduce_sum' op failed to infer returned types}}
  // expected-error @+1 {{reduced dimension 2 is out of range for rank 2}}
  %0 = arr.reduce_sum %a, dims = [2] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_type(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'arr.reduce_max' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'arr.reduce_max' op failed to infer returned types}}
  %0 = arr.reduce_max %a, dims = [1] : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @argmin_axis(%a: tensor<4xf32>) -> tensor<i32> {
  // expected-error @+2 {{'arr.argmin' op failed to infer returned types}}
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %0 = arr.argmin %a, axis = 1 : (tensor<4xf32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @dot_contract(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+2 {{'arr.dot_general' op failed to infer returned types}}
  // expected-error @+1 {{contracting dimensions 1 and 0 differ in size (3 vs 4)}}
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @dot_result(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<5x2xf32> {
  // expected-error @+2 {{'arr.dot_general' op inferred type(s) 'tensor<2x5xf32>' are incompatible with return type(s) of operation 'tensor<5x2xf32>'}}
  // expected-error @+1 {{'arr.dot_general' op failed to infer returned types}}
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}

// -----

func.func @add_types(%a: tensor<3xf32>, %b: tensor<3xi32>) -> tensor<3xf32> {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "arr.add"(%a, %b) : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @exp_int(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{must be ranked tensor of 32-bit float values}}
  %0 = arr.exp %a : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// The roundings are f32 only (round(x) of an i32 is x: nothing to emit).
func.func @round_int(%a: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{must be ranked tensor of 32-bit float values}}
  %0 = arr.round %a : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func private @g(%x: tensor<3xf32>) -> tensor<f32>

func.func @vmap_operand_type(%x: tensor<3x7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{operand 0 has type 'tensor<3x7xf32>', expected 'tensor<7x3xf32>'}}
  %r = arr.vmap_call @g(%x) {in_axes = [0], out_axes = [0], axis_size = 7 : i64} : (tensor<3x7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

func.func private @g(%x: tensor<3xf32>) -> tensor<f32>

func.func @vmap_axes_count(%x: tensor<3x7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{has 1 operands, 2 in_axes and a callee of 1 parameters}}
  %r = arr.vmap_call @g(%x) {in_axes = [1, 0], out_axes = [0], axis_size = 7 : i64} : (tensor<3x7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

func.func @vmap_unknown(%x: tensor<3x7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'nope' does not name a function}}
  %r = arr.vmap_call @nope(%x) {in_axes = [1], out_axes = [0], axis_size = 7 : i64} : (tensor<3x7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

func.func private @g(%x: tensor<3xf32>) -> tensor<f32>

func.func @vmap_out_axis(%x: tensor<3x7xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{result 0: axis 1 is out of range for rank 1}}
  %r = arr.vmap_call @g(%x) {in_axes = [1], out_axes = [1], axis_size = 7 : i64} : (tensor<3x7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}
