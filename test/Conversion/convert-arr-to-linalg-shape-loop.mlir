// RUN: vmapc-opt %s --convert-arr-to-linalg -split-input-file | FileCheck %s

// Lowering of abs sign not maximum minimum pow and or select convert concat
// slice iota and arr.for/arr.yield.

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// CHECK: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @abs_f32(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.absf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]] : tensor<4xf32>
func.func @abs_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.abs %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @abs_i32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i32, %{{[^:]+}}: i32):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[NEG:.+]] = arith.cmpi slt, %[[X]], %[[ZERO]] : i32
// CHECK-NEXT: %[[MINUS:.+]] = arith.subi %[[ZERO]], %[[X]] : i32
// CHECK-NEXT: %[[V:.+]] = arith.select %[[NEG]], %[[MINUS]], %[[X]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @abs_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.abs %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// 1 for x > 0, -1 for x < 0, else x itself (0, -0.0 and NaN stay): both
// comparisons are ordered, so NaN falls through to x.
// CHECK-LABEL: func.func @sign_f32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[MINUS_ONE:.+]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT: %[[POS:.+]] = arith.cmpf ogt, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: %[[NEG:.+]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: %[[NOT_POS:.+]] = arith.select %[[NEG]], %[[MINUS_ONE]], %[[X]] : f32
// CHECK-NEXT: %[[V:.+]] = arith.select %[[POS]], %[[ONE]], %[[NOT_POS]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @sign_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.sign %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sign_i32(
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i32, %{{[^:]+}}: i32):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[MINUS_ONE:.+]] = arith.constant -1 : i32
// CHECK-NEXT: %[[POS:.+]] = arith.cmpi sgt, %[[X]], %[[ZERO]] : i32
// CHECK-NEXT: %[[NEG:.+]] = arith.cmpi slt, %[[X]], %[[ZERO]] : i32
// CHECK-NEXT: %[[NOT_POS:.+]] = arith.select %[[NEG]], %[[MINUS_ONE]], %[[X]] : i32
// CHECK-NEXT: %[[V:.+]] = arith.select %[[POS]], %[[ONE]], %[[NOT_POS]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @sign_i32(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = arr.sign %a : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @not(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i1, %{{[^:]+}}: i1):
// CHECK-NEXT: %[[TRUE:.+]] = arith.constant true
// CHECK-NEXT: %[[V:.+]] = arith.xori %[[X]], %[[TRUE]] : i1
// CHECK-NEXT: linalg.yield %[[V]] : i1
func.func @not(%a: tensor<4xi1>) -> tensor<4xi1> {
  %0 = arr.not %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

// NaN-propagating, as JAX's lax.max.
// CHECK: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @maximum_f32(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]] : tensor<4xf32>
func.func @maximum_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.maximum %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @maximum_i32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32, %{{[^:]+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.maxsi %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @maximum_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.maximum %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @minimum_f32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.minimumf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @minimum_f32(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.minimum %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @minimum_i32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i32, %[[Y:[^:]+]]: i32, %{{[^:]+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.minsi %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @minimum_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.minimum %a, %b : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @pow(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = math.powf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @pow(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arr.pow %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @and_or(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xi1>, %[[B:[^:]+]]: tensor<4xi1>) -> tensor<4xi1>
// CHECK: %[[AND:.+]] = linalg.generic {{.+}} ins(%[[A]], %[[B]] : tensor<4xi1>, tensor<4xi1>)
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i1, %[[Y:[^:]+]]: i1, %{{[^:]+}}: i1):
// CHECK-NEXT: %[[V:.+]] = arith.andi %[[X]], %[[Y]] : i1
// CHECK-NEXT: linalg.yield %[[V]] : i1
// CHECK: %[[OR:.+]] = linalg.generic {{.+}} ins(%[[AND]], %[[B]] : tensor<4xi1>, tensor<4xi1>)
// CHECK-NEXT: ^bb0(%[[X2:[^:]+]]: i1, %[[Y2:[^:]+]]: i1, %{{[^:]+}}: i1):
// CHECK-NEXT: %[[V2:.+]] = arith.ori %[[X2]], %[[Y2]] : i1
// CHECK-NEXT: linalg.yield %[[V2]] : i1
// CHECK: return %[[OR]] : tensor<4xi1>
func.func @and_or(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = arr.and %a, %b : tensor<4xi1>
  %1 = arr.or %0, %b : tensor<4xi1>
  return %1 : tensor<4xi1>
}

// -----

// Three inputs; the body yields the branches' element type.
// CHECK: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[C:[^:]+]]: tensor<2x3xi1>, %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[C]], %[[A]], %[[B]] : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[CC:[^:]+]]: i1, %[[X:[^:]+]]: f32, %[[Y:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.select %[[CC]], %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]] : tensor<2x3xf32>
func.func @select(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = arr.select %c, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// convert
//===----------------------------------------------------------------------===//

// f32 -> i32: clamp to [-2^31, 2^31 - 128] (maximumf/minimumf), fptosi,
// INT_MAX from 2^31 up, then NaN (unordered with itself) gives 0.
// CHECK: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @convert_f32_i32(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>) -> tensor<4xi32>
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<4xi32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[A]] : tensor<4xf32>) outs(%[[INIT]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: i32):
// CHECK-NEXT: %[[LOW:.+]] = arith.constant -2.14748365E+9 : f32
// CHECK-NEXT: %[[HIGH:.+]] = arith.constant 2.14748352E+9 : f32
// CHECK-NEXT: %[[ABOVE:.+]] = arith.maximumf %[[X]], %[[LOW]] : f32
// CHECK-NEXT: %[[CLAMPED:.+]] = arith.minimumf %[[ABOVE]], %[[HIGH]] : f32
// CHECK-NEXT: %[[I:.+]] = arith.fptosi %[[CLAMPED]] : f32 to i32
// CHECK-NEXT: %[[TWO31:.+]] = arith.constant 2.14748365E+9 : f32
// CHECK-NEXT: %[[LARGE:.+]] = arith.cmpf oge, %[[X]], %[[TWO31]] : f32
// CHECK-NEXT: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK-NEXT: %[[SAT:.+]] = arith.select %[[LARGE]], %[[MAX]], %[[I]] : i32
// CHECK-NEXT: %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[V:.+]] = arith.select %[[NAN]], %[[ZERO]], %[[SAT]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: return %[[R]] : tensor<4xi32>
func.func @convert_f32_i32(%a: tensor<4xf32>) -> tensor<4xi32> {
  %0 = arr.convert %a : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @convert_i32_f32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i32, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.sitofp %[[X]] : i32 to f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @convert_i32_f32(%a: tensor<4xi32>) -> tensor<4xf32> {
  %0 = arr.convert %a : tensor<4xi32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// bool -> f32 is 1.0 or 0.0: unsigned (sitofp would give -1.0 for true).
// CHECK-LABEL: func.func @convert_i1_f32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i1, %{{[^:]+}}: f32):
// CHECK-NEXT: %[[V:.+]] = arith.uitofp %[[X]] : i1 to f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @convert_i1_f32(%a: tensor<4xi1>) -> tensor<4xf32> {
  %0 = arr.convert %a : tensor<4xi1> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @convert_i1_i32(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i1, %{{[^:]+}}: i32):
// CHECK-NEXT: %[[V:.+]] = arith.extui %[[X]] : i1 to i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
func.func @convert_i1_i32(%a: tensor<4xi1>) -> tensor<4xi32> {
  %0 = arr.convert %a : tensor<4xi1> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// f32 -> bool is x != 0, unordered: NaN gives true.
// CHECK-LABEL: func.func @convert_f32_i1(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: f32, %{{[^:]+}}: i1):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[V:.+]] = arith.cmpf une, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[V]] : i1
func.func @convert_f32_i1(%a: tensor<4xf32>) -> tensor<4xi1> {
  %0 = arr.convert %a : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @convert_i32_i1(
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: i32, %{{[^:]+}}: i1):
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-NEXT: %[[V:.+]] = arith.cmpi ne, %[[X]], %[[ZERO]] : i32
// CHECK-NEXT: linalg.yield %[[V]] : i1
func.func @convert_i32_i1(%a: tensor<4xi32>) -> tensor<4xi1> {
  %0 = arr.convert %a : tensor<4xi32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// To its own dtype: folded away.
// CHECK-LABEL: func.func @convert_same(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xi32>) -> tensor<4xi32>
// CHECK-NOT: linalg.generic
// CHECK-NEXT: return %[[A]] : tensor<4xi32>
func.func @convert_same(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arr.convert %a : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// x[1:5, 0:6:2]: a tensor.extract_slice (a view after bufferization).
// CHECK-LABEL: func.func @slice_2d(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x6xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[R:.+]] = tensor.extract_slice %[[A]][1, 0] [4, 3] [1, 2] : tensor<8x6xf32> to tensor<4x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<4x3xf32>
func.func @slice_2d(%a: tensor<8x6xf32>) -> tensor<4x3xf32> {
  %0 = arr.slice %a, start = [1, 0], stride = [1, 2] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// x[5::-2] reads 5, 3, 1: the slice [1, 3, 5] (offset 1, stride 2), then
// reversed by a generic that reads element 2 - d0 of it by index (linalg's
// tiling would compute a wrong slice for an operand with a decreasing map).
// CHECK-DAG: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @slice_negative(
// CHECK-SAME: %[[A:[^:]+]]: tensor<6xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[S:.+]] = tensor.extract_slice %[[A]][1] [3] [2] : tensor<6xf32> to tensor<3xf32>
// CHECK-NEXT: %[[INIT:.+]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID1]]], iterator_types = ["parallel"]} outs(%[[INIT]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%{{[^:]+}}: f32):
// CHECK-NEXT: %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT: %[[J:.+]] = arith.subi %[[C2]], %[[I]] : index
// CHECK-NEXT: %[[X:.+]] = tensor.extract %[[S]][%[[J]]] : tensor<3xf32>
// CHECK-NEXT: linalg.yield %[[X]] : f32
// CHECK: return %[[R]] : tensor<3xf32>
func.func @slice_negative(%a: tensor<6xf32>) -> tensor<3xf32> {
  %0 = arr.slice %a, start = [5], stride = [-2] : (tensor<6xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Each piece is copied into its slice of one destination, at offsets 0, 3
// and 7 of dimension 1.
// CHECK: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<2x4xf32>, %[[C:[^:]+]]: tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK: %[[DEST:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK-NEXT: %[[SLOT0:.+]] = tensor.extract_slice %[[DEST]][0, 0] [2, 3] [1, 1] : tensor<2x8xf32> to tensor<2x3xf32>
// CHECK-NEXT: %[[COPY0:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : tensor<2x3xf32>) outs(%[[SLOT0]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[X0:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: linalg.yield %[[X0]] : f32
// CHECK: %[[DEST1:.+]] = tensor.insert_slice %[[COPY0]] into %[[DEST]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
// CHECK-NEXT: %[[SLOT1:.+]] = tensor.extract_slice %[[DEST1]][0, 3] [2, 4] [1, 1] : tensor<2x8xf32> to tensor<2x4xf32>
// CHECK-NEXT: %[[COPY1:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : tensor<2x4xf32>) outs(%[[SLOT1]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[X1:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: linalg.yield %[[X1]] : f32
// CHECK: %[[DEST2:.+]] = tensor.insert_slice %[[COPY1]] into %[[DEST1]][0, 3] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x8xf32>
// CHECK-NEXT: %[[SLOT2:.+]] = tensor.extract_slice %[[DEST2]][0, 7] [2, 1] [1, 1] : tensor<2x8xf32> to tensor<2x1xf32>
// CHECK-NEXT: %[[COPY2:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : tensor<2x1xf32>) outs(%[[SLOT2]] : tensor<2x1xf32>)
// CHECK-NEXT: ^bb0(%[[X2:[^:]+]]: f32, %{{[^:]+}}: f32):
// CHECK-NEXT: linalg.yield %[[X2]] : f32
// CHECK: %[[DEST3:.+]] = tensor.insert_slice %[[COPY2]] into %[[DEST2]][0, 7] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x8xf32>
// CHECK-NEXT: return %[[DEST3]] : tensor<2x8xf32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>, %c: tensor<2x1xf32>) -> tensor<2x8xf32> {
  %0 = arr.concat %a, %b, %c dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Along dimension 0, i32.
// CHECK-LABEL: func.func @concat_dim0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1xi32>, %[[B:[^:]+]]: tensor<2xi32>) -> tensor<3xi32>
// CHECK: %[[DEST:.+]] = tensor.empty() : tensor<3xi32>
// CHECK-NEXT: %[[SLOT0:.+]] = tensor.extract_slice %[[DEST]][0] [1] [1] : tensor<3xi32> to tensor<1xi32>
// CHECK-NEXT: %[[COPY0:.+]] = linalg.generic {{.+}} ins(%[[A]] : tensor<1xi32>) outs(%[[SLOT0]] : tensor<1xi32>)
// CHECK: %[[DEST1:.+]] = tensor.insert_slice %[[COPY0]] into %[[DEST]][0] [1] [1] : tensor<1xi32> into tensor<3xi32>
// CHECK-NEXT: %[[SLOT1:.+]] = tensor.extract_slice %[[DEST1]][1] [2] [1] : tensor<3xi32> to tensor<2xi32>
// CHECK-NEXT: %[[COPY1:.+]] = linalg.generic {{.+}} ins(%[[B]] : tensor<2xi32>) outs(%[[SLOT1]] : tensor<2xi32>)
// CHECK: %[[DEST2:.+]] = tensor.insert_slice %[[COPY1]] into %[[DEST1]][1] [2] [1] : tensor<2xi32> into tensor<3xi32>
// CHECK-NEXT: return %[[DEST2]] : tensor<3xi32>
func.func @concat_dim0(%a: tensor<1xi32>, %b: tensor<2xi32>) -> tensor<3xi32> {
  %0 = arr.concat %a, %b dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// One piece: folded away.
// CHECK-LABEL: func.func @concat_one(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK-NEXT: return %[[A]] : tensor<2x3xf32>
func.func @concat_one(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = arr.concat %a dim = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @iota_i32(
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<2x3xi32>
// CHECK-NEXT: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(%[[INIT]] : tensor<2x3xi32>)
// CHECK-NEXT: ^bb0(%{{[^:]+}}: i32):
// CHECK-NEXT: %[[I:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[V:.+]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: linalg.yield %[[V]] : i32
// CHECK: return %[[R]] : tensor<2x3xi32>
func.func @iota_i32() -> tensor<2x3xi32> {
  %0 = arr.iota dim = 1 : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @iota_f32(
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<5xf32>)
// CHECK-NEXT: ^bb0(%{{[^:]+}}: f32):
// CHECK-NEXT: %[[I:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[I32:.+]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: %[[V:.+]] = arith.sitofp %[[I32]] : i32 to f32
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @iota_f32() -> tensor<5xf32> {
  %0 = arr.iota dim = 0 : tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// The body moves into an scf.for over [0, 10): the index argument becomes a
// tensor<i32> of the induction variable, the const argument the const operand
// itself. The inits (entry arguments here) are copied into tensors the loop
// owns; each yielded carry is copied, then materialized in its iter_arg
// (all copies before all materializations).
// CHECK-LABEL: func.func @for(
// CHECK-SAME: %[[W:[^:]+]]: tensor<3xf32>, %[[A0:[^:]+]]: tensor<3xf32>, %[[B0:[^:]+]]: tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
// CHECK-DAG: %[[LB:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[UB:.+]] = arith.constant 10 : index
// CHECK-DAG: %[[STEP:.+]] = arith.constant 1 : index
// CHECK: %[[A1:.+]] = linalg.copy ins(%[[A0]] : tensor<3xf32>)
// CHECK: %[[B1:.+]] = linalg.copy ins(%[[B0]] : tensor<f32>)
// CHECK: %[[R:.+]]:2 = scf.for %[[IV:[^ ]+]] = %[[LB]] to %[[UB]] step %[[STEP]] iter_args(%[[A:[^ ]+]] = %[[A1]], %[[B:[^ ]+]] = %[[B1]]) -> (tensor<3xf32>, tensor<f32>) {
// CHECK-NEXT: %[[I32:.+]] = arith.index_cast %[[IV]] : index to i32
// CHECK-NEXT: %[[IDX:.+]] = tensor.from_elements %[[I32]] : tensor<i32>
// CHECK: %[[A2:.+]] = linalg.generic {{.+}} ins(%[[A]], %[[W]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: arith.addf
// CHECK: %[[IF:.+]] = linalg.generic {{.+}} ins(%[[IDX]] : tensor<i32>)
// CHECK: arith.sitofp
// CHECK: %[[B2:.+]] = linalg.generic {{.+}} ins(%[[B]], %[[IF]] : tensor<f32>, tensor<f32>)
// CHECK: arith.addf
// CHECK: %[[CA:.+]] = linalg.copy ins(%[[A2]] : tensor<3xf32>)
// CHECK: %[[CB:.+]] = linalg.copy ins(%[[B2]] : tensor<f32>)
// CHECK-NEXT: %[[NA:.+]] = bufferization.materialize_in_destination %[[CA]] in %[[A]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[NB:.+]] = bufferization.materialize_in_destination %[[CB]] in %[[B]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: scf.yield %[[NA]], %[[NB]] : tensor<3xf32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<3xf32>, tensor<f32>
func.func @for(%w: tensor<3xf32>, %a0: tensor<3xf32>, %b0: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  %r:2 = arr.for 10 consts(%w : tensor<3xf32>) iter_args(%a0, %b0 : tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %a: tensor<3xf32>, %b: tensor<f32>):
    %a2 = arr.add %a, %wc : tensor<3xf32>
    %if = arr.convert %i : tensor<i32> -> tensor<f32>
    %b2 = arr.add %b, %if : tensor<f32>
    arr.yield %a2, %b2 : tensor<3xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<f32>
}

// -----

// Zero trips: no loop, the results are the inits.
// CHECK-LABEL: func.func @for_zero_trip(
// CHECK-SAME: %[[A0:[^:]+]]: tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: return %[[A0]] : tensor<3xi32>
func.func @for_zero_trip(%a: tensor<3xi32>) -> tensor<3xi32> {
  %r = arr.for 0 iter_args(%a : tensor<3xi32>) -> (tensor<3xi32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<3xi32>):
    arr.yield %x : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}

// -----

// A const yielded as the next carry is copied into a new tensor, then
// materialized in the carry.
// CHECK-LABEL: func.func @for_yield_const(
// CHECK-SAME: %[[W:[^:]+]]: tensor<3xi32>, %[[A0:[^:]+]]: tensor<3xi32>) -> tensor<3xi32>
// CHECK: %[[A1:.+]] = linalg.copy ins(%[[A0]] : tensor<3xi32>)
// CHECK: scf.for %{{[^ ]+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A:[^ ]+]] = %[[A1]]) -> (tensor<3xi32>) {
// CHECK: %[[E:.+]] = tensor.empty() : tensor<3xi32>
// CHECK-NEXT: %[[C:.+]] = linalg.copy ins(%[[W]] : tensor<3xi32>) outs(%[[E]] : tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: %[[NA:.+]] = bufferization.materialize_in_destination %[[C]] in %[[A]] : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT: scf.yield %[[NA]] : tensor<3xi32>
func.func @for_yield_const(%w: tensor<3xi32>, %a: tensor<3xi32>) -> tensor<3xi32> {
  %r = arr.for 2 consts(%w : tensor<3xi32>) iter_args(%a : tensor<3xi32>) -> (tensor<3xi32>) {
  ^bb0(%i: tensor<i32>, %wc: tensor<3xi32>, %x: tensor<3xi32>):
    arr.yield %wc : tensor<3xi32>
  }
  return %r : tensor<3xi32>
}

// -----

// Nested: the inner loop reads the function argument behind both consts, and
// each loop materializes its own carry. The inner loop starts from a copy of
// the outer carry (a block argument), and its result is copied before it is
// materialized in the outer carry.
// CHECK-LABEL: func.func @for_nested(
// CHECK-SAME: %[[M:[^:]+]]: tensor<3xf32>, %[[Z:[^:]+]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-DAG: %[[UB2:.+]] = arith.constant 2 : index
// CHECK: %[[Z1:.+]] = linalg.copy ins(%[[Z]] : tensor<3xf32>)
// CHECK: %[[R:.+]] = scf.for %[[I:[^ ]+]] = %{{.+}} to %[[UB2]] step %{{.+}} iter_args(%[[ACC:[^ ]+]] = %[[Z1]]) -> (tensor<3xf32>) {
// CHECK-NEXT: %[[I32:.+]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: tensor.from_elements %[[I32]] : tensor<i32>
// CHECK-DAG: %[[UB3:.+]] = arith.constant 3 : index
// CHECK: %[[ACC1:.+]] = linalg.copy ins(%[[ACC]] : tensor<3xf32>)
// CHECK: %[[IN:.+]] = scf.for %[[J:[^ ]+]] = %{{.+}} to %[[UB3]] step %{{.+}} iter_args(%[[ACC2:[^ ]+]] = %[[ACC1]]) -> (tensor<3xf32>) {
// CHECK-NEXT: %[[J32:.+]] = arith.index_cast %[[J]] : index to i32
// CHECK-NEXT: tensor.from_elements %[[J32]] : tensor<i32>
// CHECK: %[[S:.+]] = linalg.generic {{.+}} ins(%[[ACC2]], %[[M]] : tensor<3xf32>, tensor<3xf32>)
// CHECK: %[[CS:.+]] = linalg.copy ins(%[[S]] : tensor<3xf32>)
// CHECK-NEXT: %[[NS:.+]] = bufferization.materialize_in_destination %[[CS]] in %[[ACC2]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: scf.yield %[[NS]] : tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT: %[[C:.+]] = linalg.copy ins(%[[IN]] : tensor<3xf32>) outs(%[[E]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[NIN:.+]] = bufferization.materialize_in_destination %[[C]] in %[[ACC]] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: scf.yield %[[NIN]] : tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<3xf32>
func.func @for_nested(%m: tensor<3xf32>, %z: tensor<3xf32>) -> tensor<3xf32> {
  %r = arr.for 2 consts(%m : tensor<3xf32>) iter_args(%z : tensor<3xf32>) -> (tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %mc: tensor<3xf32>, %acc: tensor<3xf32>):
    %in = arr.for 3 consts(%mc : tensor<3xf32>) iter_args(%acc : tensor<3xf32>) -> (tensor<3xf32>) {
    ^bb0(%j: tensor<i32>, %mc2: tensor<3xf32>, %acc2: tensor<3xf32>):
      %s = arr.add %acc2, %mc2 : tensor<3xf32>
      arr.yield %s : tensor<3xf32>
    }
    arr.yield %in : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}
