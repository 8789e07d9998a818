// RUN: vmapc-opt %s -split-input-file --arr-print-schedules -verify-diagnostics -o /dev/null

func.func private @k(%a: memref<4xf32>, %n: index {sched.num_examples}) attributes {sched.kernel} {
  return
}

func.func @e(%a: memref<4xf32> {arr.output}, %arena: memref<256xi8> {arr.arena}) attributes {arr.batch = 4 : i64} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{is not a schedule loop (0 to N step 1, no results)}}
  scf.for %i = %c1 to %c3 step %c1 {
  }
  return
}

// -----

func.func @e(%a: memref<4xf32> {arr.output}, %b: memref<4xf32>, %arena: memref<256xi8> {arr.arena}) attributes {arr.batch = 4 : i64} {
  // expected-error @+1 {{is outside every dispatch; a schedule is made of dispatches and loops only}}
  memref.copy %b, %a : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func private @k(%a: memref<4xf32>) attributes {sched.kernel} {
  return
}

func.func @e(%a: memref<4xf32> {arr.output}, %arena: memref<256xi8> {arr.arena}, %off: index) attributes {arr.batch = 4 : i64} {
  %m = memref.view %arena[%off][] : memref<256xi8> to memref<4xf32>
  // expected-error @+1 {{binds a buffer that is neither an argument nor a static view of the arena}}
  sched.dispatch @k() outs(%m : memref<4xf32>)
  return
}

// -----

func.func private @k(%a: memref<4xf32>, %s: index) attributes {sched.kernel} {
  return
}

func.func @e(%a: memref<4xf32> {arr.output}, %arena: memref<256xi8> {arr.arena}) attributes {arr.batch = 4 : i64} {
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{passes a scalar that is neither n nor a loop index}}
  sched.dispatch @k() outs(%a : memref<4xf32>) scalars(%c2)
  return
}
