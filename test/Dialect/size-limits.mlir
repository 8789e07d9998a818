// RUN: vmapc-opt %s -split-input-file -verify-diagnostics
// Every operand and result of an arr op is statically shaped, with
// dimensions of at most 2147483647 and fewer than 2^62 bytes
// (dialect/Limits.h): no size computed from arr IR can overflow.

func.func @too_many_bytes(%a: tensor<65536x65536x65536x65536xf32>) -> tensor<65536x65536x65536x65536xf32> {
  // expected-error @+1 {{'arr.exp' op operand #0 has type 'tensor<65536x65536x65536x65536xf32>', past the size limits: it needs 2^62 bytes or more (every dimension is at most 2147483647 and every array holds fewer than 2^62 bytes)}}
  %0 = arr.exp %a : tensor<65536x65536x65536x65536xf32>
  return %0 : tensor<65536x65536x65536x65536xf32>
}

// -----

func.func @dimension_too_large(%a: tensor<f32>) -> tensor<4294967296xf32> {
  // expected-error @+1 {{'arr.broadcast_in_dim' op result #0 has type 'tensor<4294967296xf32>', past the size limits: dimension 0 is 4294967296, more than 2147483647}}
  %0 = arr.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4294967296xf32>
  return %0 : tensor<4294967296xf32>
}

// -----

// An empty array's other dimensions are bounded too (its strides are).
func.func @empty_but_too_large(%a: tensor<f32>) -> tensor<0x2147483647x2147483647x2xf32> {
  // expected-error @+1 {{'arr.broadcast_in_dim' op result #0 has type 'tensor<0x2147483647x2147483647x2xf32>', past the size limits: it needs 2^62 bytes or more}}
  %0 = arr.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<0x2147483647x2147483647x2xf32>
  return %0 : tensor<0x2147483647x2147483647x2xf32>
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'arr.neg' op operand #0 has type 'tensor<?xf32>', past the size limits: its shape is not static}}
  %0 = arr.neg %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A zero dimension is legal (vmap with axis_size=0): 0 bytes.
func.func @empty(%a: tensor<0x8xf32>) -> tensor<0x8xf32> {
  %0 = arr.neg %a : tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// -----

func.func private @g(%x: tensor<f32>) -> tensor<f32>

func.func @axis_size_too_large(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'arr.vmap_call' op axis_size must be in [0, 2147483647]}}
  %0 = arr.vmap_call @g(%x) {axis_size = 4294967296 : i64, in_axes = [unit], out_axes = [unit]} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @trip_count_too_large(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'arr.for' op trip_count must be in [0, 2147483647]}}
  %r = arr.for 4294967296 iter_args(%a : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<f32>):
    arr.yield %x : tensor<f32>
  }
  return %r : tensor<f32>
}
