// RUN: vmapc-opt %s -split-input-file --arr-double-buffer-carries | FileCheck %s
// RUN: vmapc-opt %s -split-input-file --arr-double-buffer-carries --arr-copies-to-dispatches --arr-plan-buffers --arr-verify-buffer-plan | FileCheck %s --check-prefix=PLAN

// The RNN's shape: each step reads the whole carry %h while it writes the
// next one into a temporary, then copies it back. Unrolled by two, the
// second half swaps %h and the temporary; no copy is left, and after the
// loop's (even) 20 steps the last one has written %h.

// CHECK-LABEL: func.func @rnn(
// CHECK:         %[[H:.+]] = memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK:         sched.dispatch @init() outs(%[[H]] : memref<16x8xf32>)
// CHECK:         %[[T:.+]] = memref.alloc() {{.*}} : memref<16x8xf32>
// CHECK:         scf.for %{{.+}} = %c0 to %c10 step %c1 {
// CHECK-NEXT:      sched.dispatch @step(%{{.+}}, %[[H]] : memref<8x8xf32>, memref<16x8xf32>) outs(%[[T]] : memref<16x8xf32>) scalars(%{{.+}})
// CHECK-NEXT:      sched.dispatch @step(%{{.+}}, %[[T]] : memref<8x8xf32>, memref<16x8xf32>) outs(%[[H]] : memref<16x8xf32>) scalars(%{{.+}})
// CHECK-NEXT:    }
// CHECK-NEXT:    sched.dispatch @finish(%[[H]] : memref<16x8xf32>) outs(%{{.+}} : memref<16x8xf32>)
// CHECK-NOT:     memref.copy

// The carry and the temporary are live over the loop as before (one point),
// so the arena is the same: the two 512-byte buffers and the weights.
// PLAN-LABEL: func.func @rnn(
// PLAN-SAME:     arr.plan = #arr.plan<arena_bytes = 1280, lower_bound = 1280,

func.func private @init(%h: memref<16x8xf32>) attributes {sched.kernel} {
  return
}
func.func private @step(%w: memref<8x8xf32>, %h: memref<16x8xf32>, %t: memref<16x8xf32>, %n: index {sched.num_examples}) attributes {sched.kernel} {
  return
}
func.func private @finish(%h: memref<16x8xf32>, %o: memref<16x8xf32>) attributes {sched.kernel} {
  return
}
func.func @rnn(%w: memref<8x8xf32>, %out: memref<16x8xf32> {arr.output, arr.staging}) attributes {arr.batch = 16 : i64, arr.in_axes = [unit], arr.out_axes = [0]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %n = sched.num_examples : index
  %w2 = memref.alloc() {alignment = 64 : i64} : memref<8x8xf32>
  %h = memref.alloc() {alignment = 64 : i64} : memref<16x8xf32>
  sched.dispatch @init() outs(%h : memref<16x8xf32>)
  scf.for %i = %c0 to %c20 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<16x8xf32>
    sched.dispatch @step(%w2, %h : memref<8x8xf32>, memref<16x8xf32>) outs(%t : memref<16x8xf32>) scalars(%n)
    memref.copy %t, %h : memref<16x8xf32> to memref<16x8xf32>
  }
  sched.dispatch @finish(%h : memref<16x8xf32>) outs(%out : memref<16x8xf32>)
  return
}

// -----

// An odd step count (5) and two carries: two double steps in the loop, the
// last step after it as it was (its copies become dispatches later). Each
// half binds the carries the other half wrote.

// CHECK-LABEL: func.func @two_carries(
// CHECK-DAG:     %[[A:.+]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-DAG:     %[[B:.+]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK-DAG:     %[[TA:.+]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-DAG:     %[[TB:.+]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK:         scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK-NEXT:      sched.dispatch @step2(%[[A]], %[[B]] : memref<4xf32>, memref<8xf32>) outs(%[[TA]], %[[TB]] : memref<4xf32>, memref<8xf32>)
// CHECK-NEXT:      sched.dispatch @step2(%[[TA]], %[[TB]] : memref<4xf32>, memref<8xf32>) outs(%[[A]], %[[B]] : memref<4xf32>, memref<8xf32>)
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LA:.+]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK-NEXT:    %[[LB:.+]] = memref.alloc() {{.*}} : memref<8xf32>
// CHECK-NEXT:    sched.dispatch @step2(%[[A]], %[[B]] : memref<4xf32>, memref<8xf32>) outs(%[[LA]], %[[LB]] : memref<4xf32>, memref<8xf32>)
// CHECK-NEXT:    memref.copy %[[LA]], %[[A]]
// CHECK-NEXT:    memref.copy %[[LB]], %[[B]]

