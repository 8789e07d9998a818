// RUN: vmapc-opt %s -split-input-file --arr-hoist-per-call | FileCheck %s
// RUN: vmapc-opt %s -split-input-file --arr-hoist-per-call --arr-plan-buffers --arr-verify-buffer-plan | FileCheck %s --check-prefix=PLAN

// The kNN's shape: the references' transpose reads only the unmapped
// `refs`, so it runs once per call; the distances read the mapped queries.
// A second dispatch that reads only the transpose (a chain of invariants)
// runs once per call too.

// CHECK-LABEL: func.func @knn(
// CHECK:         sched.dispatch @transpose(%{{.+}} : memref<8x4xf32>) outs(%[[T:.+]] : memref<4x8xf32>) {sched.once_per_call}
// CHECK:         sched.dispatch @scale(%[[T]] : memref<4x8xf32>) outs(%[[S:.+]] : memref<4x8xf32>) {sched.once_per_call}
// CHECK:         sched.dispatch @dist(%{{.+}}, %[[S]] : memref<16x4xf32>, memref<4x8xf32>) outs(%{{.+}} : memref<16x8xf32>) scalars(%{{.+}}){{$}}
// CHECK-NEXT:    sched.dispatch @last(%{{.+}} : memref<16x8xf32>) outs(%{{.+}} : memref<16xi32>) scalars(%{{.+}}){{$}}

// What the once-per-call dispatches write lives over the whole schedule
// (nothing later takes their bytes), and the checker proves the plan: the
// lower bound is the queries' slot (256 bytes), both invariants (128 each)
// and the distances (512) at once, 1024 bytes; without the marks the
// transpose would be dead by then (896).
// PLAN-LABEL: func.func @knn(
// PLAN-SAME:     arr.plan = #arr.plan<arena_bytes = 1024, lower_bound = 1024,

func.func private @transpose(%r: memref<8x4xf32>, %t: memref<4x8xf32>) attributes {sched.kernel} {
  return
}
func.func private @scale(%t: memref<4x8xf32>, %s: memref<4x8xf32>) attributes {sched.kernel} {
  return
}
func.func private @dist(%q: memref<16x4xf32>, %s: memref<4x8xf32>, %d: memref<16x8xf32>, %n: index {sched.num_examples}) attributes {sched.kernel} {
  return
}
func.func private @last(%d: memref<16x8xf32>, %o: memref<16xi32>, %n: index {sched.num_examples}) attributes {sched.kernel} {
  return
}
func.func @knn(%q: memref<16x4xf32> {arr.staging}, %refs: memref<8x4xf32>, %out: memref<16xi32> {arr.output, arr.staging}) attributes {arr.batch = 16 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
  %n = sched.num_examples : index
  %t = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  sched.dispatch @transpose(%refs : memref<8x4xf32>) outs(%t : memref<4x8xf32>)
  %s = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  sched.dispatch @scale(%t : memref<4x8xf32>) outs(%s : memref<4x8xf32>)
  %d = memref.alloc() {alignment = 64 : i64} : memref<16x8xf32>
  sched.dispatch @dist(%q, %s : memref<16x4xf32>, memref<4x8xf32>) outs(%d : memref<16x8xf32>) scalars(%n)
  sched.dispatch @last(%d : memref<16x8xf32>) outs(%out : memref<16xi32>) scalars(%n)
  return
}

// -----

// Not once per call: a dispatch that reads a mapped input; one that reads a
// buffer a per-chunk dispatch writes; one whose output another dispatch
// also writes; one that writes an output of the entry; one with scalars;
// one inside a loop; one reading a buffer something other than a dispatch
// uses (a view).

// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     sched.once_per_call
// CHECK:         return

func.func private @k1(%a: memref<4xf32>, %b: memref<4xf32>) attributes {sched.kernel} {
  return
}
func.func private @k1s(%a: memref<4xf32>, %b: memref<4xf32>, %i: index) attributes {sched.kernel} {
  return
}
func.func private @k2(%a: memref<2xf32>, %b: memref<4xf32>) attributes {sched.kernel} {
  return
}
func.func @kept(%x: memref<4xf32> {arr.staging}, %w: memref<4xf32>, %out: memref<4xf32> {arr.output, arr.staging}) attributes {arr.batch = 4 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
  %a = memref.alloc() : memref<4xf32>
  sched.dispatch @k1(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  %b = memref.alloc() : memref<4xf32>
  sched.dispatch @k1(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  %c = memref.alloc() : memref<4xf32>
  sched.dispatch @k1(%w : memref<4xf32>) outs(%c : memref<4xf32>)
  sched.dispatch @k1(%x : memref<4xf32>) outs(%c : memref<4xf32>)
  %c0 = arith.constant 0 : index
  %e = memref.alloc() : memref<4xf32>
  sched.dispatch @k1s(%w : memref<4xf32>) outs(%e : memref<4xf32>) scalars(%c0)
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %f = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c3 step %c1 {
    sched.dispatch @k1(%w : memref<4xf32>) outs(%f : memref<4xf32>)
  }
  %g = memref.alloc() : memref<8xi8>
  %gv = memref.view %g[%c0][] : memref<8xi8> to memref<2xf32>
  %h = memref.alloc() : memref<4xf32>
  sched.dispatch @k2(%gv : memref<2xf32>) outs(%h : memref<4xf32>)
  sched.dispatch @k1(%w : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
