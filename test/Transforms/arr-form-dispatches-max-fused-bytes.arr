# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches | FileCheck %s --check-prefix=ALL
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches=max-fused-bytes-per-example=2048 | FileCheck %s --check-prefix=B2048
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches=max-fused-bytes-per-example=512 | FileCheck %s --check-prefix=B512
# RUN: vmapc-opt %s --arr-to-linalg-pipeline "--arr-bufferize-pipeline=stage-all=1 max-fused-bytes-per-example=2048" --arr-print-schedules -o /dev/null | FileCheck %s --check-prefix=PLAN
#
# Attention at 16 x 8: per example, 16 x 16 scores (1024 bytes), their
# scaled exp (1024), row maxima and sums (64 each), the 8 x 16 transposed
# keys (512). Without a bound (the CPU), one dispatch computes everything.
# ALL-LABEL: func.func private @attend_dispatch_0(%{{.+}}: memref<4x16x8xf32>, %{{.+}}: memref<4x16x8xf32>, %{{.+}}: memref<4x16x8xf32>, %{{.+}}: memref<4x16x8xf32>, %{{.+}}: index {sched.num_examples})
# ALL:         linalg.batch_matmul
# ALL:         math.exp
# ALL:         linalg.batch_matmul
# ALL-LABEL: func.func @attend(
# ALL:         sched.dispatch @attend_dispatch_0(
# ALL-NOT:     sched.dispatch
#
# With 2048 bytes per example, the root (p @ v) fuses the division (1024)
# and the row sums (64), not the exp (1024 more): the exp roots its own
# dispatch, fused with the scaled scores (1024) and the row maxima (64), and
# the scores roots theirs with the transposed keys (512). A fill of an op's
# init computes into that op's buffer and counts nothing (the product's
# 512-byte init). Three dispatches, two 4 x 16 x 16 arena buffers between.
# B2048-LABEL: func.func private @attend_dispatch_0(
# B2048:         linalg.transpose
# B2048:         linalg.batch_matmul
# B2048-LABEL: func.func private @attend_dispatch_1(
# B2048:         } -> tensor<4x16x16xf32>
# B2048:         } -> tensor<4x16xf32>
# B2048:         math.exp
# B2048-LABEL: func.func private @attend_dispatch_2(
# B2048:         } -> tensor<4x16xf32>
# B2048:         arith.divf
# B2048:         linalg.batch_matmul
# B2048-LABEL: func.func @attend(
# B2048:         %[[S:.+]] = sched.dispatch @attend_dispatch_0(%{{.+}}, %{{.+}} : tensor<4x16x8xf32>, tensor<4x16x8xf32>) outs(%{{.+}} : tensor<4x16x16xf32>) scalars(%{{.+}}) -> tensor<4x16x16xf32>
# B2048:         %[[E:.+]] = sched.dispatch @attend_dispatch_1(%[[S]] : tensor<4x16x16xf32>) outs(%{{.+}} : tensor<4x16x16xf32>) scalars(%{{.+}}) -> tensor<4x16x16xf32>
# B2048:         sched.dispatch @attend_dispatch_2(%[[E]], %{{.+}} : tensor<4x16x16xf32>, tensor<4x16x8xf32>) outs(%{{.+}} : tensor<4x16x8xf32>)
# B2048-NOT:     sched.dispatch
#
# With 512: no 1024-byte result fuses, the 64-byte row reductions still do,
# and the 512-byte transposed keys fill the scores' dispatch alone; the
# division (1024) is apart from the product too. Five dispatches.
# B512-COUNT-5: sched.dispatch @attend_dispatch_{{[0-4]}}(
# B512-NOT:     sched.dispatch
#
# The schedule, planned (what `vmapc compile --target=cuda` runs).
# PLAN:      entry attend (batch 4):
# PLAN-NEXT:   dispatch attend_dispatch_0
# PLAN-NEXT:   dispatch attend_dispatch_1
# PLAN-NEXT:   dispatch attend_dispatch_2
# PLAN-NOT:    dispatch

fn softmax_row(s: f32[16]) -> f32[16] {
  let e = exp(s - max(s));
  return e / sum(e);
}
fn attention(q: f32[16, 8], k: f32[16, 8], v: f32[16, 8]) -> f32[16, 8] {
  let p = vmap(softmax_row)(q @ k.T * 0.125);
  return p @ v;
}
export attend = vmap(attention, batch=4);
