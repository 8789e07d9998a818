# REQUIRES: ptxas
# RUN: vmapc-opt %vmapc_src/examples/knn_digits.arr --arr-compile-gpu-pipeline > %t.mlir
# RUN: %python %S/extract-ptx.py %t.mlir vmapc_kernels > %t.ptx
# RUN: FileCheck %s < %t.ptx
# RUN: %ptxas -arch=sm_90 -v -o %t.cubin %t.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
# RUN: test -s %t.cubin
#
# The kNN program of examples/knn_digits.arr on the schedule: the GPU
# module holds the schedule's two kernels (the transposed references, then
# the distances fused with their argmin), one block per workgroup, and the
# descriptors the runtime checks against the manifest.

# CHECK:       .target sm_90
# The block's dynamic shared memory, CUDA's `extern __shared__`.
# CHECK:       .extern .shared .align 16 .b8 __dynamic_shmem__0[];
# CHECK:       .visible .global .align 8 .b8 vmapc_entry_classify_descriptor[104]
# CHECK:       .visible .global .align 8 .b8 vmapc_kernel_classify_dispatch_0_descriptor[96]
# CHECK:       .visible .global .align 8 .b8 vmapc_kernel_classify_dispatch_1_descriptor[112]

# The transpose of the references: two bindings, 256 threads.
# CHECK-LABEL: .visible .entry vmapc_kernel_classify_dispatch_0(
# CHECK-NEXT:  .param .u64 .ptr .align 1 vmapc_kernel_classify_dispatch_0_param_0,
# CHECK-NEXT:  .param .u64 .ptr .align 1 vmapc_kernel_classify_dispatch_0_param_1
# CHECK-NEXT:  )
# CHECK-NEXT:  .maxntid 256, 1, 1
# CHECK-DAG:   %ctaid.x
# CHECK-DAG:   %tid.x
# CHECK:       ld.global
# CHECK:       st.global
# CHECK:       bar.sync 0;
# CHECK:       ret;

# The distances and their argmin: q, the transposed references, the
# output, then n. 8 queries per block (their 8 x 1000 distances, 32000
# bytes, in shared memory): the distances are a contraction, their 16-pixel
# slices of the queries and the references staged in shared memory by the
# block, each thread accumulating a register tile of (q - r)^2 from there;
# then the argmin, a warp per query: 5 shuffles of (value, index) each. PTX
# lays the loops out after their exits, so the checks go by instruction
# kind, not by order.
# CHECK-LABEL: .visible .entry vmapc_kernel_classify_dispatch_1(
# CHECK-NEXT:  .param .u64 .ptr .align 1 vmapc_kernel_classify_dispatch_1_param_0,
# CHECK-NEXT:  .param .u64 .ptr .align 1 vmapc_kernel_classify_dispatch_1_param_1,
# CHECK-NEXT:  .param .u64 .ptr .align 1 vmapc_kernel_classify_dispatch_1_param_2,
# CHECK-NEXT:  .param .u64 vmapc_kernel_classify_dispatch_1_param_3
# CHECK-NEXT:  )
# CHECK-NEXT:  .maxntid 256, 1, 1
# CHECK-DAG:   bar.sync 0;
# CHECK-DAG:   st.shared.b32
# CHECK-COUNT-10: shfl.sync.bfly.b32 {{.+}}, {{.+}}, {{16|8|4|2|1}}, 31, -1;
# CHECK:       st.global.b32
# (q - r)^2 + acc as one FMA (f32: never TF32), both from shared memory.
# CHECK:       ld.shared.b32
# CHECK:       sub.f32 [[D:%r[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
# CHECK-NEXT:  fma.rn.f32 [[ACC:%r[0-9]+]], [[D]], [[D]], [[ACC]];

# ptxas reports the kernels in reverse order.
# PTXAS: Compiling entry function 'vmapc_kernel_classify_dispatch_1' for 'sm_90'
# PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
# PTXAS: Compiling entry function 'vmapc_kernel_classify_dispatch_0' for 'sm_90'
# PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
