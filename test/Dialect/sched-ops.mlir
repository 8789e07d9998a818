// RUN: vmapc-opt %s | vmapc-opt | FileCheck %s

// A schedule on tensors: n, and a dispatch whose result is its init's new
// value.
// CHECK-LABEL: func.func @schedule(
// CHECK: %[[N:.+]] = sched.num_examples : index
// CHECK: %[[R:.+]] = sched.dispatch @k(%{{.+}} : tensor<4x8xf32>) outs(%{{.+}} : tensor<4xf32>) scalars(%[[N]]) -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @schedule(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %n = sched.num_examples : index
  %init = tensor.empty() : tensor<4xf32>
  %r = sched.dispatch @k(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) scalars(%n) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// The same on memrefs: no results.
// CHECK-LABEL: func.func @bufferized(
// CHECK: sched.dispatch @k(%{{.+}} : memref<4x8xf32>) outs(%{{.+}} : memref<4xf32>) scalars(%{{.+}})
// CHECK-NOT: ->
func.func @bufferized(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  %n = sched.num_examples : index
  sched.dispatch @k(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) scalars(%n)
  return
}

// A kernel: memref bindings, the number of examples, its grid.
// CHECK-LABEL: func.func private @k(
// CHECK-SAME: index {sched.num_examples}
// CHECK-SAME: attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>}
func.func private @k(%x: memref<4x8xf32>, %y: memref<4xf32>, %n: index {sched.num_examples})
    attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
  return
}

// -----

// A kernel declaration (no body) may carry sched.num_examples: the verifier
// reads the argument's type from the signature.
// CHECK-LABEL: func.func private @declared(memref<4xf32>, index {sched.num_examples})
func.func private @declared(memref<4xf32>, index {sched.num_examples})
