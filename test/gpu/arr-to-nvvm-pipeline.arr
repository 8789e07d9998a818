# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-to-nvvm-pipeline=serialize=false | FileCheck %s
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline "--arr-to-nvvm-pipeline=serialize=false threads-per-block=128" | FileCheck %s --check-prefix=T128
#
# A loop program on the GPU: the schedule repeats the step's dispatches 20
# times (the runtime launches them), so the GPU module holds one NVVM
# kernel per kernel of the schedule, loop or not, and nothing runs on the
# host. Kernels take bare pointers (their bindings) and n, blocks of 256
# threads (128 with threads-per-block=128); the weights' transposes
# (dispatch 0 and 1) run once per call; the step's product h @ w^T
# (dispatch 6) stages its inputs in shared memory (address space 3); tanh
# calls libdevice. The carry alternates between two buffers (no copy per
# step): the one copy left puts h into the output.

fn rnn(x: f32[32], w: f32[64, 64], u: f32[64, 32]) -> f32[64] {
  for i in range(20) carry (h = zeros((64,))) {
    yield tanh(w @ h + u @ x);
  }
  return h;
}
export rnn_batch = vmap(rnn, in_axes=(0, none, none), batch=256);

# CHECK-LABEL: gpu.module @vmapc_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
# CHECK-DAG:   llvm.mlir.global external constant @vmapc_entry_rnn_batch_descriptor
# CHECK-DAG:   llvm.func @__nv_tanhf(f32) -> f32
# CHECK-DAG:   llvm.func @vmapc_kernel_rnn_batch_dispatch_0(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr) attributes {{{.*}}gpu.known_block_size = array<i32: 256, 1, 1>, nvvm.kernel
# CHECK-DAG:   llvm.func @vmapc_kernel_rnn_batch_dispatch_6(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64) attributes {{{.*}}nvvm.kernel
# CHECK-DAG:   llvm.mlir.global external constant @vmapc_kernel_rnn_batch_dispatch_6_descriptor
# CHECK-DAG:   llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
# CHECK-DAG:   llvm.func @vmapc_kernel_rnn_batch_copy_0(
# CHECK-NOT:   @vmapc_kernel_rnn_batch_copy_1
# CHECK-NOT:   gpu.launch
# CHECK-NOT:   func.func

# T128: gpu.known_block_size = array<i32: 128, 1, 1>
# T128-NOT: gpu.known_block_size = array<i32: 256, 1, 1>
