// RUN: vmapc-opt %s -split-input-file --arr-to-linalg-pipeline --arr-bufferize-pipeline | FileCheck %s

// No hidden copies: an operand shared by every example
// (in_axes none) reaches the batched computation through an indexing map of
// the one linalg op that reads it, inside the kernel of one dispatch. It is
// never materialised B times: no dispatch writes a B-sized broadcast of it to
// memory, and the arena holds only the outputs' and mapped inputs' staging
// slots.

// where(i > iota, a, b) with a batched index and shared arrays: one generic
// reads %a and %b through (d0, d1) -> (d1).
func.func private @sel(%i: tensor<i32>, %a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %io = arr.iota dim = 0 : tensor<64xi32>
  %ib = arr.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<64xi32>
  %c = arr.cmp lt, %io, %ib : tensor<64xi32> -> tensor<64xi1>
  %r = arr.select %c, %a, %b : tensor<64xi1>, tensor<64xf32>
  return %r : tensor<64xf32>
}
func.func @where_entry(%i: tensor<16xi32>, %a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> attributes {arr.batch = 16 : i64, arr.in_axes = [0, unit, unit], arr.out_axes = [0]} {
  %r = arr.vmap_call @sel(%i, %a, %b) {in_axes = [0, unit, unit], out_axes = [0], axis_size = 16 : i64} : (tensor<16xi32>, tensor<64xf32>, tensor<64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
// CHECK-DAG:   #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG:   #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK:       func.func private @[[K:.+]](%{{.+}}: memref<16xi32>, %{{.+}}: memref<64xf32>, %{{.+}}: memref<64xf32>, %{{.+}}: memref<16x64xf32>, %{{.+}}: index {sched.num_examples}) attributes {sched.kernel}
// CHECK-NOT:     memref.copy
// CHECK:         linalg.generic {indexing_maps = [#[[ROW]], #[[COL]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins({{.+}} : tensor<16xi32>, tensor<64xf32>, tensor<64xf32>) outs({{.+}} : tensor<16x64xf32>)
// CHECK:           linalg.index 1
// CHECK:           arith.cmpi slt
// CHECK:           arith.select
// CHECK-NOT:     linalg.{{generic|fill|matmul|transpose|copy}}
// CHECK:       func.func @where_entry(
// CHECK-SAME:      %[[I:.+]]: memref<16xi32> {{.+}}, %[[A:.+]]: memref<64xf32>, %[[B:.+]]: memref<64xf32>, %[[OUT:.+]]: memref<16x64xf32> {{.+}}, %{{.+}}: memref<4160xi8> {arr.arena})
// CHECK-NEXT:    %[[N:.+]] = sched.num_examples
// CHECK-NEXT:    sched.dispatch @[[K]](%[[I]], %[[A]], %[[B]] : memref<16xi32>, memref<64xf32>, memref<64xf32>) outs(%[[OUT]] : memref<16x64xf32>) scalars(%[[N]])
// CHECK-NEXT:    return

// -----

// x @ W with x mapped on axis 1 and W shared: one contraction reads W through
// (d0, d1, d2) -> (d2, d1); W is not broadcast to 16 x 64 x 32.
func.func private @mv(%x: tensor<64xf32>, %w: tensor<64x32xf32>) -> tensor<32xf32> {
  %r = arr.dot_general %x, %w, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<64xf32>, tensor<64x32xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}
func.func @matmul_entry(%x: tensor<64x16xf32>, %w: tensor<64x32xf32>) -> tensor<16x32xf32> attributes {arr.batch = 16 : i64, arr.in_axes = [1, unit], arr.out_axes = [0]} {
  %r = arr.vmap_call @mv(%x, %w) {in_axes = [1, unit], out_axes = [0], axis_size = 16 : i64} : (tensor<64x16xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
// CHECK-DAG:   #[[X:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[W:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[R:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK:       func.func private @[[K:.+]](%{{.+}}: memref<64x16xf32>, %{{.+}}: memref<64x32xf32>, %{{.+}}: memref<16x32xf32>, %{{.+}}: index {sched.num_examples}) attributes {sched.kernel}
// CHECK:         linalg.fill
// CHECK-NEXT:    linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[R]]], iterator_types = ["parallel", "parallel", "reduction"]} ins({{.+}} : tensor<64x16xf32>, tensor<64x32xf32>) outs({{.+}} : tensor<16x32xf32>)
// CHECK-NOT:     linalg.{{generic|fill|matmul|transpose|copy}}
// CHECK:       func.func @matmul_entry(
// CHECK-SAME:      %[[XA:.+]]: memref<64x16xf32> {{.+}}, %[[WA:.+]]: memref<64x32xf32>, %[[OUT:.+]]: memref<16x32xf32> {{.+}}, %{{.+}}: memref<6144xi8> {arr.arena})
// CHECK-NEXT:    %[[N:.+]] = sched.num_examples
// CHECK-NEXT:    sched.dispatch @[[K]](%[[XA]], %[[WA]] : memref<64x16xf32>, memref<64x32xf32>) outs(%[[OUT]] : memref<16x32xf32>) scalars(%[[N]])
// CHECK-NEXT:    return

// -----

// concat((exp(a), b)) with a mapped and b shared: each piece is written
// straight into its subview of the output; b through (d0, d1) -> (d1).
func.func private @cat(%a: tensor<8xf32>, %b: tensor<3xf32>) -> tensor<11xf32> {
  %e = arr.exp %a : tensor<8xf32>
  %r = arr.concat %e, %b dim = 0 : (tensor<8xf32>, tensor<3xf32>) -> tensor<11xf32>
  return %r : tensor<11xf32>
}
func.func @concat_entry(%a: tensor<16x8xf32>, %b: tensor<3xf32>) -> tensor<16x11xf32> attributes {arr.batch = 16 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
  %r = arr.vmap_call @cat(%a, %b) {in_axes = [0, unit], out_axes = [0], axis_size = 16 : i64} : (tensor<16x8xf32>, tensor<3xf32>) -> tensor<16x11xf32>
  return %r : tensor<16x11xf32>
}
// CHECK-DAG:   #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK:       func.func private @[[K0:.+]](%{{.+}}: memref<16x8xf32>, %[[OUT0:.+]]: memref<16x11xf32>, %{{.+}}: index {sched.num_examples})
// CHECK-NEXT:    to_tensor
// CHECK-NEXT:    %[[S0:.+]] = memref.subview %[[OUT0]][0, 0] [16, 8] [1, 1]
// CHECK-NEXT:    %[[T0:.+]] = bufferization.to_tensor %[[S0]]
// CHECK-NEXT:    linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.+}}} ins(%{{.+}} : tensor<16x8xf32>) outs(%[[T0]] : tensor<16x8xf32>)
// CHECK:           math.exp
// CHECK:       func.func private @[[K1:.+]](%{{.+}}: memref<3xf32>, %[[OUT1:.+]]: memref<16x11xf32>)
// CHECK-NEXT:    to_tensor
// CHECK-NEXT:    %[[S1:.+]] = memref.subview %[[OUT1]][0, 8] [16, 3] [1, 1]
// CHECK-NEXT:    %[[T1:.+]] = bufferization.to_tensor %[[S1]]
// CHECK-NEXT:    linalg.generic {indexing_maps = [#[[COL]], #[[ID]]], {{.+}}} ins(%{{.+}} : tensor<3xf32>) outs(%[[T1]] : tensor<16x3xf32>)
// CHECK:       func.func @concat_entry(
// CHECK-SAME:      %[[A:.+]]: memref<16x8xf32> {{.+}}, %[[B:.+]]: memref<3xf32>, %[[OUT:.+]]: memref<16x11xf32> {{.+}}, %{{.+}}: memref<1216xi8> {arr.arena})
// CHECK-NEXT:    %[[N:.+]] = sched.num_examples
// CHECK-NEXT:    sched.dispatch @[[K0]](%[[A]] : memref<16x8xf32>) outs(%[[OUT]] : memref<16x11xf32>) scalars(%[[N]])
// CHECK-NEXT:    sched.dispatch @[[K1]](%[[B]] : memref<3xf32>) outs(%[[OUT]] : memref<16x11xf32>)
// CHECK-NEXT:    return