// PLAN-LABEL: func.func @two_carries(
// PLAN-NOT:      memref.copy
// PLAN:          sched.dispatch @two_carries_copy_0
// PLAN:          sched.dispatch @two_carries_copy_1

func.func private @init2(%a: memref<4xf32>, %b: memref<8xf32>) attributes {sched.kernel} {
  return
}
func.func private @step2(%a: memref<4xf32>, %b: memref<8xf32>, %ta: memref<4xf32>, %tb: memref<8xf32>) attributes {sched.kernel} {
  return
}
func.func private @finish2(%a: memref<4xf32>, %b: memref<8xf32>, %o: memref<16x8xf32>) attributes {sched.kernel} {
  return
}
func.func @two_carries(%out: memref<16x8xf32> {arr.output, arr.staging}) attributes {arr.batch = 16 : i64, arr.in_axes = [], arr.out_axes = [0]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %a = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
  sched.dispatch @init2() outs(%a, %b : memref<4xf32>, memref<8xf32>)
  scf.for %i = %c0 to %c5 step %c1 {
    %ta = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    %tb = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    sched.dispatch @step2(%a, %b : memref<4xf32>, memref<8xf32>) outs(%ta, %tb : memref<4xf32>, memref<8xf32>)
    memref.copy %ta, %a : memref<4xf32> to memref<4xf32>
    memref.copy %tb, %b : memref<8xf32> to memref<8xf32>
  }
  sched.dispatch @finish2(%a, %b : memref<4xf32>, memref<8xf32>) outs(%out : memref<16x8xf32>)
  return
}

// -----

// Left alone: a loop that uses its index (a schedule has no `2i + 1`); one
// step only; a copy whose source is not an allocation of the step; a copy
// into a buffer of the step; a copy followed by something else.

// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-6: memref.copy
// CHECK-NOT:     memref.copy

func.func private @stepi(%h: memref<4xf32>, %t: memref<4xf32>, %i: index) attributes {sched.kernel} {
  return
}
func.func private @use(%t: memref<4xf32>, %o: memref<4xf32>) attributes {sched.kernel} {
  return
}
func.func @kept(%out: memref<16x4xf32> {arr.output, arr.staging}) attributes {arr.batch = 16 : i64, arr.in_axes = [], arr.out_axes = [0]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %h = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  %u = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    sched.dispatch @stepi(%h : memref<4xf32>) outs(%t : memref<4xf32>) scalars(%i)
    memref.copy %t, %h : memref<4xf32> to memref<4xf32>
  }
  scf.for %i = %c0 to %c1 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    sched.dispatch @stepi(%h : memref<4xf32>) outs(%t : memref<4xf32>) scalars(%c0)
    memref.copy %t, %h : memref<4xf32> to memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    sched.dispatch @stepi(%h : memref<4xf32>) outs(%u : memref<4xf32>) scalars(%c0)
    memref.copy %u, %h : memref<4xf32> to memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    %t2 = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    sched.dispatch @stepi(%h : memref<4xf32>) outs(%t : memref<4xf32>) scalars(%c0)
    memref.copy %t, %h : memref<4xf32> to memref<4xf32>
    memref.copy %t2, %t : memref<4xf32> to memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    sched.dispatch @stepi(%h : memref<4xf32>) outs(%t : memref<4xf32>) scalars(%c0)
    memref.copy %t, %h : memref<4xf32> to memref<4xf32>
    sched.dispatch @use(%t : memref<4xf32>) outs(%u : memref<4xf32>)
  }
  return
}
