// RUN: vmapc-opt %s --arr-gpu-workgroups | FileCheck %s

// A literal array of the program is a `memref.global` constant of the host
// module, read by the kernels with `memref.get_global`. Each global that a
// kernel reads is copied into the GPU module once, under its own name and
// with its value, so that the lowering makes it a device global; one that
// no kernel reads stays on the host only.
// The host keeps its globals, used or not.
// CHECK:       memref.global "private" constant @__constant_2x3xf32
// CHECK:       memref.global "private" constant @__constant_3xi32
// CHECK:       memref.global "private" constant @__constant_unused
// CHECK:       gpu.module @vmapc_kernels {
// CHECK-NEXT:    memref.global "private" constant @__constant_2x3xf32 : memref<2x3xf32> = dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> {alignment = 64 : i64}
// CHECK-NEXT:    memref.global "private" constant @__constant_3xi32 : memref<3xi32> = dense<[7, 8, 9]>
// CHECK-NEXT:    gpu.func @vmapc_kernel_add_rows(
// CHECK:           memref.get_global @__constant_2x3xf32 : memref<2x3xf32>
// CHECK:         gpu.func @vmapc_kernel_add_both(
// CHECK:           memref.get_global @__constant_2x3xf32 : memref<2x3xf32>
// CHECK-NEXT:      memref.get_global @__constant_3xi32 : memref<3xi32>
// CHECK-NOT:     memref.global

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

memref.global "private" constant @__constant_2x3xf32 : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> {alignment = 64 : i64}
memref.global "private" constant @__constant_3xi32 : memref<3xi32> = dense<[7, 8, 9]>
memref.global "private" constant @__constant_unused : memref<3xi32> = dense<[1, 2, 3]>

func.func private @add_rows(%x: memref<2x3xf32>, %out: memref<2x3xf32>) attributes {sched.kernel} {
  %c = memref.get_global @__constant_2x3xf32 : memref<2x3xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %c : memref<2x3xf32>, memref<2x3xf32>) outs(%out : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

func.func private @add_both(%x: memref<2x3xf32>, %out: memref<2x3xi32>) attributes {sched.kernel} {
  %c = memref.get_global @__constant_2x3xf32 : memref<2x3xf32>
  %k = memref.get_global @__constant_3xi32 : memref<3xi32>
  linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %c, %k : memref<2x3xf32>, memref<2x3xf32>, memref<3xi32>) outs(%out : memref<2x3xi32>) {
  ^bb0(%a: f32, %b: f32, %i: i32, %o: i32):
    %s = arith.addf %a, %b : f32
    %t = arith.fptosi %s : f32 to i32
    %u = arith.addi %t, %i : i32
    linalg.yield %u : i32
  }
  return
}
