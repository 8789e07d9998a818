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
# In the kernel each 8 x 32 register tile (AVX-512: two vectors) reads one
# panel, its index resolved outside the K loop: each step of K loads 32
# contiguous floats of it, 128 bytes after the last.
# KERNEL-LABEL: func.func private @f_dispatch_1(
# KERNEL-SAME:      %[[PW:[a-z0-9]+]]: memref<16x784x32xf32>
# KERNEL:         %[[PANEL:.+]] = memref.subview %[[PW]][%{{.+}}, 0, %{{.+}}] [1, 784, 32] [1, 1, 1]
# KERNEL:         scf.for %{{.+}} = %c0 to %c784 step %c1
# KERNEL-NEXT:      memref.subview %[[PANEL]][0, %{{.+}}, 0] [1, 1, 32]
# KERNEL-NEXT:      memref.collapse_shape
# KERNEL:           vector.transfer_read %{{.+}} : memref<64x784xf32>, vector<8x1xf32>
# KERNEL-NEXT:      vector.transfer_read %{{.+}} : memref<1x32xf32, strided<[25088, 1], offset: ?>>, vector<1x32xf32>
# KERNEL-NEXT:      vector.contract {{.+}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
#
# AVX2's 4 x 16 register tiles: two tiles per panel (16 divides 32).
# AVX2-LABEL: func.func private @f_dispatch_1(
# AVX2:         memref.subview %{{.+}}[%{{.+}}, 0, %{{.+}}] [1, 784, 16] [1, 1, 1] : memref<16x784x32xf32> to memref<1x784x16xf32
# AVX2:         vector.contract {{.+}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>

fn layer(x: f32[784], w: f32[784, 512], w2: f32[128, 128],
         odd: f32[784, 500]) -> (f32[512], f32[128], f32[500]) {
  let h = tanh(x @ w);
  return (h, h[:128] @ w2, x @ odd);
}
export f = vmap(layer, in_axes=(0, none, none, none), batch=64);
