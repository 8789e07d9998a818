# The CPU pipelines end to end on an MLP-like chain. After
# arr-to-linalg-pipeline and arr-bufferize-pipeline the whole chain is one
# dispatch (every step is row-wise): the entry's schedule binds x, the four
# weights in place and the output, and the arena holds only the staging
# slots of x and the output (the plan meets its lower bound).
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline | FileCheck %s
# The kernel at x86-64-v3: tiled into workgroups of 8 examples, its rows'
# intermediates views of one scratch buffer on the stack, contractions as 4 x 16 register tiles of
# vector.contract (FMA after lowering).
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline \
# RUN:   --arr-cpu-kernel-pipeline=isa=x86-64-v3 | FileCheck %s --check-prefix=KERNEL
# RUN: vmapc-opt %s --arr-compile-cpu-pipeline=isa=x86-64-v3 | FileCheck %s --check-prefix=LLVM

# CHECK-LABEL: func.func private @predict_dispatch_0(
# CHECK-SAME:      attributes {sched.kernel}
# CHECK:         linalg.matmul
# CHECK:         math.tanh
# CHECK:         linalg.matmul
# CHECK:         linalg.matmul
# CHECK:         math.exp
# CHECK-LABEL: func.func @predict(
# CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<16x64xf32> {arr.name = "x", arr.staging, arr.staging_offset = {{[0-9]+}} : i64}
# CHECK-SAME:      %[[W1:[a-z0-9]+]]: memref<64x128xf32> {arr.name = "w1"}, %[[B1:[a-z0-9]+]]: memref<128xf32> {arr.name = "b1"}, %[[W2:[a-z0-9]+]]: memref<128x128xf32> {arr.name = "w2"}, %[[W3:[a-z0-9]+]]: memref<128x32xf32> {arr.name = "w3"}
# CHECK-SAME:      %[[OUT:[a-z0-9]+]]: memref<16x32xf32> {arr.name = "out", arr.output, arr.staging, arr.staging_offset = {{[0-9]+}} : i64}
# CHECK-SAME:      %{{.+}}: memref<6144xi8> {arr.arena})
# CHECK-SAME:      arr.plan = #arr.plan<arena_bytes = 6144, lower_bound = 6144, aligned_lower_bound = 6144, naive_sum = 6144, in_place = 0, buffers = 2, alignment = 64>
# CHECK-NEXT:    %[[N:.+]] = sched.num_examples : index
# CHECK-NEXT:    sched.dispatch @predict_dispatch_0(%[[X]], %[[W1]], %[[B1]], %[[W2]], %[[W3]] : {{.+}}) outs(%[[OUT]] : memref<16x32xf32>) scalars(%[[N]])
# CHECK-NEXT:    return

# KERNEL-LABEL: func.func private @predict_dispatch_0(
# KERNEL-SAME:      %{{.+}}: index {sched.num_examples}, %[[WX:.+]]: index, %{{.+}}: index, %{{.+}}: index)
# KERNEL-SAME:      sched.kernel, sched.scratch_bytes = {{[0-9]+}} : i64, sched.workgroup_count = array<i64: -16, 1, 1>
# KERNEL-NOT:    memref.alloc(
# KERNEL:        %[[SCRATCH:.+]] = memref.alloca() {alignment = 64 : i64} : memref<{{[0-9]+}}xi8>
# KERNEL:        memref.view %[[SCRATCH]][%{{.+}}][] : memref<{{[0-9]+}}xi8> to memref<16x128xf32>
# KERNEL:        vector.contract {{.+}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
# KERNEL:        vector.transfer_write {{.+}} : vector<4x16xf32>, memref<4x16xf32, strided<[128, 1], offset: ?>>
# KERNEL-NOT:    memref.alloc(

# The C function of the kernel (one workgroup) and the descriptors of the
# kernel and the entry; multiply-adds on vectors of 16 (two AVX registers)
# that LLVM contracts to FMAs; no libm call: exp and tanh are polynomials
# (--arr-expand-math).
# LLVM-NOT: llvm.func @{{malloc|expf|tanhf}}
# LLVM-DAG: llvm.fmul {{.+}} {fastmathFlags = #llvm.fastmath<contract>} : vector<16xf32>
# LLVM-DAG: llvm.mlir.global external constant @vmapc_kernel_predict_dispatch_0_descriptor(dense<
# LLVM-DAG: llvm.func @vmapc_kernel_predict_dispatch_0(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64)
# LLVM-DAG: llvm.mlir.global external constant @vmapc_entry_predict_descriptor(
# LLVM-NOT: llvm.func @{{malloc|expf|tanhf}}

fn mlp(x: f32[64], w1: f32[64, 128], b1: f32[128], w2: f32[128, 128],
       w3: f32[128, 32]) -> f32[32] {
  let h = tanh(x @ w1 + b1);
  let g = h @ w2;
  let k = g * h;
  return exp(k @ w3) * 2.0;
}
export predict = vmap(mlp, in_axes=(0, none, none, none, none), batch=16);
