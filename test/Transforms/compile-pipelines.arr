# The CPU pipelines end to end on an MLP-like chain: after
# arr-to-linalg-pipeline and arr-bufferize-pipeline every intermediate is a
# view into the one arena argument, with no allocation and no copy left (the
# two contractions of one shape keep their own zero-filled inits; merging
# them would force bufferization to copy one), and the plan meets its lower
# bound.
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline | FileCheck %s
# RUN: vmapc-opt %s --arr-compile-cpu-pipeline | FileCheck %s --check-prefix=LLVM

# CHECK-LABEL: func.func @predict(
# CHECK-SAME:      %{{.+}}: memref<16x64xf32> {arr.name = "x", arr.staging, arr.staging_offset = {{[0-9]+}} : i64}
# CHECK-SAME:      %{{.+}}: memref<16x32xf32> {arr.name = "out", arr.output, arr.staging, arr.staging_offset = {{[0-9]+}} : i64}
# CHECK-SAME:      %[[ARENA:.+]]: memref<16384xi8> {arr.arena})
# CHECK-SAME:      arr.plan = {arena_bytes = 16384 : i64, buffers = 7 : i64, in_place = 2 : i64, lower_bound = 16384 : i64, naive_sum = 40960 : i64}
# CHECK-NOT:     memref.alloc
# CHECK-NOT:     memref.copy
# CHECK-COUNT-3: linalg.matmul
# CHECK-NOT:     memref.alloc
# CHECK-NOT:     memref.copy
# CHECK:         return

# The C entry of the ABI: one pointer array (x, the four weights, out, the
# arena), calling nothing: exp and tanh are polynomials (--arr-expand-math),
# not libm's expf and tanhf.
# LLVM-NOT: llvm.func @{{malloc|expf|tanhf}}
# LLVM-DAG: llvm.func internal @predict(
# LLVM-DAG: llvm.func @vmapc_entry_predict(%{{.+}}: !llvm.ptr)
# LLVM-NOT: llvm.func @{{malloc|expf|tanhf}}

fn mlp(x: f32[64], w1: f32[64, 128], b1: f32[128], w2: f32[128, 128],
       w3: f32[128, 32]) -> f32[32] {
  let h = tanh(x @ w1 + b1);
  let g = h @ w2;
  let k = g * h;
  return exp(k @ w3) * 2.0;
}
export predict = vmap(mlp, in_axes=(0, none, none, none, none), batch=16);
