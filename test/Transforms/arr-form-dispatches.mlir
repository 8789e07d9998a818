// RUN: vmapc-opt %s -split-input-file --arr-form-dispatches | FileCheck %s

// Softmax-like rows: y = exp(x); sum(y) * y + max(y). Both row reductions and
// the exp they read join the elementwise root: one kernel computes the whole
// entry, and the root carries the batch loop (dimension 0 of [8, 16]).

// CHECK-LABEL: func.func private @e_dispatch_0(
// CHECK-SAME:      %[[X:.+]]: memref<8x16xf32>, %[[OUT:.+]]: memref<8x16xf32>, %{{.+}}: index {sched.num_examples}) attributes {sched.kernel}
// CHECK:         %[[XT:.+]] = bufferization.to_tensor %[[X]] restrict
// CHECK:         %[[EXP:.+]] = linalg.generic {{.+}} ins(%[[XT]] : tensor<8x16xf32>)
// CHECK:           math.exp
// CHECK:         %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<8x16xf32>)
// CHECK:           arith.addf
// CHECK:         %[[MAX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<8x16xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[ROOT:.+]] = linalg.generic {{.+}} ins(%[[SUM]], %[[EXP]], %[[MAX]] : {{.+}}) {{.+}} attrs = {sched.batch_loop = 0 : i64}
// CHECK:         bufferization.materialize_in_destination %[[ROOT]] in restrict writable %[[OUT]]
// CHECK-NEXT:    return
// CHECK-NOT:   func.func private @e_dispatch_1
// CHECK-LABEL: func.func @e(
// CHECK-NEXT:    %[[N:.+]] = sched.num_examples : index
// CHECK-NOT:     linalg.
// CHECK:         %[[R:.+]] = sched.dispatch @e_dispatch_0(%arg0 : tensor<8x16xf32>) outs(%{{.+}} : tensor<8x16xf32>) scalars(%[[N]]) -> tensor<8x16xf32>
// CHECK-NOT:     linalg.
// CHECK:         return %[[R]]

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @e(%arg0: tensor<8x16xf32> {arr.name = "x"}) -> (tensor<8x16xf32> {arr.name = "out"}) attributes {arr.batch = 8 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
    %cst = arith.constant 0xFF800000 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.exp %in : f32
      linalg.yield %10 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8xf32>
    %3 = linalg.fill ins(%cst_0 : f32) outs(%2 : tensor<8xf32>) -> tensor<8xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x16xf32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<8xf32>
    %5 = tensor.empty() : tensor<8xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8xf32>) -> tensor<8xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x16xf32>) outs(%6 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.maximumf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<8xf32>
    %8 = tensor.empty() : tensor<8x16xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %1, %7 : tensor<8xf32>, tensor<8x16xf32>, tensor<8xf32>) outs(%8 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_1 : f32
      %11 = arith.addf %10, %in_2 : f32
      linalg.yield %11 : f32
    } -> tensor<8x16xf32>
    return %9 : tensor<8x16xf32>
  }
}

// -----

// concat((y * 2, y + 1)) with y = exp(x): y is read by both pieces, which go
// to different dispatches, so y stays a dispatch of its own (fusing it into
// either would leave the other without it). Each piece is computed straight
// into its slice of the output (its insert_slice is the root).

// CHECK-LABEL: func.func private @e_dispatch_0(
// CHECK-SAME:      %{{.+}}: memref<8x16xf32>, %[[Y:.+]]: memref<8x16xf32>, %{{.+}}: index {sched.num_examples})
// CHECK:         %[[EXP:.+]] = linalg.generic
// CHECK:           math.exp
// CHECK:         bufferization.materialize_in_destination %[[EXP]] in restrict writable %[[Y]]
// CHECK-LABEL: func.func private @e_dispatch_1(
// CHECK-SAME:      %{{.+}}: memref<8x16xf32>, %[[OUT1:.+]]: memref<8x32xf32>, %{{.+}}: index {sched.num_examples})
// CHECK-NOT:       math.exp
// CHECK:         %[[MUL:.+]] = linalg.generic {{.+}} attrs = {sched.batch_loop = 0 : i64}
// CHECK:           arith.mulf
// CHECK:         %[[SV1:.+]] = memref.subview %[[OUT1]][0, 0] [8, 16] [1, 1] : memref<8x32xf32> to memref<8x16xf32, strided<[32, 1]>>
// CHECK:         bufferization.materialize_in_destination %[[MUL]] in restrict writable %[[SV1]]
// CHECK-LABEL: func.func private @e_dispatch_2(
// CHECK-SAME:      %{{.+}}: memref<8x16xf32>, %[[OUT2:.+]]: memref<8x32xf32>, %{{.+}}: index {sched.num_examples})
// CHECK-NOT:       math.exp
// CHECK:         %[[ADD:.+]] = linalg.generic {{.+}} attrs = {sched.batch_loop = 0 : i64}
// CHECK:           arith.addf
// CHECK:         %[[SV2:.+]] = memref.subview %[[OUT2]][0, 16] [8, 16] [1, 1] : memref<8x32xf32> to memref<8x16xf32, strided<[32, 1], offset: 16>>
// CHECK:         bufferization.materialize_in_destination %[[ADD]] in restrict writable %[[SV2]]
// CHECK-LABEL: func.func @e(
// CHECK:         %[[YD:.+]] = sched.dispatch @e_dispatch_0(%arg0 : tensor<8x16xf32>) outs(%{{.+}} : tensor<8x16xf32>)
// CHECK:         %[[P1:.+]] = sched.dispatch @e_dispatch_1(%[[YD]] : tensor<8x16xf32>) outs(%{{.+}} : tensor<8x32xf32>)
// CHECK:         %[[P2:.+]] = sched.dispatch @e_dispatch_2(%[[YD]] : tensor<8x16xf32>) outs(%[[P1]] : tensor<8x32xf32>)
// CHECK:         return %[[P2]]

