// RUN: vmapc-opt %s -split-input-file --arr-copies-to-dispatches -verify-diagnostics | FileCheck %s

// Each memref.copy left in an entry becomes a kernel of its own
// (@e_copy_N: the copy, its views rebuilt from whole-buffer bindings) and a
// dispatch binding the buffers the copy's operands view. A dispatch that
// binds a view (the output's second half) binds the viewed buffer instead
// and its kernel rebuilds the view; a constant global it reads becomes the
// kernel's own, not a binding.

// CHECK-LABEL: func.func private @k(
// CHECK-SAME:      %[[B:[a-z0-9]+]]: memref<4xf32>, %[[OUTK:[a-z0-9]+]]: memref<8xf32>) attributes {sched.kernel}
// CHECK-NEXT:    %[[T:.+]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT:    %[[HALF:.+]] = memref.subview %[[OUTK]][4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
// CHECK-NEXT:    memref.copy %[[B]], %[[HALF]]
// CHECK-NEXT:    return

// CHECK-LABEL: func.func private @e_copy_0(
// CHECK-SAME:      %[[SRC0:[a-z0-9]+]]: memref<8xf32>, %[[DST0:[a-z0-9]+]]: memref<4xf32>) attributes {sched.kernel}
// CHECK-NEXT:    %[[V:.+]] = memref.subview %[[SRC0]][0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
// CHECK-NEXT:    memref.copy %[[V]], %[[DST0]] : memref<4xf32, strided<[1]>> to memref<4xf32>
// CHECK-NEXT:    return

// CHECK-LABEL: func.func private @e_copy_1(
// CHECK-SAME:      %[[SRC1:[a-z0-9]+]]: memref<4xf32>, %[[DST1:[a-z0-9]+]]: memref<4xf32>) attributes {sched.kernel}
// CHECK-NEXT:    memref.copy %[[SRC1]], %[[DST1]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT:    return

// CHECK-LABEL: func.func @e(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<8xf32> {arr.staging}, %[[OUT:[a-z0-9]+]]: memref<8xf32> {arr.output})
// CHECK:         %[[A:.+]] = memref.alloc() : memref<4xf32>
// CHECK:         %[[A2:.+]] = memref.alloc() : memref<4xf32>
// CHECK-NOT:     memref.copy
// CHECK:         sched.dispatch @e_copy_0(%[[X]] : memref<8xf32>) outs(%[[A]] : memref<4xf32>)
// CHECK-NEXT:    sched.dispatch @e_copy_1(%[[A]] : memref<4xf32>) outs(%[[A2]] : memref<4xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         sched.dispatch @k(%[[A2]] : memref<4xf32>) outs(%[[OUT]] : memref<8xf32>)
// CHECK-NEXT:    return

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func private @k(%a: memref<4xf32>, %t: memref<4xf32>, %o: memref<4xf32, strided<[1], offset: 4>>) attributes {sched.kernel} {
  memref.copy %a, %o : memref<4xf32> to memref<4xf32, strided<[1], offset: 4>>
  return
}

func.func @e(%x: memref<8xf32> {arr.staging}, %out: memref<8xf32> {arr.output}) attributes {arr.batch = 8 : i64} {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %x0 = memref.subview %x[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  memref.copy %x0, %a : memref<4xf32, strided<[1]>> to memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  %t = memref.get_global @table : memref<4xf32>
  %o1 = memref.subview %out[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  sched.dispatch @k(%b, %t : memref<4xf32>, memref<4xf32>) outs(%o1 : memref<4xf32, strided<[1], offset: 4>>)
  return
}

// -----

// A dispatch that binds a view at a position the kernel cannot rebuild.
func.func private @k(%o: memref<4xf32, strided<[1], offset: ?>>) attributes {sched.kernel} {
  return
}

func.func @e(%out: memref<8xf32> {arr.output}, %i: index) attributes {arr.batch = 8 : i64} {
  %o = memref.subview %out[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  // expected-error @+1 {{binds a view with a non-constant operand}}
  sched.dispatch @k() outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  return
}

// -----

// Functions that are not entries (no arr.batch) keep their copies.
// CHECK-LABEL: func.func @helper(
// CHECK-NEXT:    memref.copy
// CHECK-NOT:   sched.dispatch
func.func @helper(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A copy through a view whose offset is a loop index: the copy kernel could
// not rebuild the view from its bindings.
func.func @e(%x: memref<4xf32> {arr.staging}, %out: memref<8xf32> {arr.output}) attributes {arr.batch = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %j = %c0 to %c2 step %c1 {
    %o = memref.subview %out[%j] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    // expected-error @+1 {{copies through a view with a non-constant operand}}
    memref.copy %x, %o : memref<4xf32> to memref<4xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// A copy into a buffer that the next dispatch overwrites without reading it
// is dead and erased; one into a buffer the dispatch reads is kept.
func.func private @fill(%x: memref<4xf32>, %o: memref<4xf32>) attributes {sched.kernel} {
  %t = bufferization.to_tensor %x restrict : memref<4xf32> to tensor<4xf32>
  bufferization.materialize_in_destination %t in restrict writable %o : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @dead_copy(
// CHECK-SAME:      %[[X:.+]]: memref<4xf32> {arr.staging}, %[[Y:.+]]: memref<4xf32> {arr.staging}, %[[OUT:.+]]: memref<4xf32> {arr.output})
// CHECK-NEXT:    sched.dispatch @fill(%[[X]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK-NEXT:    sched.dispatch @dead_copy_copy_0(%[[Y]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK-NEXT:    sched.dispatch @fill(%[[OUT]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK-NEXT:    return
func.func @dead_copy(%x: memref<4xf32> {arr.staging}, %y: memref<4xf32> {arr.staging}, %out: memref<4xf32> {arr.output}) attributes {arr.batch = 4 : i64} {
  memref.copy %y, %out : memref<4xf32> to memref<4xf32>
  sched.dispatch @fill(%x : memref<4xf32>) outs(%out : memref<4xf32>)
  memref.copy %y, %out : memref<4xf32> to memref<4xf32>
  sched.dispatch @fill(%out : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
