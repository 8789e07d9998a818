# REQUIRES: ptxas
# RUN: vmapc-opt %vmapc_src/examples/knn_digits.arr --arr-compile-gpu-pipeline > %t.mlir
# RUN: %python %S/extract-ptx.py %t.mlir | FileCheck %s
#
# Every kernel assembles for sm_90, without spills. The five kernels, in
# launch order: zero the distances, the distances, +inf into the running
# minimum, zero the result, the argmin.
# RUN: %python %S/extract-ptx.py %t.mlir classify_kernel > %t.fill.ptx
# RUN: %ptxas -arch=sm_90 -v -o %t.fill.cubin %t.fill.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
# RUN: test -s %t.fill.cubin
# RUN: %python %S/extract-ptx.py %t.mlir classify_kernel_0 > %t.dist.ptx
# RUN: %ptxas -arch=sm_90 -v -o %t.dist.cubin %t.dist.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
# RUN: test -s %t.dist.cubin
# RUN: %python %S/extract-ptx.py %t.mlir classify_kernel_1 > %t.inf.ptx
# RUN: %ptxas -arch=sm_90 -v -o %t.inf.cubin %t.inf.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
# RUN: test -s %t.inf.cubin
# RUN: %python %S/extract-ptx.py %t.mlir classify_kernel_2 > %t.zero.ptx
# RUN: %ptxas -arch=sm_90 -v -o %t.zero.cubin %t.zero.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
# RUN: test -s %t.zero.cubin
# RUN: %python %S/extract-ptx.py %t.mlir classify_kernel_3 > %t.argmin.ptx
# RUN: %ptxas -arch=sm_90 -v -o %t.argmin.cubin %t.argmin.ptx 2>&1 | FileCheck %s --check-prefix=PTXAS
# RUN: test -s %t.argmin.cubin
#
# The planned program of examples/knn_digits.arr.

# Zero the distances: one pointer (the arena), 256 threads per block.
# CHECK:       .target sm_90
# CHECK-LABEL: .visible .entry classify_kernel(
# CHECK-NEXT:  .param .u64 .ptr .align 1 classify_kernel_param_0
# CHECK-NEXT:  )
# CHECK-NEXT:  .maxntid 256, 1, 1
# CHECK:       st.global

# The distances: arena, q, refs; each thread loops over the 64 pixels.
# CHECK:       .target sm_90
# CHECK-LABEL: .visible .entry classify_kernel(
# CHECK-NEXT:  .param .u64 .ptr .align 1 classify_kernel_param_0,
# CHECK-NEXT:  .param .u64 .ptr .align 1 classify_kernel_param_1,
# CHECK-NEXT:  .param .u64 .ptr .align 1 classify_kernel_param_2
# CHECK-NEXT:  )
# CHECK-NEXT:  .maxntid 256, 1, 1
# CHECK:       %tid.x
# CHECK:       [[LOOP:\$L__BB[0-9_]+]]:
# CHECK:       sub.rn.f32
# CHECK:       mul.rn.f32
# CHECK:       add.rn.f32
# CHECK:       bra{{(\.uni)?}} {{.*}}[[LOOP]];

# The two initialisations.
# CHECK:       .target sm_90
# CHECK-LABEL: .visible .entry classify_kernel(
# CHECK:       .maxntid 256, 1, 1
# CHECK:       .target sm_90
# CHECK-LABEL: .visible .entry classify_kernel(
# CHECK:       .maxntid 256, 1, 1

# The argmin: arena, out; each thread loops over the 1000 references.
# CHECK:       .target sm_90
# CHECK-LABEL: .visible .entry classify_kernel(
# CHECK-NEXT:  .param .u64 .ptr .align 1 classify_kernel_param_0,
# CHECK-NEXT:  .param .u64 .ptr .align 1 classify_kernel_param_1
# CHECK-NEXT:  )
# CHECK-NEXT:  .maxntid 256, 1, 1
# CHECK:       [[LOOP2:\$L__BB[0-9_]+]]:
# CHECK:       setp.lt.f32
# CHECK:       bra{{(\.uni)?}} {{.*}}[[LOOP2]];

# PTXAS: Compiling entry function 'classify_kernel' for 'sm_90'
# PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
# PTXAS: Used {{[0-9]+}} registers
