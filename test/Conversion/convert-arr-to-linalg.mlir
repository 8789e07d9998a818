// RUN: vmapc-opt %s --convert-arr-to-linalg -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// CHECK: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @neg_f32(
// CHECK-SAME: %[[A:.+]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]] : tensor<4x8xf32>
func.func @neg_f32(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = arr.neg %a : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @neg_i32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[V:.+]] = arith.subi %[[ZERO]], %[[X]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @neg_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.neg %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @exp(
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.exp %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @exp(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @log(
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.log %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @log(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.log %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @tanh(
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.tanh %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @tanh(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.tanh %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A 0-d tensor: a generic with no loops.
// CHECK: #[[SCALAR:.+]] = affine_map<() -> ()>
// CHECK-LABEL: func.func @sqrt_scalar(
// CHECK-SAME: %[[A:.+]]: tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[A]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.sqrt %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @sqrt_scalar(%a: tensor<f32>) -> tensor<f32> {
  %0 = arr.sqrt %a : tensor<f32>
  return %0 : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Binary ops, f32 and i32
//===----------------------------------------------------------------------===//

// -----

// CHECK: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_f32(
// CHECK-SAME: %[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<4x8xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]]
func.func @add_f32(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = arr.add %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @add_i32(
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.addi %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @add_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.add %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @sub_f32(
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @sub_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.sub %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sub_i32(
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.subi %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @sub_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.sub %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @mul_f32(
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @mul_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.mul %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @mul_i32(
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @mul_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.mul %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @div_f32(
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @div_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.div %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// i32 division truncates: signed divsi.
// CHECK-LABEL: func.func @div_i32(
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.divsi %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @div_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.div %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

//===----------------------------------------------------------------------===//
// Comparisons: ordered float predicates (une for ne), signed integers.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @cmp_f32(
// CHECK-SAME: %[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
// CHECK: %[[I0:.+]] = tensor.empty() : tensor<4xi1>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[I0]] : tensor<4xi1>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: i1):
// CHECK-NEXT: %[[V:.+]] = arith.cmpf olt, %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: arith.cmpf ole, %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpf ogt, %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpf oge, %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpf oeq, %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpf une, %{{.+}}, %{{.+}} : f32
func.func @cmp_f32(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = arr.cmp lt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %1 = arr.cmp le, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %2 = arr.cmp gt, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %3 = arr.cmp ge, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %4 = arr.cmp eq, %a, %b : tensor<4xf32> -> tensor<4xi1>
  %5 = arr.cmp ne, %a, %b : tensor<4xf32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @cmp_i32(
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i1):
// CHECK-NEXT: %[[V:.+]] = arith.cmpi slt, %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: arith.cmpi sle, %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi sgt, %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi sge, %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi eq, %{{.+}}, %{{.+}} : i32
// CHECK: arith.cmpi ne, %{{.+}}, %{{.+}} : i32
func.func @cmp_i32(%a: tensor<4xi32>, %b: tensor<4xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = arr.cmp lt, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %1 = arr.cmp le, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %2 = arr.cmp gt, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %3 = arr.cmp ge, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %4 = arr.cmp eq, %a, %b : tensor<4xi32> -> tensor<4xi1>
  %5 = arr.cmp ne, %a, %b : tensor<4xi32> -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

//===----------------------------------------------------------------------===//
// broadcast_in_dim: a broadcast map, constant 0 for a stretched size-1 dim.
//===----------------------------------------------------------------------===//

// -----

// CHECK: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_new_dim(
// CHECK-SAME: %[[A:.+]]: tensor<8x64xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<8x10x64xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]] : tensor<8x64xf32>) outs(%[[INIT]] : tensor<8x10x64xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[X]] : f32
// CHECK: return %[[R]]
func.func @broadcast_new_dim(%a: tensor<8x64xf32>) -> tensor<8x10x64xf32> {
  %0 = arr.broadcast_in_dim %a, dims = [0, 2] : (tensor<8x64xf32>) -> tensor<8x10x64xf32>
  return %0 : tensor<8x10x64xf32>
}

// -----

// Operand dim 0 has size 1 and is stretched to 4: read at index 0. Operand
// dim 1 (size 1 into a result dim of size 1) is not stretched.
// CHECK: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_stretch(
// CHECK-SAME: %[[A:.+]]: tensor<1x1x8xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]] : tensor<1x1x8xi32>) outs(%{{.+}} : tensor<4x1x8xi32>)
func.func @broadcast_stretch(%a: tensor<1x1x8xi32>) -> tensor<4x1x8xi32> {
  %0 = arr.broadcast_in_dim %a, dims = [0, 1, 2] : (tensor<1x1x8xi32>) -> tensor<4x1x8xi32>
  return %0 : tensor<4x1x8xi32>
}

// -----

// A new leading dim and a stretched size-1 dim together, on bool.
// CHECK: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-LABEL: func.func @broadcast_stretch_and_new(
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.+}} : tensor<1x3xi1>) outs(%{{.+}} : tensor<5x4x3xi1>)
func.func @broadcast_stretch_and_new(%a: tensor<1x3xi1>) -> tensor<5x4x3xi1> {
  %0 = arr.broadcast_in_dim %a, dims = [1, 2] : (tensor<1x3xi1>) -> tensor<5x4x3xi1>
  return %0 : tensor<5x4x3xi1>
}

// -----

// CHECK: #[[IN:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @broadcast_scalar(
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{.+}}], iterator_types = ["parallel"]} ins(%{{.+}} : tensor<f32>) outs(%{{.+}} : tensor<4xf32>)
func.func @broadcast_scalar(%a: tensor<f32>) -> tensor<4xf32> {
  %0 = arr.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
