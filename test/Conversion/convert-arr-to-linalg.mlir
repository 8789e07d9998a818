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

// The math functions: one generic each around their math op (round is
// math.roundeven: half to even; math.round would round half away from 0).
// CHECK-LABEL: func.func @math_functions(
// CHECK: ^bb0(%[[X0:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V0:.+]] = math.sin %[[X0]] : f32
// CHECK-NEXT: linalg.yield %[[V0]] : f32
// CHECK: math.cos %{{.+}} : f32
// CHECK: math.log1p %{{.+}} : f32
// CHECK: math.expm1 %{{.+}} : f32
// CHECK: math.erf %{{.+}} : f32
// CHECK: math.floor %{{.+}} : f32
// CHECK: math.ceil %{{.+}} : f32
// CHECK: ^bb0(%[[X7:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[V7:.+]] = math.roundeven %[[X7]] : f32
// CHECK-NEXT: linalg.yield %[[V7]] : f32
func.func @math_functions(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.sin %a : tensor<4xf32>
  %1 = arr.cos %0 : tensor<4xf32>
  %2 = arr.log1p %1 : tensor<4xf32>
  %3 = arr.expm1 %2 : tensor<4xf32>
  %4 = arr.erf %3 : tensor<4xf32>
  %5 = arr.floor %4 : tensor<4xf32>
  %6 = arr.ceil %5 : tensor<4xf32>
  %7 = arr.round %6 : tensor<4xf32>
  return %7 : tensor<4xf32>
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

// i32 division truncates: signed divsi. x / 0 and INT_MIN / -1 are
// undefined but must not trap (a padding lane may hold them): they divide
// by 1 instead.
// CHECK-LABEL: func.func @div_i32(
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[M1:.+]] = arith.constant -1 : i32
// CHECK-DAG: %[[MIN:.+]] = arith.constant -2147483648 : i32
// CHECK: %[[BYZERO:.+]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i32
// CHECK-NEXT: %[[XMIN:.+]] = arith.cmpi eq, %[[X]], %[[MIN]] : i32
// CHECK-NEXT: %[[YM1:.+]] = arith.cmpi eq, %[[Y]], %[[M1]] : i32
// CHECK-NEXT: %[[OVF:.+]] = arith.andi %[[XMIN]], %[[YM1]] : i1
// CHECK-NEXT: %[[BAD:.+]] = arith.ori %[[BYZERO]], %[[OVF]] : i1
// CHECK-NEXT: %[[D:.+]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK-NEXT: %[[V:.+]] = arith.divsi %[[X]], %[[D]] : i32
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

//===----------------------------------------------------------------------===//
// Reductions over a linalg.fill init
//===----------------------------------------------------------------------===//

// -----

