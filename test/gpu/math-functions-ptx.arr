# REQUIRES: ptxas
# RUN: vmapc-opt %s --arr-compile-gpu-pipeline=serialize=false | FileCheck %s --check-prefix=NVVM
# RUN: vmapc-opt %s --arr-compile-gpu-pipeline > %t.mlir
# RUN: %python %S/assemble-all.py %t.mlir %ptxas sm_90 %t.d | FileCheck %s
# RUN: cat %t.d/*.ptx | FileCheck %s --check-prefix=PTX
#
# On the GPU the math functions are libdevice's (--arr-expand-math is the
# CPU's): sin, cos, log1p, expm1 and erf call __nv_sinf, ... ; floor, ceil
# and round (half to even) are __nv_floorf, __nv_ceilf and __nv_rintf, one
# cvt instruction each; softplus calls __nv_expf and __nv_log1pf. The one
# fused kernel assembles for sm_90 without spills.

fn f(x: f32[4]) -> (f32[4], f32[4], f32[4], f32[4], f32[4], f32[4], f32[4],
                    f32[4], f32[4]) {
  return (sin(x), cos(x), log1p(x), expm1(x), erf(x), floor(x), ceil(x),
          round(x), softplus(x));
}
export run = vmap(f, batch=64);

# NVVM:      llvm.func @vmapc_kernel_run_dispatch_0(
# NVVM-DAG:  llvm.call @__nv_sinf(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_cosf(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_log1pf(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_expm1f(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_erff(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_floorf(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_ceilf(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_rintf(%{{.+}}) : (f32) -> f32
# NVVM-DAG:  llvm.call @__nv_expf(%{{.+}}) : (f32) -> f32
# NVVM:      llvm.return

# CHECK:     vmapc_kernel_run_dispatch_0: ok, {{[0-9]+}} registers, 0 bytes spilled
# CHECK-NOT: ok
# PTX-DAG:   cvt.rmi.f32.f32
# PTX-DAG:   cvt.rpi.f32.f32
# PTX-DAG:   cvt.rni.f32.f32
