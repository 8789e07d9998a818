// RUN: vmapc-opt %s -split-input-file -verify-diagnostics

// The type rules of arr.gather and arr.scatter (dialect/TypeInference.cpp).

func.func @gather_axis(%x: tensor<10xf32>, %i: tensor<i32>) -> tensor<f32> {
  // expected-error @+2 {{'arr.gather' op failed to infer returned types}}
  // expected-error @+1 {{axis 1 is out of range [0, 1) (after the batch dimensions, inside the operand of rank 1)}}
  %0 = arr.gather %x[%i], axis = 1, batch_dims = 0, mode = clamp : (tensor<10xf32>, tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @gather_axis_in_batch(%x: tensor<4x10xf32>, %i: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{'arr.gather' op failed to infer returned types}}
  // expected-error @+1 {{axis 0 is out of range [1, 2)}}
  %0 = arr.gather %x[%i], axis = 0, batch_dims = 1, mode = clamp : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_batch_dims(%x: tensor<4x10xf32>, %i: tensor<i32>) -> tensor<4xf32> {
  // expected-error @+2 {{'arr.gather' op failed to infer returned types}}
  // expected-error @+1 {{batch_dims 1 is out of range for indices of rank 0}}
  %0 = arr.gather %x[%i], axis = 1, batch_dims = 1, mode = clamp : (tensor<4x10xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_batch_sizes(%x: tensor<4x10xf32>, %i: tensor<3xi32>) -> tensor<4xf32> {
  // expected-error @+2 {{'arr.gather' op failed to infer returned types}}
  // expected-error @+1 {{batch dimension 0 has size 4 in the operand and 3 in the indices}}
  %0 = arr.gather %x[%i], axis = 1, batch_dims = 1, mode = clamp : (tensor<4x10xf32>, tensor<3xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_type(%x: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{'arr.gather' op inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'arr.gather' op failed to infer returned types}}
  %0 = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @gather_float_indices(%x: tensor<10xf32>, %i: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer values}}
  %0 = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp : (tensor<10xf32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scatter_updates(%x: tensor<10x4xf32>, %i: tensor<3xi32>, %v: tensor<4x3xf32>) -> tensor<10x4xf32> {
  // expected-error @+2 {{'arr.scatter' op failed to infer returned types}}
  // expected-error @+1 {{updates have type 'tensor<4x3xf32>', expected 'tensor<3x4xf32>' (what a gather at these indices reads)}}
  %0 = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = set : (tensor<10x4xf32>, tensor<3xi32>, tensor<4x3xf32>) -> tensor<10x4xf32>
  return %0 : tensor<10x4xf32>
}

// -----

func.func @scatter_dtype(%x: tensor<10xf32>, %i: tensor<i32>, %v: tensor<i32>) -> tensor<10xf32> {
  // expected-error @+2 {{'arr.scatter' op failed to infer returned types}}
  // expected-error @+1 {{updates have type 'tensor<i32>', expected 'tensor<f32>'}}
  %0 = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = add : (tensor<10xf32>, tensor<i32>, tensor<i32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

func.func @scatter_kind(%x: tensor<10xf32>, %i: tensor<i32>, %v: tensor<f32>) -> tensor<10xf32> {
  // expected-error @+1 {{custom op 'arr.scatter' expected string or keyword containing one of the following enum values for attribute 'kind' [set, add, mul, min, max]}}
  %0 = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = sub : (tensor<10xf32>, tensor<i32>, tensor<f32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
