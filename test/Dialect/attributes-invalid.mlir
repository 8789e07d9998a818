// RUN: vmapc-opt %s -split-input-file -verify-diagnostics
// The arr dialect's discardable attributes (ArrDialect.td) and #arr.plan
// (ArrAttrs.td), verified wherever they appear.

// expected-error @+1 {{'func.func' op 'arr.batch' must be an integer in [0, 2147483647]}}
func.func @negative_batch(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.batch = -1 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'arr.batch' marks an entry point: a public func.func with a body}}
func.func private @private_entry(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.batch = 4 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'arr.batch' marks an entry point: a public func.func with a body}}
func.func @declared_entry(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.batch = 4 : i64}

// -----

// expected-error @+1 {{'func.func' op 'arr.in_axes' must be an array of non-negative integers or unit (none)}}
func.func @negative_axis(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.batch = 4 : i64, arr.in_axes = [-1], arr.out_axes = [0]} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'arr.out_axes' must be an array of non-negative integers or unit (none)}}
func.func @axes_not_an_array(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.batch = 4 : i64, arr.in_axes = [0], arr.out_axes = 0 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'arr.plan' must be a #arr.plan<...> attribute}}
func.func @untyped_plan(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.batch = 4 : i64, arr.plan = {arena_bytes = 0 : i64}} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{in_place = -1 is outside [0, 2^32)}}
func.func @negative_count(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.plan = #arr.plan<arena_bytes = 0, lower_bound = 0, aligned_lower_bound = 0, naive_sum = 0, in_place = -1, buffers = 0, alignment = 64>} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op unknown arr attribute 'arr.bacth'}}
func.func @misspelt(%x: tensor<4xf32>) -> tensor<4xf32> attributes {arr.bacth = 4 : i64} {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'arr.name' must be a string}}
func.func @name_not_a_string(%x: tensor<4xf32> {arr.name = 3 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op 'arr.output' must be a unit attribute}}
func.func @output_not_unit(%x: memref<4xf32> {arr.output = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op unknown arr result attribute 'arr.arena'}}
func.func @arena_result(%x: tensor<4xf32>) -> (tensor<4xf32> {arr.arena}) {
  return %x : tensor<4xf32>
}
