# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches | FileCheck %s
# RUN: vmapc plan %s | FileCheck %s --check-prefix=PLAN
#
# DP-SGD's clipping: the per-example outer product gw = g x^T (10 x 64 floats
# from 10 + 64) is read by the clipping norm and by the clipped gradient,
# two dispatches (the scale they share is read by the clipped g too). An
# elementwise op whose result is larger than its inputs and that several
# compute ops read is copied for each (recomputed, as XLA's fusion
# duplicates cheap producers): the norm's dispatch and the clipped
# gradient's each compute the outer product, and gw never reaches memory
# (before: a dispatch of its own and a 655360-byte buffer for 256
# examples). The exp, read by several too but no larger than its input, is
# computed once and kept.
# CHECK-LABEL: func.func private @clipped_dispatch_0(
# CHECK:         math.exp
# CHECK-LABEL: func.func private @clipped_dispatch_1(
# CHECK-SAME:      %{{.+}}: memref<256x10xf32>, %{{.+}}: memref<256x64xf32>, %{{.+}}: memref<256xf32>
# CHECK:         arith.mulf %in, %in_{{[0-9]+}} : f32
# CHECK:         arith.mulf %in, %in : f32
# CHECK:         math.sqrt
# CHECK-LABEL: func.func private @clipped_dispatch_2(
# CHECK-SAME:      %{{.+}}: memref<256x10xf32>, %{{.+}}: memref<256x64xf32>, %{{.+}}: memref<256xf32>, %{{.+}}: memref<256x10x64xf32>
# CHECK:         arith.mulf %in, %in_{{[0-9]+}} : f32
# CHECK:         arith.mulf %in, %in_{{[0-9]+}} : f32
# CHECK-LABEL: func.func private @clipped_dispatch_3(
# CHECK-LABEL: func.func @clipped(
# CHECK-COUNT-4: sched.dispatch
# CHECK-NOT:     sched.dispatch
#
# The arena holds the staging slots, the exp and the scale: no buffer of
# 640 floats per example but the output's slot.
# PLAN: entry clipped: 6 buffers
# PLAN: g 10240 [2, 6] {{[0-9]+}} alloc0
# PLAN-NEXT: scale 1024 [4, 6] {{[0-9]+}} alloc1
# PLAN-NEXT: arena 732160 bytes

fn clip_grad(g0: f32[10], x: f32[64]) -> (f32[10, 64], f32[10]) {
  let g = exp(g0);
  let gw = reshape(g, (10, 1)) * x;
  let scale = 1.0 / maximum(sqrt(sum(gw * gw)), 1.0);
  return (gw * scale, g * scale);
}
export clipped = vmap(clip_grad, batch=256);
