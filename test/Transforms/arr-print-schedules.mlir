// RUN: vmapc-opt %s --arr-print-schedules -o /dev/null | FileCheck %s
// RUN: vmapc-opt %s --arr-print-schedules=output=%t | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s < %t
// RUN: not vmapc-opt %s --arr-print-schedules=output=%t.missing/schedule.txt 2>&1 | FileCheck %s --check-prefix=FILE

// FILE: error: cannot write '{{.+}}.missing/schedule.txt':

// One line per dispatch: the kernel, its grid (ceil(n/8) for a kernel that
// tiles the batch by 8, ? before --arr-tile-workgroups has chosen one), its
// bindings (input k, output k, arena+offset) and scalars (n, i<depth> for a
// loop index); one line per loop, its body indented.
// CHECK:      entry rnn (batch 8):
// CHECK-NEXT:   dispatch prep grid(2, 1, 1) (input 1, arena+0)
// CHECK-NEXT:   loop 3
// CHECK-NEXT:     loop 4
// CHECK-NEXT:       dispatch step grid(ceil(n/8), 1, 1) (input 0, arena+0, output 0) scalars(n, i1)
// CHECK-NEXT:     dispatch step grid(ceil(n/8), 1, 1) (output 0, arena+0, input 0) scalars(n, i0)
// CHECK-NEXT:   dispatch untiled grid(?, ?, ?) (input 0, output 0)
// CHECK-NOT:  entry

// The program is left as it was.
// IR-LABEL: func.func @rnn(
// IR:         sched.dispatch @prep
// IR:         scf.for
// IR:           scf.for
// IR:             sched.dispatch @step

func.func private @prep(%w: memref<16x16xf32>, %u: memref<16x16xf32>) attributes {sched.kernel, sched.workgroup_count = array<i64: 2, 1, 1>} {
  return
}
func.func private @step(%h: memref<8x16xf32>, %u: memref<16x16xf32>, %o: memref<8x16xf32>, %n: index {sched.num_examples}, %i: index) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
  return
}
func.func private @untiled(%h: memref<8x16xf32>, %o: memref<8x16xf32>) attributes {sched.kernel} {
  return
}

func.func @rnn(%x: memref<8x16xf32> {arr.staging, arr.staging_offset = 1024 : i64}, %w: memref<16x16xf32>, %out: memref<8x16xf32> {arr.output, arr.staging, arr.staging_offset = 1536 : i64}, %arena: memref<2048xi8> {arr.arena}) attributes {arr.batch = 8 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %n = sched.num_examples : index
  %u = memref.view %arena[%c0][] : memref<2048xi8> to memref<16x16xf32>
  sched.dispatch @prep(%w : memref<16x16xf32>) outs(%u : memref<16x16xf32>)
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      sched.dispatch @step(%x, %u : memref<8x16xf32>, memref<16x16xf32>) outs(%out : memref<8x16xf32>) scalars(%n, %j)
    }
    sched.dispatch @step(%out, %u : memref<8x16xf32>, memref<16x16xf32>) outs(%x : memref<8x16xf32>) scalars(%n, %i)
  }
  sched.dispatch @untiled(%x : memref<8x16xf32>) outs(%out : memref<8x16xf32>)
  return
}
