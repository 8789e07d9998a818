// RUN: vmapc-opt %s -split-input-file -verify-diagnostics

func.func @no_kernel(%x: memref<4xf32>) {
  // expected-error @+1 {{no kernel function named @missing}}
  sched.dispatch @missing(%x : memref<4xf32>) outs(%x : memref<4xf32>)
  return
}

// -----

func.func private @plain(%x: memref<4xf32>, %y: memref<4xf32>) {
  return
}
func.func @not_a_kernel(%x: memref<4xf32>) {
  // expected-error @+1 {{@plain is not marked 'sched.kernel'}}
  sched.dispatch @plain(%x : memref<4xf32>) outs(%x : memref<4xf32>)
  return
}

// -----

func.func private @k(%x: memref<4xf32>, %y: memref<8xf32>) attributes {sched.kernel} {
  return
}
func.func @wrong_bindings(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{operands do not match the arguments of @k}}
  sched.dispatch @k(%x : memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

func.func private @k(%x: memref<4xf32>, %y: memref<4xf32>) attributes {sched.kernel} {
  return
}
func.func @mixed(%x: tensor<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{bindings must be all tensors or all memrefs}}
  sched.dispatch @k(%x : tensor<4xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

func.func private @k(%x: memref<4xf32>, %y: memref<4xf32>) attributes {sched.kernel} {
  return
}
func.func @dynamic(%x: memref<?xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{bindings must be statically shaped tensors or memrefs}}
  sched.dispatch @k(%x : memref<?xf32>) outs(%y : memref<4xf32>)
  return
}

// -----

// expected-error @+1 {{kernel arguments are memrefs (bindings) or index scalars}}
func.func private @k(%x: tensor<4xf32>) attributes {sched.kernel} {
  return
}

// -----

// expected-error @+1 {{a kernel returns nothing}}
func.func private @k(%x: memref<4xf32>) -> f32 attributes {sched.kernel} {
  %c = arith.constant 0.0 : f32
  return %c : f32
}

// -----

// expected-error @+1 {{'sched.workgroup_count' must be 3 nonzero integers}}
func.func private @k(%x: memref<4xf32>) attributes {sched.kernel, sched.workgroup_count = array<i64: 0, 1, 1>} {
  return
}

// -----

// expected-error @+1 {{'sched.num_examples' must be a unit attribute on an index argument}}
func.func private @k(%x: memref<4xf32> {sched.num_examples}) attributes {sched.kernel} {
  return
}

// -----

// expected-error @+1 {{unknown sched attribute 'sched.bogus'}}
func.func private @k(%x: memref<4xf32>) attributes {sched.bogus} {
  return
}
