# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v3 | FileCheck %s --check-prefix=AVX2
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v4 | FileCheck %s --check-prefix=V4
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64 | FileCheck %s --check-prefix=SSE

# A contraction with 10 output columns (an MLP's last layer). Its register
# tiles take the columns in whole vectors (a 10-lane accumulator, one and a
# quarter ymm registers, was scalarized by LLVM into inserts and spills each
# step). At AVX2 every tile is 8 columns: the second starts at column 2 and
# overlaps the first, as a peeled tile of 2 columns would take as many
# vector instructions a row and another copy of the loop. At SSE2 the
# column tile is 8 (two vectors), and the 2 left are a peeled tile (one
# vector; an overlapping full tile would compute 16 columns for 10, more
# than the 1/32 of the columns an overlap may recompute). At AVX-512 the 10
# columns are under one vector and stay one tile (LLVM widens it to a zmm
# register).

fn f(h: f32[64], w: f32[64, 10]) -> f32[10] {
  return h @ w;
}
export g = vmap(f, in_axes=(0, none), batch=64);

# AVX2:       #[[$START:.+]] = affine_map<(d0) -> (2, d0)>
# AVX2-LABEL: func.func private @g_dispatch_0(
# AVX2-NOT:     xf32> into vector<{{[0-9]+}}x10xf32>
# AVX2:         scf.for %[[J:.+]] = %c0 to %c10 step %c8 {
# AVX2-NEXT:      %[[START:.+]] = affine.min #[[$START]](%[[J]])
# AVX2:           memref.subview {{.+}}[%{{.+}}, %[[START]]] [4, 8] [1, 1]
# AVX2:           vector.contract {{.+}} into vector<4x8xf32>
# AVX2-NOT:     vector.contract
# AVX2:         return

# V4-LABEL: func.func private @g_dispatch_0(
# V4:           vector.contract {{.+}} into vector<8x10xf32>
# V4-NOT:       xf32> into vector<{{[0-9]+}}x2xf32>
# V4:           return

# SSE-LABEL: func.func private @g_dispatch_0(
# SSE:          vector.contract {{.+}} into vector<4x8xf32>
# SSE:          vector.contract {{.+}} into vector<4x2xf32>
# SSE:          return
