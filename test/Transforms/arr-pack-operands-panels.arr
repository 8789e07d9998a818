# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands | FileCheck %s
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-pack-operands=panels=false | FileCheck %s --check-prefix=OFF
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-print-schedules -o /dev/null | FileCheck %s --check-prefix=SCHED
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v4 | FileCheck %s --check-prefix=KERNEL
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v3 | FileCheck %s --check-prefix=AVX2
#
# Weight panels (--arr-pack-operands, rule 3). The batched x @ w reads the
# shared w [784, 512] (1.6 MB, past kPanelMinBytes) along its rows, 2 KiB
# apart per step of K: it reads a copy in column panels [16, 784, 32]
# instead (an expand_shape and a transpose where w is defined), through the
# map (p floordiv 32, k, p mod 32). w2 [128, 128] (64 KiB) fits a core's L1
# and keeps its layout; so does odd [784, 500] (500 is not a whole number
# of panels).
# CHECK-DAG: #[[$PANEL:.+]] = affine_map<(d0, d1, d2) -> (d1 floordiv 32, d2, d1 mod 32)>
# CHECK-LABEL: func.func @f(
# CHECK-SAME:      %[[X:[a-z0-9]+]]: tensor<64x784xf32> {{.+}}, %[[W:[a-z0-9]+]]: tensor<784x512xf32>
# CHECK-NEXT:    %[[EXP:.+]] = tensor.expand_shape %[[W]] {{\[}}[0], [1, 2]] output_shape [784, 16, 32] : tensor<784x512xf32> into tensor<784x16x32xf32>
# CHECK-NEXT:    %[[E:.+]] = tensor.empty() : tensor<16x784x32xf32>
# CHECK-NEXT:    %[[P:.+]] = linalg.transpose ins(%[[EXP]] : tensor<784x16x32xf32>) outs(%[[E]] : tensor<16x784x32xf32>) permutation = [1, 0, 2]
# CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[$PANEL]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[P]] : tensor<64x784xf32>, tensor<16x784x32xf32>)
# CHECK:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x128xf32>, tensor<128x128xf32>)
# CHECK:         linalg.matmul ins(%[[X]], %{{.+}} : tensor<64x784xf32>, tensor<784x500xf32>)
# CHECK-NOT:     linalg.transpose
#
# The references [r, d] are read along d (rule 2 transposes them to [d, r])
# and then in panels: packed straight from [r, d], one copy.
# CHECK-LABEL: func.func @g(
# CHECK-SAME:      %{{.+}}: tensor<64x64xf32> {{.+}}, %[[R:[a-z0-9]+]]: tensor<1024x64xf32>
# CHECK-NEXT:    %[[EXPR:.+]] = tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [32, 32, 64] : tensor<1024x64xf32> into tensor<32x32x64xf32>
# CHECK-NEXT:    %[[ER:.+]] = tensor.empty() : tensor<32x64x32xf32>
# CHECK-NEXT:    %[[PR:.+]] = linalg.transpose ins(%[[EXPR]] : tensor<32x32x64xf32>) outs(%[[ER]] : tensor<32x64x32xf32>) permutation = [0, 2, 1]
# CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[$PANEL]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %[[PR]] : tensor<64x64xf32>, tensor<32x64x32xf32>)
# CHECK-NOT:     linalg.transpose
#
# Off (the CUDA schedule): every matmul reads its weights as given.
# OFF-LABEL: func.func @f(
# OFF-NOT:     linalg.transpose
# OFF:         linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x784xf32>, tensor<784x512xf32>)
# OFF-NOT:     floordiv
#
# The copy reads only the unmapped w: it runs once per call, into the arena.
# SCHED:      entry f (batch 64):
# SCHED-NEXT:   dispatch f_dispatch_0 grid(?, ?, ?) (input 1, arena+0) once per call
# SCHED-NEXT:   dispatch f_dispatch_1 grid(?, ?, ?) (input 0, arena+0, output 0) scalars(n)
#
# The pack (f_dispatch_0) copies a row of a panel, 32 contiguous floats, a
# step: one vector read and write (the register tile of the transpose, which
# keeps the innermost dimension, folds to a slice copy). Bufferized as a
# strided memref.copy, it was a scalar loop that LLVM unrolled into 32 loads
# and 32 stores.
# The start of f_dispatch_1's last 13-row tile (below).
# KERNEL-DAG:   #[[$LAST13:.+]] = affine_map<(d0) -> (51, d0)>
# KERNEL-LABEL: func.func private @f_dispatch_0(
# KERNEL-NOT:     memref.copy
# KERNEL:         scf.for %{{.+}} = %c0 to %c784 step %c1
# KERNEL-NEXT:      affine.apply
# KERNEL-NEXT:      %[[ROW:.+]] = vector.transfer_read %{{.+}} : memref<784x16x32xf32>, vector<1x1x32xf32>
# KERNEL-NEXT:      vector.transfer_write %[[ROW]], %{{.+}} : vector<1x1x32xf32>, memref<1x784x32xf32, {{.+}}>
# KERNEL-NOT:     memref.copy
#
# In the kernel each register tile (AVX-512: 13 rows x two vectors, five
# per 64-row slab, the last overlapping the one before) reads one panel, its
# index resolved outside the K loop: each step of K loads 32 contiguous
# floats of it, 128 bytes after the last.
# KERNEL-LABEL: func.func private @f_dispatch_1(
# KERNEL-SAME:      %[[PW:[a-z0-9]+]]: memref<16x784x32xf32>
# Every workgroup is computed in the code of a 64-row slab
# (passes/Codegen/PadSlab.h), read in place when it has 64 rows, else from a
# copy padded to 64 rows; the 13-row tiles run only up to the rows needed
# (NEED), the last starting at row 51 at the latest (row 51 is computed
# twice, the same values stored twice): one loop nest, no peeled tile of the
# rows left.
# KERNEL:         scf.if %{{.+}} -> (memref<64x784xf32, strided<[784, 1], offset: ?>>)
# KERNEL:         scf.for %{{.+}} = %c0 to %c512 step %c32
# KERNEL-NEXT:      scf.for %[[I:.+]] = %c0 to %[[NEED:.+]] step %c13
# KERNEL-NEXT:        %[[ROW:.+]] = affine.min #[[$LAST13]](%[[I]])
# KERNEL:             %[[PANEL:.+]] = memref.subview %[[PW]][%{{.+}}, 0, %{{.+}}] [1, 784, 32] [1, 1, 1]
# KERNEL:             scf.for %{{.+}} = %c0 to %c784 step %c1
# KERNEL-NEXT:          memref.subview %[[PANEL]][0, %{{.+}}, 0] [1, 1, 32]
# KERNEL-NEXT:          memref.collapse_shape
# KERNEL:               vector.transfer_read %{{.+}}[%[[ROW]], %{{.+}} : memref<64x784xf32, strided<[784, 1], offset: ?>>, vector<13x1xf32>
# KERNEL-NEXT:          vector.transfer_read %{{.+}} : memref<1x32xf32, strided<[25088, 1], offset: ?>>, vector<1x32xf32>
# KERNEL-NEXT:          vector.contract {{.+}} : vector<13x1xf32>, vector<1x32xf32> into vector<13x32xf32>
# KERNEL-NOT:     vector<12x1xf32>
# KERNEL-NOT:     vector<14x
# KERNEL:         return
#
# AVX2's tiles of 6 x 16 (eleven per slab, the last overlapping): two per
# panel (16 divides 32).
# AVX2-LABEL: func.func private @f_dispatch_1(
# AVX2:         memref.subview %{{.+}}[%{{.+}}, 0, %{{.+}}] [1, 784, 16] [1, 1, 1] : memref<16x784x32xf32> to memref<1x784x16xf32
# AVX2:         vector.contract {{.+}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
# AVX2-NOT:     vector<4x1xf32>, vector<1x16xf32>
# AVX2:         return