#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @e(%arg0: tensor<8x16xf32> {arr.name = "x"}) -> (tensor<8x32xf32> {arr.name = "out"}) attributes {arr.batch = 8 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.exp %in : f32
      linalg.yield %7 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8x32xf32>
    %3 = tensor.empty() : tensor<8x16xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%3 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.mulf %in, %cst_0 : f32
      linalg.yield %7 : f32
    } -> tensor<8x16xf32>
    %inserted_slice = tensor.insert_slice %4 into %2[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<8x32xf32>
    %5 = tensor.empty() : tensor<8x16xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<8x16xf32>) outs(%5 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %cst : f32
      linalg.yield %7 : f32
    } -> tensor<8x16xf32>
    %inserted_slice_1 = tensor.insert_slice %6 into %inserted_slice[0, 16] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<8x32xf32>
    return %inserted_slice_1 : tensor<8x32xf32>
  }
}

// -----

// w @ w does not depend on the example: fused into the batched matmul that
// reads it, every workgroup of examples would compute it again, so it is a
// dispatch of its own (no batch loop, no num_examples scalar). exp(x), read
// by the matmul, the row sum and the root, joins the root's dispatch with
// both of them; the concat's second piece is a third dispatch.

// CHECK-LABEL: func.func private @e_dispatch_0(
// CHECK-SAME:      %[[W:.+]]: memref<16x16xf32>, %[[WW:.+]]: memref<16x16xf32>) attributes {sched.kernel}
// CHECK:         %[[WT:.+]] = bufferization.to_tensor %[[W]]
// CHECK:         %[[MM:.+]] = linalg.matmul ins(%[[WT]], %[[WT]] : tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK-NOT:     sched.batch_loop
// CHECK:         bufferization.materialize_in_destination %[[MM]] in restrict writable %[[WW]]
// CHECK-LABEL: func.func private @e_dispatch_1(
// CHECK-SAME:      %{{.+}}: memref<8x16xf32>, %{{.+}}: memref<16x16xf32>, %{{.+}}: memref<8x32xf32>, %{{.+}}: index {sched.num_examples})
// CHECK:         math.exp
// CHECK:         linalg.matmul
// CHECK:         iterator_types = ["parallel", "reduction"]
// CHECK:         sched.batch_loop = 0 : i64
// CHECK-NOT:     arith.negf
// CHECK-LABEL: func.func private @e_dispatch_2(
// CHECK:         arith.negf
// CHECK-LABEL: func.func @e(
// CHECK:         %[[N:.+]] = sched.num_examples : index
// CHECK:         %[[WWD:.+]] = sched.dispatch @e_dispatch_0(%arg1 : tensor<16x16xf32>) outs(%{{.+}} : tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK:         %[[P1:.+]] = sched.dispatch @e_dispatch_1(%arg0, %[[WWD]] : tensor<8x16xf32>, tensor<16x16xf32>) outs(%{{.+}} : tensor<8x32xf32>) scalars(%[[N]])
// CHECK:         sched.dispatch @e_dispatch_2(%arg0 : tensor<8x16xf32>) outs(%[[P1]] : tensor<8x32xf32>) scalars(%[[N]])

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
module {
  func.func @e(%arg0: tensor<8x16xf32> {arr.name = "x"}, %arg1: tensor<16x16xf32> {arr.name = "w"}) -> (tensor<8x32xf32> {arr.name = "out"}) attributes {arr.batch = 8 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = math.exp %in : f32
      linalg.yield %16 : f32
    } -> tensor<8x16xf32>
    %2 = tensor.empty() : tensor<16x16xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %4 = linalg.matmul ins(%arg1, %arg1 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%3 : tensor<16x16xf32>) -> tensor<16x16xf32>
    %5 = tensor.empty() : tensor<8x16xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %7 = linalg.matmul ins(%1, %4 : tensor<8x16xf32>, tensor<16x16xf32>) outs(%6 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %8 = tensor.empty() : tensor<8xf32>
    %9 = linalg.fill ins(%cst : f32) outs(%8 : tensor<8xf32>) -> tensor<8xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<8x16xf32>) outs(%9 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.addf %in, %out : f32
      linalg.yield %16 : f32
    } -> tensor<8xf32>
    %11 = tensor.empty() : tensor<8x32xf32>
    %12 = tensor.empty() : tensor<8x16xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%7, %10, %1 : tensor<8x16xf32>, tensor<8xf32>, tensor<8x16xf32>) outs(%12 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
      %16 = arith.mulf %in_1, %in_2 : f32
      %17 = arith.addf %in, %16 : f32
      linalg.yield %17 : f32
    } -> tensor<8x16xf32>
    %inserted_slice = tensor.insert_slice %13 into %11[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<8x32xf32>
    %14 = tensor.empty() : tensor<8x16xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x16xf32>) outs(%14 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %16 = arith.negf %in : f32
      linalg.yield %16 : f32
    } -> tensor<8x16xf32>
    %inserted_slice_0 = tensor.insert_slice %15 into %inserted_slice[0, 16] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<8x32xf32>
    return %inserted_slice_0 : tensor<8x32xf32>
  }
}

