// RUN: vmapc-opt %s --arr-fuse-siblings -split-input-file | FileCheck %s
// RUN: vmapc-opt %s --arr-fuse-siblings=max-payload-ops=4 -split-input-file | FileCheck %s --check-prefix=CAP
// RUN: vmapc-opt %s --arr-fuse-siblings=max-operands=3 -split-input-file | FileCheck %s --check-prefix=OPERANDS

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Three ops read %x over [4, 8]: one generic at the first, %x read once,
// %b's other input (a row broadcast) kept with its map, the results in
// order, each with a tensor.empty of its own.
// CHECK-LABEL: func.func @siblings(
// CHECK-SAME: %[[X:.+]]: tensor<4x8xf32>, %[[ROW:.+]]: tensor<8xf32>)
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<4x8xi1>
// CHECK: %[[F:.+]]:3 = linalg.generic
// CHECK-SAME: indexing_maps = [#[[MAP:map[0-9]*]], #[[ROW_MAP:map[0-9]*]], #[[MAP]], #[[MAP]], #[[MAP]]]
// CHECK-SAME: ins(%[[X]], %[[ROW]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-SAME: outs(%[[E0]], %[[E1]], %[[E2]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %[[IN_ROW:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32, %{{.+}}: i1):
// CHECK-NEXT: %[[A:.+]] = arith.negf %[[IN]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.addf %[[IN]], %[[IN_ROW]] : f32
// CHECK-NEXT: %[[C:.+]] = arith.cmpf olt, %[[IN]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[A]], %[[B]], %[[C]] : f32, f32, i1
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @siblings(%x: tensor<4x8xf32>, %row: tensor<8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %row : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %0 = arith.addf %in, %r : f32
    linalg.yield %0 : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xi1>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e2 : tensor<4x8xi1>) {
  ^bb0(%in: f32, %out: i1):
    %0 = arith.cmpf olt, %in, %in : f32
    linalg.yield %0 : i1
  } -> tensor<4x8xi1>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>
}

// With at most 4 payload ops, the fused payload holds the yield and three
// ops: the fourth sibling starts a second group.
// CAP-LABEL: func.func @four_siblings(
// CAP: %[[F:.+]]:3 = linalg.generic
// CAP-COUNT-3: arith.negf
// CAP: %[[G:.+]] = linalg.generic
// CAP: arith.negf
// CAP: return %[[F]]#0, %[[F]]#1, %[[F]]#2, %[[G]]
// CHECK-LABEL: func.func @four_siblings(
// CHECK: %{{.+}}:4 = linalg.generic
// CHECK-NOT: linalg.generic
// With at most 3 operands, %x and two outputs: two groups of two.
// OPERANDS-LABEL: func.func @four_siblings(
// OPERANDS: %[[F:.+]]:2 = linalg.generic
// OPERANDS: %[[G:.+]]:2 = linalg.generic
// OPERANDS-NOT: linalg.generic
// OPERANDS: return %[[F]]#0, %[[F]]#1, %[[G]]#0, %[[G]]#1
func.func @four_siblings(%x: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %a, %b, %c, %d : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Siblings through a chain of shared inputs: %a and %b share %x, %b and %c
// share %y, so all three fuse although %a and %c share nothing.
// CHECK-LABEL: func.func @transitive(
// CHECK-SAME: %[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<16xf32>, tensor<16xf32>)
// CHECK-NOT: linalg.generic
func.func @transitive(%x: tensor<16xf32>, %y: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %a, %b, %c : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// What stays apart: ops with no input in common (%x and %y), with other
// loop bounds (%z), an op that reads the result of a sibling (%dep reads
// %x and %a), and an op that reads its `outs` (%acc).
// CHECK-LABEL: func.func @apart(
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: linalg.generic
func.func @apart(%x: tensor<16xf32>, %y: tensor<16xf32>, %z: tensor<8xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<8xf32>) outs(%e8 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %dep = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.subf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %acc = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%y : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %b, %dep, %c, %acc, %a : tensor<16xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A sibling whose other input is computed after the first one of the group
// cannot move up to it; the first one moves down instead: %c reads %b,
// computed after %a, and %a's result is used only after %c.
// CHECK-LABEL: func.func @sink(
// CHECK-SAME: %[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>)
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<16xf32>)
// CHECK: %[[AC:.+]]:2 = linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<16xf32>, tensor<16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[AC]]#0, %[[AC]]#1
func.func @sink(%x: tensor<16xf32>, %y: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %a, %c : tensor<16xf32>, tensor<16xf32>
}

// A sibling whose result is used before the last one of the group cannot
// move down to it; the last one moves up instead: %s (a reduction, not a
// candidate) reads %a before %c.
// CHECK-LABEL: func.func @hoist(
// CHECK-SAME: %[[X:.+]]: tensor<16xf32>, %[[INIT:.+]]: tensor<f32>)
// CHECK: %[[AC:.+]]:2 = linalg.generic {{.*}} ins(%[[X]] : tensor<16xf32>)
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[AC]]#0 : tensor<16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]], %[[AC]]#1
func.func @hoist(%x: tensor<16xf32>, %init: tensor<f32>)
    -> (tensor<f32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %s, %c : tensor<f32>, tensor<16xf32>
}

// Neither: %c reads %b, computed after %a, and %s reads %a before %c. %c
// starts a new group, which %d, a later reader of %x, joins.
// CHECK-LABEL: func.func @new_group(
// CHECK-SAME: %[[X:.+]]: tensor<16xf32>, %[[Y:.+]]: tensor<16xf32>, %[[INIT:.+]]: tensor<f32>)
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<16xf32>)
// CHECK: %[[S:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<16xf32>)
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<16xf32>)
// CHECK: %[[CD:.+]]:2 = linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<16xf32>, tensor<16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]], %[[CD]]#0, %[[CD]]#1
func.func @new_group(%x: tensor<16xf32>, %y: tensor<16xf32>, %init: tensor<f32>)
    -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %s = linalg.generic {indexing_maps = [#id, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%a : tensor<16xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %b : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %s, %c, %d : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A result inserted into a larger tensor stays where it is, so that
// bufferization writes it in place into the destination.
// CHECK-LABEL: func.func @inserted(
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @inserted(%x: tensor<16xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %dest = tensor.empty() : tensor<32xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %d1 = tensor.insert_slice %a into %dest[0] [16] [1] : tensor<16xf32> into tensor<32xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  %d2 = tensor.insert_slice %b into %d1[16] [16] [1] : tensor<16xf32> into tensor<32xf32>
  return %d2 : tensor<32xf32>
}
