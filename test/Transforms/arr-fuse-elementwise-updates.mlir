// RUN: vmapc-opt %s --arr-fuse-elementwise | FileCheck %s

// A producer whose payload reads its init updates its destination (a
// scatter): it does not fuse into a consumer, whose larger iteration space
// (here the consumer broadcasts it over 7 examples) would apply the update
// once per extra iteration. An elementwise producer of the same consumer
// still fuses.

#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
#scalar1 = affine_map<(d0) -> ()>

// CHECK-LABEL: func.func @update_then_broadcast(
// CHECK:         %[[U:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<i32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK:           arith.select
// CHECK:         %[[R:.+]] = linalg.generic {{.+}} ins(%[[U]] : tensor<4xf32>) outs(%{{.+}} : tensor<7x4xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:       arith.select
// CHECK:         return %[[R]]
func.func @update_then_broadcast(%x: tensor<4xf32>, %i: tensor<i32>) -> tensor<7x4xf32> {
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %u = linalg.generic {indexing_maps = [#scalar1, #id1], iterator_types = ["parallel"]} ins(%i : tensor<i32>) outs(%x : tensor<4xf32>) {
  ^bb0(%in: i32, %acc: f32):
    %p = linalg.index 0 : index
    %pi = arith.index_cast %p : index to i32
    %hit = arith.cmpi eq, %in, %pi : i32
    %s = arith.addf %acc, %one : f32
    %y = arith.select %hit, %s, %acc : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<7x4xf32>
  %r = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<4xf32>) outs(%e : tensor<7x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %half : f32
    linalg.yield %m : f32
  } -> tensor<7x4xf32>
  return %r : tensor<7x4xf32>
}
