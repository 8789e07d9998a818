// RUN: vmapc-opt %s --split-input-file --arr-cpu-lower-vectors | FileCheck %s

// A register tile's column of A: vector<8> read down the rows, broadcast
// along the tile's 32 columns (vector<32x8>) and transposed to the tile's
// vector<8x32> (the order vectorization reads A in when the batch loop is
// not the generic's first: the RNN's `w @ h`). The transpose of the
// broadcast is one broadcast: each row of the tile is the splat of one
// element of the column, with no shuffle of the flattened 256 lanes.
// CHECK-LABEL: func.func private @column(
// CHECK-NOT:     vector.transpose
// CHECK-NOT:     vector.shuffle
// CHECK:         %[[COL:.+]] = vector.transfer_read {{.+}} : memref<8x64xf32>, vector<8xf32>
// CHECK:         %[[E0:.+]] = vector.extract %[[COL]][0] : f32 from vector<8xf32>
// CHECK-NEXT:    %[[S0:.+]] = vector.broadcast %[[E0]] : f32 to vector<32xf32>
// CHECK-NEXT:    vector.insert %[[S0]], %{{.+}} [0] : vector<32xf32> into vector<8x32xf32>
// CHECK:         %[[E7:.+]] = vector.extract %[[COL]][7] : f32 from vector<8xf32>
// CHECK-NEXT:    %[[S7:.+]] = vector.broadcast %[[E7]] : f32 to vector<32xf32>
// CHECK-NEXT:    vector.insert %[[S7]], %{{.+}} [7] : vector<32xf32> into vector<8x32xf32>
// CHECK-NOT:     vector.shuffle
// CHECK:         arith.mulf {{.+}} : vector<8x32xf32>
func.func private @column(%a: memref<8x64xf32>, %w: memref<64x32xf32>, %o: memref<8x32xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %p = ub.poison : f32
  %col = vector.transfer_read %a[%c0, %c5], %p {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x64xf32>, vector<8xf32>
  %b = vector.broadcast %col : vector<8xf32> to vector<32x8xf32>
  %t = vector.transpose %b, [1, 0] : vector<32x8xf32> to vector<8x32xf32>
  %row = vector.transfer_read %w[%c5, %c0], %p {in_bounds = [true]} : memref<64x32xf32>, vector<32xf32>
  %rb = vector.broadcast %row : vector<32xf32> to vector<8x32xf32>
  %m = arith.mulf %t, %rb fastmath<contract> : vector<8x32xf32>
  vector.transfer_write %m, %o[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  return
}

// -----

// A transposed splat is a splat of the transposed shape.
// CHECK-LABEL: func.func private @splat(
// CHECK:         %[[S:.+]] = memref.load
// CHECK-NEXT:    vector.broadcast %[[S]] : f32 to vector<8x4xf32>
// CHECK-NOT:     vector.transpose
func.func private @splat(%x: memref<1xf32>, %o: memref<8x4xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %s = memref.load %x[%c0] : memref<1xf32>
  %b = vector.broadcast %s : f32 to vector<4x8xf32>
  %t = vector.transpose %b, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  vector.transfer_write %t, %o[%c0, %c0] {in_bounds = [true, true]} : vector<8x4xf32>, memref<8x4xf32>
  return
}

// -----

// A transpose that reorders the source's own dimensions (4 x 8 to 8 x 4
// under a broadcast one) is a real transpose: no shape_cast stands in for
// it. Element [0, 1, 0] of the result is x[0, 1].
// CHECK-LABEL: func.func private @reorders(
// CHECK-NOT:     vector.shape_cast
// CHECK:         %[[X01:.+]] = memref.load %{{.+}}[%c0, %c1] : memref<4x8xf32>
// CHECK-NEXT:    vector.insert %[[X01]], %{{.+}} [0, 1, 0] : f32 into vector<2x8x4xf32>
// CHECK-NOT:     vector.shape_cast
func.func private @reorders(%x: memref<4x8xf32>, %o: memref<2x8x4xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %x[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %b = vector.broadcast %v : vector<4x8xf32> to vector<2x4x8xf32>
  %t = vector.transpose %b, [0, 2, 1] : vector<2x4x8xf32> to vector<2x8x4xf32>
  vector.transfer_write %t, %o[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<2x8x4xf32>, memref<2x8x4xf32>
  return
}
