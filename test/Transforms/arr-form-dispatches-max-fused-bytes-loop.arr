# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches=max-fused-bytes-per-example=98304 | FileCheck %s
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches | FileCheck %s
#
# A recurrence: the step's product w @ h starts from a fill that loop
# invariant code motion took out of the loop. The entry pads partial
# chunks (no batch loop is known), so each 256 x 64 result counts whole:
# the step's tanh (64 KiB) fits 96 KiB, the product's 64 KiB more do not,
# but the product cannot root a dispatch of its own (a root computes its initial
# values in the kernel, not from a binding), so it stays fused with the
# tanh: one dispatch per step, as without a bound.
# CHECK:     scf.for
# CHECK:       sched.dispatch @rnn_batch_dispatch_3(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<64x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>, tensor<64x256xf32>) outs(%{{.+}} : tensor<256x64xf32>)
# CHECK-NOT:   sched.dispatch
# CHECK:       scf.yield

fn rnn(x: f32[32], w: f32[64, 64], u: f32[64, 32]) -> f32[64] {
  for i in range(20) carry (h = zeros((64,))) {
    yield tanh(w @ h + u @ x);
  }
  return h;
}
export rnn_batch = vmap(rnn, in_axes=(0, none, none), batch=256);
