# REQUIRES: ptxas
# RUN: vmapc-opt %s --arr-compile-gpu-pipeline > %t.mlir
# RUN: %python %S/extract-ptx.py %t.mlir vmapc_kernels > %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas -arch=sm_90 -o %t.cubin %t.ptx
# RUN: test -s %t.cubin
#
# A literal array is a constant global of the host module; the kernel that
# adds it reads a copy in the GPU module: a device global (not visible
# outside the module) with the same bytes, 1.0 to 6.0 as little-endian f32,
# read through the non-coherent (read-only) cache.

# CHECK:      .global .align 64 .b8 __constant_2x3xf32[24] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64, 0, 0, 160, 64, 0, 0, 192, 64};
# CHECK-LABEL: .visible .entry vmapc_kernel_constants_dispatch_1(
# CHECK:      mov.b64 %[[BASE:rd[0-9]+]], __constant_2x3xf32;
# CHECK:      ld.global.nc.b32 %{{r[0-9]+}}, [%{{rd[0-9]+}}];
# CHECK:      ret;

fn literal(x: i32[10]) -> (i32[10], f32[2, 3]) {
  return (x + iota(10) * 3, f32(reshape(x[0:2], (2, 1))) * 0.5 + [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
}
export constants = vmap(literal, batch=8);
