# REQUIRES: ptxas
# RUN: vmapc-opt %s --arr-compile-gpu-pipeline > %t.mlir
# RUN: %python %S/assemble-all.py %t.mlir %ptxas sm_90 %t.d | FileCheck %s
# RUN: cat %t.d/*.ptx | FileCheck %s --check-prefix=PTX
#
# pow, sign, abs, where, maximum/minimum, casts, reversed and strided
# slices and concat lower to kernels that assemble for sm_90 without spills:
# the schedule's five dispatches.

fn f(x: f32[4], w: f32[4, 4], k: i32) -> (f32[6], i32) {
  let h = tanh(x @ w) ** 2.0;
  let c = concat((h[::-1], h[1:3]), axis=0);
  let s = where(c > 0.1, sign(c), abs(c));
  return (maximum(s, minimum(c, 0.5)), i32(sum(c)) + k);
}
export run = vmap(f, in_axes=(0, none, 0), batch=64);

# CHECK-COUNT-5: vmapc_kernel_run_dispatch_{{[0-9]}}: ok, {{[0-9]+}} registers, 0 bytes spilled
# CHECK-NOT:     ok
# The f32 -> i32 cast truncates toward zero after clamping to the i32
# range (-2^31 = 0fCF000000, 2^31 - 128 = 0f4EFFFFFF); maximum/minimum
# propagate NaN (JAX's lax.max/min).
# PTX-DAG:       max.NaN.f32 {{.+}}, 0fCF000000;
# PTX-DAG:       min.NaN.f32 {{.+}}, 0f4EFFFFFF;
# PTX-DAG:       cvt.rzi.s32.f32
# PTX-DAG:       min.NaN.f32 {{.+}}, 0f3F000000;
