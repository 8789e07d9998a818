# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups | FileCheck %s --check-prefix=CPU
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups=max-workgroup-scratch=262144 | FileCheck %s --check-prefix=CAP
#
# A 784-512-512-10 MLP against shared weights, one dispatch: per example, a
# workgroup keeps both layers' products and activations (4 x 512 floats) and
# the logits' product (10): 8232 bytes. A slab of examples that multiplies
# a shared operand (the batched x @ w1 is a 2-D matmul over the batch)
# reads each panel of the weights once for all its rows, so the CPU's
# default scratch bound (256 KiB) is 4x for it: a slab of 64 rows (526848
# bytes) fits in 1 MiB. (Dispatches 0 and 1 copy w2 and w1 into column
# panels, once per call: the weights it reads in panels are shared too.)
# CPU-LABEL: func.func private @predict_dispatch_2(
# CPU: sched.workgroup_count = array<i64: -64, 1, 1>
#
# A bound given by option is kept as it is: 256 KiB holds 16 rows (32
# would be 263424 bytes).
# CAP-LABEL: func.func private @predict_dispatch_2(
# CAP: sched.workgroup_count = array<i64: -16, 1, 1>
#
# Both operands per example (a batched matmul, attention's q @ k^T): no
# shared panel, the default bound: 16384 + 16384 bytes per example (the
# product and its tanh) take 8 rows in 256 KiB, not 32 in 1 MiB.
# CPU-LABEL: func.func private @pairs_dispatch_0(
# CPU: sched.workgroup_count = array<i64: -8, 1, 1>

fn mlp(x: f32[784], w1: f32[784, 512], b1: f32[512], w2: f32[512, 512],
       b2: f32[512], w3: f32[512, 10], b3: f32[10]) -> f32[10] {
  let h1 = tanh(x @ w1 + b1);
  let h2 = tanh(h1 @ w2 + b2);
  return h2 @ w3 + b3;
}
export predict = vmap(mlp, in_axes=(0, none, none, none, none, none, none),
                      batch=256);

fn pair(a: f32[64, 64], b: f32[64, 64]) -> f32[64, 64] {
  return tanh(a @ b) @ b;
}
export pairs = vmap(pair, batch=256);
