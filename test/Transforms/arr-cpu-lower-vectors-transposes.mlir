// RUN: vmapc-opt %s --split-input-file --arr-cpu-lower-vectors=avx-shuffles=true | FileCheck %s --check-prefix=AVX
// RUN: vmapc-opt %s --split-input-file --arr-cpu-lower-vectors | FileCheck %s --check-prefix=GENERIC

// An 8 x 8 f32 transpose at the AVX levels: the 8 rows interleaved in pairs
// (unpcklps, unpckhps), then in 64-bit pairs (shufps 0x44, 0xEE), then the
// 128-bit halves of rows i and i + 4 (vperm2f128 0x20, 0x31): 24 shuffles
// of two 8-lane vectors, and no vector wider than a row. Without the option
// it is upstream's shuffle of the whole 64-lane vector.
// AVX-LABEL: func.func private @t8x8(
// AVX-NOT:     vector<64xf32>
// AVX-COUNT-8: vector.extract %{{.+}}[{{[0-7]}}] : vector<8xf32> from vector<8x8xf32>
// AVX:         %[[U0:.+]] = vector.shuffle %[[R0:.+]], %[[R1:.+]] [0, 8, 1, 9, 4, 12, 5, 13] : vector<8xf32>, vector<8xf32>
// AVX-NEXT:    %[[U1:.+]] = vector.shuffle %[[R0]], %[[R1]] [2, 10, 3, 11, 6, 14, 7, 15] : vector<8xf32>, vector<8xf32>
// AVX-NEXT:    %[[U2:.+]] = vector.shuffle %[[R2:.+]], %[[R3:.+]] [0, 8, 1, 9, 4, 12, 5, 13]
// AVX-COUNT-5: vector.shuffle
// AVX-NEXT:    %[[S0:.+]] = vector.shuffle %[[U0]], %[[U2]] [0, 1, 8, 9, 4, 5, 12, 13] : vector<8xf32>, vector<8xf32>
// AVX-NEXT:    %[[S1:.+]] = vector.shuffle %[[U0]], %[[U2]] [2, 3, 10, 11, 6, 7, 14, 15] : vector<8xf32>, vector<8xf32>
// AVX-COUNT-2: vector.shuffle
// AVX-NEXT:    %[[S4:.+]] = vector.shuffle %{{.+}}, %{{.+}} [0, 1, 8, 9, 4, 5, 12, 13]
// AVX-COUNT-3: vector.shuffle
// AVX-NEXT:    %[[C0:.+]] = vector.shuffle %[[S0]], %[[S4]] [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// AVX-NEXT:    %[[C4:.+]] = vector.shuffle %[[S0]], %[[S4]] [4, 5, 6, 7, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// AVX-NEXT:    %[[T0:.+]] = vector.insert %[[C0]], %{{.+}} [0] : vector<8xf32> into vector<8x8xf32>
// AVX-NEXT:    vector.insert %[[C4]], %[[T0]] [4] : vector<8xf32> into vector<8x8xf32>
// AVX-COUNT-6: vector.shuffle {{.+}} : vector<8xf32>, vector<8xf32>
// AVX-NOT:     vector.shuffle
// AVX:         return

// GENERIC-LABEL: func.func private @t8x8(
// GENERIC:       vector.shuffle {{.+}} : vector<64xf32>, vector<64xf32>

func.func private @t8x8(%m: memref<8x8xf32>, %o: memref<8x8xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true, true]} : memref<8x8xf32>, vector<8x8xf32>
  %t = vector.transpose %v, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
  vector.transfer_write %t, %o[%c0, %c0] {in_bounds = [true, true]} : vector<8x8xf32>, memref<8x8xf32>
  return
}

// -----

// The same with a leading unit dimension (a 1 x 8 x 8 tile): rows are
// extracted and inserted at [0, i].
// AVX-LABEL: func.func private @t1x8x8(
// AVX-NOT:     vector<64xf32>
// AVX:         vector.extract %{{.+}}[0, 7] : vector<8xf32> from vector<1x8x8xf32>
// AVX-COUNT-24: vector.shuffle {{.+}} : vector<8xf32>, vector<8xf32>
// AVX:         vector.insert %{{.+}}, %{{.+}} [0, 7] : vector<8xf32> into vector<1x8x8xf32>

func.func private @t1x8x8(%m: memref<1x8x8xf32>, %o: memref<1x8x8xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %c0, %c0], %p {in_bounds = [true, true, true]} : memref<1x8x8xf32>, vector<1x8x8xf32>
  %t = vector.transpose %v, [0, 2, 1] : vector<1x8x8xf32> to vector<1x8x8xf32>
  vector.transfer_write %t, %o[%c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x8x8xf32>, memref<1x8x8xf32>
  return
}

// -----

// A 4 x 8 transpose at the AVX levels is x86vector's: 12 shuffles of 8-lane
// rows, each result row a 4-lane half of one of them.
// AVX-LABEL: func.func private @t4x8(
// AVX-NOT:     vector<32xf32>
// AVX-COUNT-12: vector.shuffle {{.+}} : vector<8xf32>, vector<8xf32>
// AVX-COUNT-8: vector.insert %{{.+}}, %{{.+}} [{{[0-7]}}] : vector<4xf32> into vector<8x4xf32>
// GENERIC-LABEL: func.func private @t4x8(
// GENERIC:       vector.shuffle {{.+}} : vector<32xf32>, vector<32xf32>

func.func private @t4x8(%m: memref<4x8xf32>, %o: memref<8x4xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  vector.transfer_write %t, %o[%c0, %c0] {in_bounds = [true, true]} : vector<8x4xf32>, memref<8x4xf32>
  return
}
