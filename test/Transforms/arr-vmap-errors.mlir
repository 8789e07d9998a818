// RUN: vmapc-opt %s --arr-vmap -split-input-file -verify-diagnostics

// An op without a batching rule is an error naming the op and the vmap.
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'arr_test.opaque' op has no batching rule}}
  %y = arr_test.opaque %x : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @g(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  // expected-note @+1 {{batched by this vmap}}
  %r = arr.vmap_call @f(%x) {in_axes = [0], out_axes = [0], axis_size = 4 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// The same op on unbatched values is fine: it is cloned.
func.func private @f(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %y = arr_test.opaque %c : (tensor<3xf32>) -> tensor<3xf32>
  %z = arr.add %x, %y : tensor<3xf32>
  return %z : tensor<3xf32>
}
func.func @g(%x: tensor<4x3xf32>, %c: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = arr.vmap_call @f(%x, %c) {in_axes = [0, unit], out_axes = [0], axis_size = 4 : i64} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// out_axes none for a result that depends on a mapped operand.
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = arr.exp %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @g(%x: tensor<4x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{out_axes is none for result 0, but it depends on a mapped operand; give it an axis (none is only for a result that is the same for every example)}}
  %r = arr.vmap_call @f(%x) {in_axes = [0], out_axes = [unit], axis_size = 4 : i64} : (tensor<4x3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Recursion has no batched form.
// expected-error @below {{'func.func' op is recursive; vmap needs a call tree}}
func.func private @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = call @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
func.func @g(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = arr.vmap_call @f(%x) {in_axes = [0], out_axes = [0], axis_size = 4 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// Every per-example value fits the size limits; batched over 65536 examples
// one does not: an error at the op that makes it, with the vmap.
func.func private @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{batched over 65536 examples, this value has type 'tensor<65536x65536x65536x65536xf32>', past the size limits: it needs 2^62 bytes or more (every dimension is at most 2147483647 and every array holds fewer than 2^62 bytes)}}
  %b = arr.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<65536x65536x65536xf32>
  %s = arr.reduce_sum %b, dims = [0, 1, 2] : (tensor<65536x65536x65536xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func @e(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  // expected-note @+1 {{batched by this vmap}}
  %0 = arr.vmap_call @f(%x) {axis_size = 65536 : i64, in_axes = [0], out_axes = [0]} : (tensor<65536xf32>) -> tensor<65536xf32>
  return %0 : tensor<65536xf32>
}
