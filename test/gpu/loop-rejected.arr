# RUN: not vmapc-opt %s --arr-compile-gpu-pipeline 2>&1 | FileCheck %s
#
# Loops are CPU-only for now: the GPU pipeline makes kernels of parallel loop
# nests, and a host-side loop of launches is not implemented. The error
# points at the loop.

fn f(x: f32[8]) -> f32[8] {
  for i in range(3) carry (acc = x) {
    yield tanh(acc);
  }
  return acc;
}
export e = vmap(f, batch=4);

# CHECK: loop-rejected.arr:8:3: error: 'scf.for' op would run on the host: it was not mapped to a GPU kernel
