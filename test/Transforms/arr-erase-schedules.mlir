// RUN: vmapc-opt %s --arr-erase-schedules | FileCheck %s

// Every function that is not a kernel goes (the entry, a helper, a
// declaration); kernels and other symbols (the entry's descriptor, a
// constant a kernel reads) stay.
// CHECK-NOT:   func.func @e
// CHECK-NOT:   func.func private @helper
// CHECK-NOT:   func.func private @external
// CHECK:       memref.global "private" constant @table
// CHECK:       func.func private @k(%{{.+}}: memref<4xf32>) attributes {sched.kernel} {
// CHECK-NEXT:    memref.get_global @table
// CHECK-NEXT:    memref.copy
// CHECK-NEXT:    return
// CHECK:       llvm.mlir.global external constant @vmapc_entry_e_descriptor
// CHECK-NOT:   func.func @e
// CHECK-NOT:   func.func private @helper

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func private @k(%o: memref<4xf32>) attributes {sched.kernel} {
  %t = memref.get_global @table : memref<4xf32>
  memref.copy %t, %o : memref<4xf32> to memref<4xf32>
  return
}

func.func private @helper() {
  return
}

func.func private @external(memref<4xf32>)

func.func @e(%out: memref<4xf32> {arr.output}, %arena: memref<256xi8> {arr.arena}) attributes {arr.batch = 4 : i64} {
  sched.dispatch @k() outs(%out : memref<4xf32>)
  func.call @helper() : () -> ()
  return
}

llvm.mlir.global external constant @vmapc_entry_e_descriptor(dense<[4851296279508110678, 1, 4, 256, 0, 1, 4, 0]> : tensor<8xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<8 x i64>
