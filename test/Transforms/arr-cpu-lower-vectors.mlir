// RUN: vmapc-opt %s --arr-cpu-lower-vectors | FileCheck %s

// A 4 x 16 register tile of a contraction (one reduction step) and the
// reduction of its rows. The contraction becomes one multiply-add per row,
// on vectors of 16 lanes, with the contract flag (an FMA where the ISA has
// one), the A column read as scalars and broadcast; the 2-D reduction
// becomes one 1-D vector.reduction per row.
// CHECK-LABEL: func.func private @k(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<4x1xf32>,
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.multi_reduction
// CHECK:         %[[L0:.+]] = memref.load %[[X]][%c0, %c0] : memref<4x1xf32>
// CHECK-NEXT:    %[[A0:.+]] = vector.broadcast %[[L0]] : f32 to vector<16xf32>
// CHECK:         %[[M0:.+]] = arith.mulf %[[A0]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT:    %[[R0:.+]] = arith.addf %[[M0]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         %[[L1:.+]] = memref.load %[[X]][%c1, %c0] : memref<4x1xf32>
// CHECK-NEXT:    %[[A1:.+]] = vector.broadcast %[[L1]] : f32 to vector<16xf32>
// CHECK:         %[[M1:.+]] = arith.mulf %[[A1]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT:    %[[R1:.+]] = arith.addf %[[M1]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         %[[L2:.+]] = memref.load %[[X]][%c2, %c0] : memref<4x1xf32>
// CHECK-NEXT:    %[[A2:.+]] = vector.broadcast %[[L2]] : f32 to vector<16xf32>
// CHECK:         %[[M2:.+]] = arith.mulf %[[A2]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT:    %[[R2:.+]] = arith.addf %[[M2]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         %[[L3:.+]] = memref.load %[[X]][%c3, %c0] : memref<4x1xf32>
// CHECK-NEXT:    %[[A3:.+]] = vector.broadcast %[[L3]] : f32 to vector<16xf32>
// CHECK:         %[[M3:.+]] = arith.mulf %[[A3]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT:    %[[R3:.+]] = arith.addf %[[M3]], %{{.+}} fastmath<contract> : vector<16xf32>
// CHECK:         vector.transfer_write
// CHECK:         vector.reduction <add>, %[[R0]], %{{.+}} : vector<16xf32> into f32
// CHECK:         vector.reduction <add>, %[[R1]], %{{.+}} : vector<16xf32> into f32
// CHECK:         vector.reduction <add>, %[[R2]], %{{.+}} : vector<16xf32> into f32
// CHECK:         vector.reduction <add>, %[[R3]], %{{.+}} : vector<16xf32> into f32
// CHECK:         vector.store %{{.+}}, %{{.+}}[%{{.+}}] : memref<4xf32>, vector<4xf32>
// CHECK-NOT:     vector.contract
// CHECK-NOT:     vector.multi_reduction

#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func private @k(%x: memref<4x1xf32>, %w: memref<1x16xf32>, %o: memref<4x16xf32>, %r: memref<4xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %va = vector.transfer_read %x[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x1xf32>, vector<4x1xf32>
  %vb = vector.transfer_read %w[%c0, %c0], %p {in_bounds = [true, true]} : memref<1x16xf32>, vector<1x16xf32>
  %acc = vector.transfer_read %o[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
  %d = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %acc : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
  vector.transfer_write %d, %o[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  %s = vector.multi_reduction <add>, %d, %zero [1] : vector<4x16xf32> to vector<4xf32>
  vector.transfer_write %s, %r[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
  return
}