// CHECK: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum_f32(
// CHECK-SAME: %[[A:.+]]: tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<3xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[V:.+]] = arith.addf %[[X]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]] : tensor<3xf32>
func.func @reduce_sum_f32(%a: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = arr.reduce_sum %a, dims = [0, 2] : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK: #[[OUT:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @reduce_sum_i32(
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[OUT]]], iterator_types = ["reduction"]} ins(%{{.+}} : tensor<8xi32>) outs(%[[INIT]] : tensor<i32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK-NEXT: %[[V:.+]] = arith.addi %[[X]], %[[ACC]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @reduce_sum_i32(%a: tensor<8xi32>) -> tensor<i32> {
  %0 = arr.reduce_sum %a, dims = [0] : (tensor<8xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// -inf init.
// CHECK-LABEL: func.func @reduce_max_f32(
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.+}} : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[V:.+]] = arith.maximumf %[[X]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @reduce_max_f32(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = arr.reduce_max %a, dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// INT_MIN init.
// CHECK-LABEL: func.func @reduce_max_i32(
// CHECK: %[[MIN:.+]] = arith.constant -2147483648 : i32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[MIN]] : i32) outs(%{{.+}} : tensor<4xi32>)
// CHECK: linalg.generic {{.*}} outs(%[[INIT]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK-NEXT: %[[V:.+]] = arith.maxsi %[[X]], %[[ACC]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @reduce_max_i32(%a: tensor<4x8xi32>) -> tensor<4xi32> {
  %0 = arr.reduce_max %a, dims = [1] : (tensor<4x8xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// +inf init.
// CHECK-LABEL: func.func @reduce_min_f32(
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[INF]] : f32) outs(%{{.+}} : tensor<8xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<4x8xf32>) outs(%[[INIT]] : tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[V:.+]] = arith.minimumf %[[X]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @reduce_min_f32(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = arr.reduce_min %a, dims = [0] : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// INT_MAX init.
// CHECK-LABEL: func.func @reduce_min_i32(
// CHECK: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[MAX]] : i32) outs(%{{.+}} : tensor<8xi32>)
// CHECK: linalg.generic {{.*}} outs(%[[INIT]] : tensor<8xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK-NEXT: %[[V:.+]] = arith.minsi %[[X]], %[[ACC]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @reduce_min_i32(%a: tensor<4x8xi32>) -> tensor<8xi32> {
  %0 = arr.reduce_min %a, dims = [0] : (tensor<4x8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

//===----------------------------------------------------------------------===//
// argmin / argmax: one generic, two outputs (value, i32 index); update when
// x is better (f32: or NaN where the best is not, so the first NaN wins), or
// ties (f32: equal or both NaN) at a lower index.
//===----------------------------------------------------------------------===//

// -----

// CHECK: #[[IN:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmin_f32(
// CHECK-SAME: %[[A:.+]]: tensor<4x8xf32>) -> tensor<4xi32>
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[VINIT:.+]] = linalg.fill ins(%[[INF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[IINIT:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<4xi32>)
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x8xf32>) outs(%[[VINIT]], %[[IINIT]] : tensor<4xf32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[BEST:.+]]: f32, %[[BESTI:.+]]: i32):
// CHECK-NEXT: %[[IDX:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[I:.+]] = arith.index_cast %[[IDX]] : index to i32
// CHECK-NEXT: %[[XNAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[STRICT:.+]] = arith.cmpf olt, %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[BNUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[NANWINS:.+]] = arith.andi %[[XNAN]], %[[BNUM]] : i1
// CHECK-NEXT: %[[BETTER:.+]] = arith.ori %[[STRICT]], %[[NANWINS]] : i1
// CHECK-NEXT: %[[EQ:.+]] = arith.cmpf oeq, %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[BNAN:.+]] = arith.cmpf uno, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[BOTHNAN:.+]] = arith.andi %[[XNAN]], %[[BNAN]] : i1
// CHECK-NEXT: %[[SAME:.+]] = arith.ori %[[EQ]], %[[BOTHNAN]] : i1
// CHECK-NEXT: %[[LOWER:.+]] = arith.cmpi slt, %[[I]], %[[BESTI]] : i32
// CHECK-NEXT: %[[TIE:.+]] = arith.andi %[[SAME]], %[[LOWER]] : i1
// CHECK-NEXT: %[[UPD:.+]] = arith.ori %[[BETTER]], %[[TIE]] : i1
// CHECK-NEXT: %[[NV:.+]] = arith.select %[[UPD]], %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[NI:.+]] = arith.select %[[UPD]], %[[I]], %[[BESTI]] : i32
// CHECK-NEXT: linalg.yield %[[NV]], %[[NI]] : f32, i32
// CHECK: return %[[R]]#1 : tensor<4xi32>
func.func @argmin_f32(%a: tensor<4x8xf32>) -> tensor<4xi32> {
  %0 = arr.argmin %a, axis = 1 : (tensor<4x8xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK: #[[OUT:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @argmax_f32(
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[VINIT:.+]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.+}} : tensor<8xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[IINIT:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<8xi32>)
// CHECK: %[[R:.+]]:2 = linalg.generic {indexing_maps = [#{{.+}}, #[[OUT]], #[[OUT]]], iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<4x8xf32>) outs(%[[VINIT]], %[[IINIT]] : tensor<8xf32>, tensor<8xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[BEST:.+]]: f32, %[[BESTI:.+]]: i32):
// CHECK-NEXT: %[[IDX:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[I:.+]] = arith.index_cast %[[IDX]] : index to i32
// CHECK-NEXT: %[[XNAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[STRICT:.+]] = arith.cmpf ogt, %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[BNUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[NANWINS:.+]] = arith.andi %[[XNAN]], %[[BNUM]] : i1
// CHECK-NEXT: %[[BETTER:.+]] = arith.ori %[[STRICT]], %[[NANWINS]] : i1
// CHECK-NEXT: %[[EQ:.+]] = arith.cmpf oeq, %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[BNAN:.+]] = arith.cmpf uno, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[BOTHNAN:.+]] = arith.andi %[[XNAN]], %[[BNAN]] : i1
// CHECK-NEXT: %[[SAME:.+]] = arith.ori %[[EQ]], %[[BOTHNAN]] : i1
// CHECK-NEXT: %[[LOWER:.+]] = arith.cmpi slt, %[[I]], %[[BESTI]] : i32
// CHECK-NEXT: %[[TIE:.+]] = arith.andi %[[SAME]], %[[LOWER]] : i1
// CHECK-NEXT: %[[UPD:.+]] = arith.ori %[[BETTER]], %[[TIE]] : i1
// CHECK-NEXT: %[[NV:.+]] = arith.select %[[UPD]], %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[NI:.+]] = arith.select %[[UPD]], %[[I]], %[[BESTI]] : i32
// CHECK-NEXT: linalg.yield %[[NV]], %[[NI]] : f32, i32
// CHECK: return %[[R]]#1 : tensor<8xi32>
func.func @argmax_f32(%a: tensor<4x8xf32>) -> tensor<8xi32> {
  %0 = arr.argmax %a, axis = 0 : (tensor<4x8xf32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @argmin_i32(
// CHECK: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[MAX]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.+}} : tensor<8xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[BEST:.+]]: i32, %[[BESTI:.+]]: i32):
// CHECK: %[[BETTER:.+]] = arith.cmpi slt, %[[X]], %[[BEST]] : i32
// CHECK-NEXT: %[[EQ:.+]] = arith.cmpi eq, %[[X]], %[[BEST]] : i32
// CHECK-NEXT: %[[LOWER:.+]] = arith.cmpi slt, %{{.+}}, %[[BESTI]] : i32
// CHECK-NEXT: %[[TIE:.+]] = arith.andi %[[EQ]], %[[LOWER]] : i1
// CHECK-NEXT: arith.ori %[[BETTER]], %[[TIE]] : i1
func.func @argmin_i32(%a: tensor<8xi32>) -> tensor<i32> {
  %0 = arr.argmin %a, axis = 0 : (tensor<8xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK-LABEL: func.func @argmax_i32(
// CHECK: %[[MIN:.+]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32) outs(%{{.+}} : tensor<i32>)
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[BEST:.+]]: i32, %[[BESTI:.+]]: i32):
// CHECK: %[[BETTER:.+]] = arith.cmpi sgt, %[[X]], %[[BEST]] : i32
// CHECK-NEXT: %[[EQ:.+]] = arith.cmpi eq, %[[X]], %[[BEST]] : i32
func.func @argmax_i32(%a: tensor<8xi32>) -> tensor<i32> {
  %0 = arr.argmax %a, axis = 0 : (tensor<8xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

//===----------------------------------------------------------------------===//
// dot_general: loops [batch, lhs free, rhs free, contract], a projected map
// per operand; linalg.matmul / linalg.batch_matmul for the plain cases.
//===----------------------------------------------------------------------===//

// -----

// 1-D . 1-D: one reduction loop into a 0-d result.
// CHECK: #[[V:.+]] = affine_map<(d0) -> (d0)>
// CHECK: #[[S:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @dot_1d_1d(
// CHECK-SAME: %[[A:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[V]], #[[V]], #[[S]]], iterator_types = ["reduction"]} ins(%[[A]], %[[B]] : tensor<8xf32>, tensor<8xf32>) outs(%[[INIT]] : tensor<f32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: return %[[R]] : tensor<f32>
func.func @dot_1d_1d(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// 2-D . 1-D (matrix-vector): loops (m, k).
// CHECK: #[[LHS:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[RHS:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @dot_2d_1d(
// CHECK-SAME: %[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>) outs(%{{.+}} : tensor<4xf32>)
func.func @dot_2d_1d(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 1-D . 2-D (vector-matrix): loops (n, k).
// CHECK: #[[LHS:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK: #[[RHS:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @dot_1d_2d(
// CHECK-SAME: %[[A:.+]]: tensor<8xi32>, %[[B:.+]]: tensor<8x3xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<8xi32>, tensor<8x3xi32>) outs(%{{.+}} : tensor<3xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %[[ACC:.+]]: i32):
// CHECK-NEXT: %[[P:.+]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT: %[[SUM:.+]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT: linalg.yield %[[SUM]] : i32
func.func @dot_1d_2d(%a: tensor<8xi32>, %b: tensor<8x3xi32>) -> tensor<3xi32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8xi32>, tensor<8x3xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// 2-D . 2-D, plain: linalg.matmul.
// CHECK-LABEL: func.func @dot_2d_2d(
// CHECK-SAME: %[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8x3xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK: %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x3xf32>) outs(%[[INIT]] : tensor<4x3xf32>)
// CHECK: return %[[R]]
func.func @dot_2d_2d(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// 2-D . 2-D contracting dim 0 of both (a^T b): a generic, no transpose copy.
// CHECK: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK: #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dot_2d_2d_transposed(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
func.func @dot_2d_2d_transposed(%a: tensor<8x4xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// One side batched (vmap over lhs only): the batch became a free dim of lhs,
// and rhs is read through a map without it, never copied.
// CHECK: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @dot_one_side_batched(
// CHECK-SAME: %[[A:.+]]: tensor<16x4x8xf32>, %[[B:.+]]: tensor<8x3xf32>)
// CHECK-NOT: linalg.generic
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<16x4x8xf32>, tensor<8x3xf32>) outs(%{{.+}} : tensor<16x4x3xf32>)
// CHECK-NOT: linalg.generic
func.func @dot_one_side_batched(%a: tensor<16x4x8xf32>, %b: tensor<8x3xf32>) -> tensor<16x4x3xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [2], rhs_contract = [0] : (tensor<16x4x8xf32>, tensor<8x3xf32>) -> tensor<16x4x3xf32>
  return %0 : tensor<16x4x3xf32>
}

// -----

// The rhs batched (dim 1) and the lhs not: the rhs batch dim is a free dim
// after the lhs's, and the lhs map has no loop for it.
// CHECK: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK: #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dot_rhs_batched(
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<8xf32>, tensor<8x16x3xf32>) outs(%{{.+}} : tensor<16x3xf32>)
func.func @dot_rhs_batched(%a: tensor<8xf32>, %b: tensor<8x16x3xf32>) -> tensor<16x3xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8xf32>, tensor<8x16x3xf32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

// -----

// Plain batched matmul: linalg.batch_matmul.
// CHECK-LABEL: func.func @dot_batch_matmul(
// CHECK-SAME: %[[A:.+]]: tensor<16x4x8xf32>, %[[B:.+]]: tensor<16x8x3xf32>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<16x4x3xf32>)
// CHECK: %[[R:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<16x4x8xf32>, tensor<16x8x3xf32>) outs(%[[INIT]] : tensor<16x4x3xf32>)
// CHECK: return %[[R]]
func.func @dot_batch_matmul(%a: tensor<16x4x8xf32>, %b: tensor<16x8x3xf32>) -> tensor<16x4x3xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [0], rhs_batch = [0], lhs_contract = [2], rhs_contract = [1] : (tensor<16x4x8xf32>, tensor<16x8x3xf32>) -> tensor<16x4x3xf32>
  return %0 : tensor<16x4x3xf32>
}

// -----

// Both sides batched, not at dim 0 on the rhs: a generic; batch loop first.
// CHECK: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK: #[[RHS:.+]] = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dot_batched_inner(
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<16x8xf32>, tensor<8x16x3xf32>) outs(%{{.+}} : tensor<16x3xf32>)
func.func @dot_batched_inner(%a: tensor<16x8xf32>, %b: tensor<8x16x3xf32>) -> tensor<16x3xf32> {
  %0 = arr.dot_general %a, %b, lhs_batch = [0], rhs_batch = [1], lhs_contract = [1], rhs_contract = [0] : (tensor<16x8xf32>, tensor<8x16x3xf32>) -> tensor<16x3xf32>
  return %0 : tensor<16x3xf32>
}

//===----------------------------------------------------------------------===//
// Shape ops and constants
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME: %[[A:.+]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[R:.+]] = linalg.transpose ins(%[[A]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[R]]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = arr.transpose %a, perm = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_collapse(
// CHECK-SAME: %[[A:.+]]: tensor<2x3x4xi32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xi32> into tensor<6x4xi32>
// CHECK: return %[[R]]
func.func @reshape_collapse(%a: tensor<2x3x4xi32>) -> tensor<6x4xi32> {
  %0 = arr.reshape %a : (tensor<2x3x4xi32>) -> tensor<6x4xi32>
  return %0 : tensor<6x4xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_expand(
// CHECK-SAME: %[[A:.+]]: tensor<24xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[A]] {{\[}}[0, 1, 2]] output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK: return %[[R]]
func.func @reshape_expand(%a: tensor<24xf32>) -> tensor<2x3x4xf32> {
  %0 = arr.reshape %a : (tensor<24xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Neither a collapse nor an expand: through 1-D.
// CHECK-LABEL: func.func @reshape_general(
// CHECK-SAME: %[[A:.+]]: tensor<2x3xf32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R:.+]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @reshape_general(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = arr.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// To and from 0-d.
// CHECK-LABEL: func.func @reshape_scalar(
// CHECK-SAME: %[[A:.+]]: tensor<f32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[A]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[E]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: return %[[C]]
func.func @reshape_scalar(%a: tensor<f32>) -> tensor<f32> {
  %0 = arr.reshape %a : (tensor<f32>) -> tensor<1x1xf32>
  %1 = arr.reshape %0 : (tensor<1x1xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @constant(
// CHECK: %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[B:.+]] = arith.constant dense<true> : tensor<3xi1>
// CHECK: return %[[C]], %[[B]]
func.func @constant() -> (tensor<2xf32>, tensor<3xi1>) {
  %0 = arr.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = arr.constant dense<true> : tensor<3xi1>
  return %0, %1 : tensor<2xf32>, tensor<3xi1>
}

//===----------------------------------------------------------------------===//
// Functions and calls are untouched.
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func private @callee(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %[[A:.+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.+]] = call @callee(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[E:.+]] = linalg.generic
// CHECK: return %[[E]] : tensor<4xf32>
func.func private @callee(tensor<4xf32>) -> tensor<4xf32>
func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = arr.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
