// RUN: vmapc-opt %s --convert-arr-to-linalg --linalg-fuse-elementwise-ops --canonicalize -split-input-file | FileCheck %s

// All-pairs squared distances, as --arr-vmap writes vmap(vmap(sqdist)):
// queries [B,64] and references [R,64] are broadcast to [B,R,64],
// subtracted, squared and summed over dim 2. After fusion ONE reduction
// generic reads both operands directly through broadcast maps; no
// [B,R,64] tensor exists anywhere.

// CHECK-NOT: tensor<8x10x64xf32>
// CHECK: #[[Q:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK: #[[R:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @pairwise_sqdist(
// CHECK-SAME: %[[QS:.+]]: tensor<8x64xf32>, %[[REFS:.+]]: tensor<10x64xf32>) -> tensor<8x10xf32>
// CHECK-NOT: tensor<8x10x64xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<8x10xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<8x10xf32>)
// CHECK: %[[D:.+]] = linalg.generic {indexing_maps = [#[[Q]], #[[R]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[QS]], %[[REFS]] : tensor<8x64xf32>, tensor<10x64xf32>) outs(%[[INIT]] : tensor<8x10xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[DIFF:.+]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[SQ:.+]] = arith.mulf %[[DIFF]], %[[DIFF]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[SQ]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK-NEXT: } -> tensor<8x10xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor<8x10x64xf32>
// CHECK: return %[[D]] : tensor<8x10xf32>
func.func @pairwise_sqdist(%q: tensor<8x64xf32>, %refs: tensor<10x64xf32>) -> tensor<8x10xf32> {
  %qb = arr.broadcast_in_dim %q, dims = [0, 2] : (tensor<8x64xf32>) -> tensor<8x10x64xf32>
  %rb = arr.broadcast_in_dim %refs, dims = [1, 2] : (tensor<10x64xf32>) -> tensor<8x10x64xf32>
  %d = arr.sub %qb, %rb : tensor<8x10x64xf32>
  %sq = arr.mul %d, %d : tensor<8x10x64xf32>
  %s = arr.reduce_sum %sq, dims = [2] : (tensor<8x10x64xf32>) -> tensor<8x10xf32>
  return %s : tensor<8x10xf32>
}

// -----

// A stretched size-1 operand ([1,64] against [B,64]) fuses the same way: the
// fused generic reads it at row 0.
// CHECK: #[[C:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @stretched_center(
// CHECK-SAME: %[[XS:.+]]: tensor<8x64xf32>, %[[C0:.+]]: tensor<1x64xf32>) -> tensor<8xf32>
// CHECK-NOT: tensor.empty() : tensor<8x64xf32>
// CHECK: %[[D:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[C]], #{{.+}}], iterator_types = ["parallel", "reduction"]} ins(%[[XS]], %[[C0]] : tensor<8x64xf32>, tensor<1x64xf32>) outs(%{{.+}} : tensor<8xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]] : tensor<8xf32>
func.func @stretched_center(%x: tensor<8x64xf32>, %c: tensor<1x64xf32>) -> tensor<8xf32> {
  %cb = arr.broadcast_in_dim %c, dims = [0, 1] : (tensor<1x64xf32>) -> tensor<8x64xf32>
  %d = arr.sub %x, %cb : tensor<8x64xf32>
  %sq = arr.mul %d, %d : tensor<8x64xf32>
  %s = arr.reduce_sum %sq, dims = [1] : (tensor<8x64xf32>) -> tensor<8xf32>
  return %s : tensor<8xf32>
}