// -----

// An update in place: the root's payload reads its init, which the entry
// computes in a loop (not a linalg op of this block). The dispatch's init
// is that value (tied: bufferization writes it in place where it dies) and
// the kernel starts from its output binding's contents, which it does not
// also bind as an input.

// CHECK-LABEL: func.func private @upd_dispatch_2(
// CHECK-SAME:      %[[I:.+]]: memref<i32>, %[[OUT:.+]]: memref<4x8xf32>)
// CHECK:         %[[IT:.+]] = bufferization.to_tensor %[[I]] restrict
// CHECK:         %[[H:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         %[[R:.+]] = linalg.generic {{.+}} ins(%[[IT]] : tensor<i32>) outs(%[[H]] : tensor<4x8xf32>)
// CHECK:         bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK-LABEL: func.func @upd(
// CHECK:         %[[LOOP:.+]] = scf.for
// CHECK:         sched.dispatch @upd_dispatch_2(%{{.+}} : tensor<i32>) outs(%[[LOOP]] : tensor<4x8xf32>) -> tensor<4x8xf32>

#map = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
module {
  func.func @upd(%i: tensor<i32> {arr.name = "i"}) -> (tensor<4x8xf32> {arr.name = "out"}) attributes {arr.batch = 4 : i64, arr.in_axes = [unit], arr.out_axes = [0]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %h = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %f) -> (tensor<4x8xf32>) {
      %e2 = tensor.empty() : tensor<4x8xf32>
      %n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%acc : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %s = arith.addf %in, %one : f32
        linalg.yield %s : f32
      } -> tensor<4x8xf32>
      scf.yield %n : tensor<4x8xf32>
    }
    %r = linalg.generic {indexing_maps = [#scalar, #map], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<i32>) outs(%h : tensor<4x8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %p = linalg.index 1 : index
      %pi = arith.index_cast %p : index to i32
      %hit = arith.cmpi eq, %in, %pi : i32
      %s = arith.addf %out, %one : f32
      %y = arith.select %hit, %s, %out : f32
      linalg.yield %y : f32
    } -> tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}

// -----

// An update of a value that a free op of the same dispatch also reads (a
// slice of it, cloned into the kernel): the value stays an input binding
// as well as the output the kernel starts from, so that the slice reads it.

// CHECK-LABEL: func.func private @col_dispatch_1(
// CHECK-SAME:      %[[T:.+]]: memref<4x2xf32>, %[[OUT:.+]]: memref<4x2xf32>, %{{.+}}: index {sched.num_examples})
// CHECK:         %[[TT:.+]] = bufferization.to_tensor %[[T]] restrict
// CHECK:         %[[OT:.+]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[TT]][0, 0] [4, 1] [1, 1]
// CHECK:         linalg.generic {{.+}} ins(%[[S]] : tensor<4xf32>) outs(%[[OT]] : tensor<4x2xf32>)
// CHECK-LABEL: func.func @col(
// CHECK:         %[[E:.+]] = sched.dispatch @col_dispatch_0(
// CHECK:         sched.dispatch @col_dispatch_1(%[[E]] : tensor<4x2xf32>) outs(%[[E]] : tensor<4x2xf32>)

#map = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0)>
module {
  func.func @col(%x: tensor<4x2xf32> {arr.name = "x"}) -> (tensor<4x2xf32> {arr.name = "out"}) attributes {arr.batch = 4 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
    %e = tensor.empty() : tensor<4x2xf32>
    %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x2xf32>) outs(%e : tensor<4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
    } -> tensor<4x2xf32>
    %s = tensor.extract_slice %t[0, 0] [4, 1] [1, 1] : tensor<4x2xf32> to tensor<4xf32>
    %r = linalg.generic {indexing_maps = [#col, #map], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4xf32>) outs(%t : tensor<4x2xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %m = arith.maximumf %acc, %in : f32
      linalg.yield %m : f32
    } -> tensor<4x2xf32>
    return %r : tensor<4x2xf32>
  }
}
