# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches=max-fused-bytes-per-example=98304 | FileCheck %s
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands --arr-form-dispatches | FileCheck %s
#
# A recurrence: the step's product w @ h (computed batch first, as
# h @ w^T, after --arr-pack-operands) starts from a fill that loop
# invariant code motion took out of the loop, and is fused with the step's
# tanh: one dispatch per step, with or without a bound on the fused bytes
# per example (a product cannot root a dispatch of its own: a root computes
# its initial values in the kernel, not from a binding). The batch loop is
# known (the carry's zeros take the batch dimension of what the step
# yields), so the dispatch takes n and computes only the chunk's examples.
# CHECK:     scf.for
# CHECK:       sched.dispatch @rnn_batch_dispatch_{{[0-9]+}}(%{{.+}}, %{{.+}}, %{{.+}} : tensor<64x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>) outs(%{{.+}} : tensor<256x64xf32>) scalars(%{{.+}})
# CHECK-NOT:   sched.dispatch
# CHECK:       scf.yield

fn rnn(x: f32[32], w: f32[64, 64], u: f32[64, 32]) -> f32[64] {
  for i in range(20) carry (h = zeros((64,))) {
    yield tanh(w @ h + u @ x);
  }
  return h;
}
export rnn_batch = vmap(rnn, in_axes=(0, none, none), batch=256);
