// RUN: vmapc-opt %s -split-input-file --arr-outputs-to-destinations | FileCheck %s
// RUN: vmapc-opt %s -split-input-file --arr-outputs-to-destinations=stage-all | FileCheck %s --check-prefix=ALL

// Each result of an entry becomes a trailing arr.output argument, written by
// materialize_in_destination (its tensor form: one-shot bufferization then
// computes the value in the writable argument's buffer), and the entry
// returns nothing. The mapped input and the mapped output get arr.staging; the
// unmapped input does not, unless stage-all. Inputs are not writable.

// CHECK-LABEL: func.func @e(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<8x4xf32> {arr.name = "x", arr.staging, bufferization.writable = false},
// CHECK-SAME:    %[[W:[^:]+]]: tensor<4xf32> {arr.name = "w", bufferization.writable = false},
// CHECK-SAME:    %[[OUT:[^:]+]]: tensor<8xf32> {arr.name = "out", arr.output, arr.staging, bufferization.writable = true})
// CHECK-SAME:    attributes {arr.batch = 8 : i64
// CHECK:         %[[R:.+]] = linalg.generic
// CHECK:         bufferization.materialize_in_destination %[[R]] in %[[OUT]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    return{{$}}

// ALL-LABEL: func.func @e(
// ALL-SAME:    tensor<8x4xf32> {arr.name = "x", arr.staging, bufferization.writable = false},
// ALL-SAME:    tensor<4xf32> {arr.name = "w", arr.staging, bufferization.writable = false},
// ALL-SAME:    tensor<8xf32> {arr.name = "out", arr.output, arr.staging, bufferization.writable = true})
func.func @e(%x: tensor<8x4xf32> {arr.name = "x"}, %w: tensor<4xf32> {arr.name = "w"}) -> (tensor<8xf32> {arr.name = "out"})
    attributes {arr.batch = 8 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, d) -> (b, d)>, affine_map<(b, d) -> (d)>, affine_map<(b, d) -> (b)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<8x4xf32>, tensor<4xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A value returned twice: the first output takes it in place, the second a
// copy, and every copy comes before every materialization. An unmapped
// output (out axis unit) is not staged. Private helpers are not entries.

// CHECK-LABEL: func.func private @helper(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x2xf32> {arr.staging, bufferization.writable = false},
// CHECK-SAME:    %[[O0:[^:]+]]: tensor<4x2xf32> {arr.output, arr.staging, bufferization.writable = true},
// CHECK-SAME:    %[[O1:[^:]+]]: tensor<4x2xf32> {arr.output, bufferization.writable = true})
// CHECK:         %[[N:.+]] = arith.negf %[[X]]
// CHECK:         %[[C:.+]] = linalg.copy ins(%[[N]] : tensor<4x2xf32>)
// CHECK-NEXT:    bufferization.materialize_in_destination %[[N]] in %[[O0]]
// CHECK-NEXT:    bufferization.materialize_in_destination %[[C]] in %[[O1]]
// CHECK-NEXT:    return{{$}}
func.func @twice(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    attributes {arr.batch = 4 : i64, arr.in_axes = [0], arr.out_axes = [0, unit]} {
  %n = arith.negf %x : tensor<4x2xf32>
  return %n, %n : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A returned value that another op updates in place (the init of a
// destination-passing op: `return (y.at[0].add(1.0), y)`) is returned
// through a copy: its output cannot be the buffer the update writes.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @updated(
// CHECK-SAME:    %[[O0:[^:]+]]: tensor<4x2xf32> {arr.output, arr.staging, bufferization.writable = true},
// CHECK-SAME:    %[[O1:[^:]+]]: tensor<4x2xf32> {arr.output, arr.staging, bufferization.writable = true})
// CHECK:         %[[Y:.+]] = arith.negf
// CHECK:         %[[U:.+]] = linalg.generic {{.+}} outs(%[[Y]] : tensor<4x2xf32>)
// CHECK:         %[[C:.+]] = linalg.copy ins(%[[Y]] : tensor<4x2xf32>)
// CHECK-NEXT:    bufferization.materialize_in_destination %[[U]] in %[[O0]]
// CHECK-NEXT:    bufferization.materialize_in_destination %[[C]] in %[[O1]]
func.func @updated(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>)
    attributes {arr.batch = 4 : i64, arr.in_axes = [0], arr.out_axes = [0, 0]} {
  %y = arith.negf %x : tensor<4x2xf32>
  %u = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%y : tensor<4x2xf32>) {
  ^bb0(%o: f32):
    %one = arith.constant 1.0 : f32
    %a = arith.addf %o, %one : f32
    linalg.yield %a : f32
  } -> tensor<4x2xf32>
  return %u, %y : tensor<4x2xf32>, tensor<4x2xf32>
}

// -----

// A result built by insert_slices into a tensor.empty (a concat) is built in
// the output: the empty tensor's uses become the output argument (the dead
// tensor.empty is left to the canonicalizer).

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<2x3xf32> {{.*}}, %[[OUT:[^:]+]]: tensor<2x6xf32> {arr.output
// CHECK:         %[[P:.+]] = tensor.insert_slice %[[A]] into %[[OUT]][0, 0] [2, 3] [1, 1]
// CHECK:         %[[Q:.+]] = tensor.insert_slice %[[A]] into %[[P]][0, 3] [2, 3] [1, 1]
// CHECK:         bufferization.materialize_in_destination %[[Q]] in %[[OUT]]
func.func @concat(%a: tensor<2x3xf32>) -> tensor<2x6xf32>
    attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  %e = tensor.empty() : tensor<2x6xf32>
  %p = tensor.insert_slice %a into %e[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
  %q = tensor.insert_slice %a into %p[0, 3] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x6xf32>
  return %q : tensor<2x6xf32>
}
