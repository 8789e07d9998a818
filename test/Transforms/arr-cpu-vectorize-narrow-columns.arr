# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v3 | FileCheck %s --check-prefix=AVX2
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v4 | FileCheck %s --check-prefix=V4
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64 | FileCheck %s --check-prefix=SSE

# A contraction with 10 output columns (an MLP's last layer). Its register
# tiles take the columns in whole vectors, the rest in a peeled tile: at
# AVX2 8 columns and then 2 (a 10-lane accumulator, one and a quarter ymm
# registers, was scalarized by LLVM into inserts and spills each step); at
# SSE2 8 (its column tile) and then 2. At AVX-512 the 10 columns are under
# one vector and stay one tile (LLVM widens it to a zmm register).

fn f(h: f32[64], w: f32[64, 10]) -> f32[10] {
  return h @ w;
}
export g = vmap(f, in_axes=(0, none), batch=64);

# AVX2-LABEL: func.func private @g_dispatch_0(
# AVX2-NOT:     xf32> into vector<{{[0-9]+}}x10xf32>
# AVX2:         vector.contract {{.+}} into vector<4x8xf32>
# AVX2-NOT:     xf32> into vector<{{[0-9]+}}x10xf32>
# AVX2:         vector.contract {{.+}} into vector<4x2xf32>
# AVX2-NOT:     xf32> into vector<{{[0-9]+}}x10xf32>
# AVX2:         return

# V4-LABEL: func.func private @g_dispatch_0(
# V4:           vector.contract {{.+}} into vector<8x10xf32>
# V4-NOT:       xf32> into vector<{{[0-9]+}}x2xf32>
# V4:           return

# SSE-LABEL: func.func private @g_dispatch_0(
# SSE:          vector.contract {{.+}} into vector<4x8xf32>
# SSE:          vector.contract {{.+}} into vector<4x2xf32>
# SSE:          return