fn layer(x: f32[784], w: f32[784, 512], w2: f32[128, 128],
         odd: f32[784, 500]) -> (f32[512], f32[128], f32[500]) {
  let h = tanh(x @ w);
  return (h, h[:128] @ w2, x @ odd);
}
export f = vmap(layer, in_axes=(0, none, none, none), batch=64);

# Squared distances to 1024 shared references ([r, d], read through their
# transpose, 1024 a whole number of panels): panels too, but the step is
# (q - r)^2 + acc, whose temporaries a 14-row tile would spill: 8 rows.
# KERNEL-LABEL: func.func private @g_dispatch_1(
# KERNEL-SAME:      memref<32x64x32xf32>
# KERNEL-NOT:     vector<14x
# KERNEL:         scf.for %{{.+}} = %c0 to %{{.+}} step %c8
# KERNEL:           arith.subf %{{.+}} : vector<8x32xf32>
# KERNEL-NOT:     vector<14x

fn sqdist(a: f32[64], b: f32[64]) -> f32 {
  let d = a - b;
  return sum(d * d);
}
fn dists(q: f32[64], refs: f32[1024, 64]) -> f32[1024] {
  return vmap(sqdist, in_axes=(none, 0))(q, refs);
}
export g = vmap(dists, in_axes=(0, none), batch=64);
