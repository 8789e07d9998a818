// Lowers arr to linalg with vmapc-opt, then through the upstream CPU pipeline
// of docs/toolchain.md, runs it with mlir-runner and checks the exact numbers.
//
// RUN: vmapc-opt %s --convert-arr-to-linalg \
// RUN: | mlir-opt --pass-pipeline="builtin.module(eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline,convert-bufferization-to-memref,convert-linalg-to-loops,convert-math-to-libm,convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-vector-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)" \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

// Lowest index wins ties; an all-+inf row gives index 0.
func.func @argmin_rows(%x: tensor<4x4xf32>) -> tensor<4xi32> {
  %0 = arr.argmin %x, axis = 1 : (tensor<4x4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

func.func @argmax_rows(%x: tensor<4x4xf32>) -> tensor<4xi32> {
  %0 = arr.argmax %x, axis = 1 : (tensor<4x4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// i32, over axis 0; a column of INT_MAX gives index 0.
func.func @argmin_cols_i32(%x: tensor<3x4xi32>) -> tensor<4xi32> {
  %0 = arr.argmin %x, axis = 0 : (tensor<3x4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

func.func @matvec(%m: tensor<2x3xf32>, %v: tensor<3xf32>) -> tensor<2xf32> {
  %0 = arr.dot_general %m, %v, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

func.func @matmul(%m: tensor<2x3xf32>, %n: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %0 = arr.dot_general %m, %n, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// The rhs is shared by both batch elements (read through a broadcast map).
func.func @one_side_batched(%l: tensor<2x2x3xf32>, %n: tensor<3x2xf32>) -> tensor<2x2x2xf32> {
  %0 = arr.dot_general %l, %n, lhs_batch = [], rhs_batch = [], lhs_contract = [2], rhs_contract = [0] : (tensor<2x2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

func.func @batch_matmul(%l: tensor<2x2x3xf32>, %r: tensor<2x3x2xf32>) -> tensor<2x2x2xf32> {
  %0 = arr.dot_general %l, %r, lhs_batch = [0], rhs_batch = [0], lhs_contract = [2], rhs_contract = [1] : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// All-pairs squared distances and the nearest reference of each query.
func.func @pairwise(%q: tensor<2x3xf32>, %refs: tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<2xi32>) {
  %qb = arr.broadcast_in_dim %q, dims = [0, 2] : (tensor<2x3xf32>) -> tensor<2x3x3xf32>
  %rb = arr.broadcast_in_dim %refs, dims = [1, 2] : (tensor<3x3xf32>) -> tensor<2x3x3xf32>
  %d = arr.sub %qb, %rb : tensor<2x3x3xf32>
  %sq = arr.mul %d, %d : tensor<2x3x3xf32>
  %s = arr.reduce_sum %sq, dims = [2] : (tensor<2x3x3xf32>) -> tensor<2x3xf32>
  %i = arr.argmin %s, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
  return %s, %i : tensor<2x3xf32>, tensor<2xi32>
}

// A stretched size-1 broadcast, then reduce_max and reduce_min.
func.func @stretch_reduce(%x: tensor<2x3xf32>, %c: tensor<1x3xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %cb = arr.broadcast_in_dim %c, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
  %y = arr.add %x, %cb : tensor<2x3xf32>
  %mx = arr.reduce_max %y, dims = [0] : (tensor<2x3xf32>) -> tensor<3xf32>
  %mn = arr.reduce_min %y, dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
  return %mx, %mn : tensor<3xf32>, tensor<2xf32>
}

// Truncating i32 division, then negation.
func.func @div_neg_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %q = arr.div %a, %b : tensor<4xi32>
  %n = arr.neg %q : tensor<4xi32>
  return %n : tensor<4xi32>
}

// transpose(m) + reshape(m) (a reshape that is neither collapse nor expand).
func.func @transpose_reshape(%m: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = arr.transpose %m, perm = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = arr.reshape %m : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = arr.add %t, %r : tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  %a = arr.constant dense<[[3.0, 1.0, 1.0, 2.0],
                           [0x7F800000, 0x7F800000, 0x7F800000, 0x7F800000],
                           [5.0, 5.0, 5.0, 5.0],
                           [2.0, -1.0, 7.0, -1.0]]> : tensor<4x4xf32>
  %b = arr.constant dense<[[1.0, 2.0, 4.0, 4.0],
                           [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000],
                           [-3.0, -3.0, -3.0, -3.0],
                           [0.0, 7.0, 3.0, 7.0]]> : tensor<4x4xf32>
  %c = arr.constant dense<[[4, 2, 7, 2147483647],
                           [1, 2, 9, 2147483647],
                           [1, 5, 7, 2147483647]]> : tensor<3x4xi32>
  %m = arr.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %v = arr.constant dense<[1.0, 0.5, -1.0]> : tensor<3xf32>
  %n = arr.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %l = arr.constant dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                           [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]]> : tensor<2x2x3xf32>
  %r = arr.constant dense<[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                           [[2.0, 0.0], [0.0, 2.0], [1.0, 0.0]]]> : tensor<2x3x2xf32>
  %q = arr.constant dense<[[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>
  %refs = arr.constant dense<[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]> : tensor<3x3xf32>
  %x = arr.constant dense<[[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]> : tensor<2x3xf32>
  %cc = arr.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %ia = arr.constant dense<[-7, 7, -7, 9]> : tensor<4xi32>
  %ib = arr.constant dense<[2, 2, -2, 3]> : tensor<4xi32>

  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [1,  0,  0,  1]
  %0 = call @argmin_rows(%a) : (tensor<4x4xf32>) -> tensor<4xi32>
  %m0 = bufferization.to_buffer %0 : tensor<4xi32> to memref<4xi32>
  %u0 = memref.cast %m0 : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u0) : (memref<*xi32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [0,  0,  0,  2]
  %1 = call @argmax_rows(%a) : (tensor<4x4xf32>) -> tensor<4xi32>
  %m1 = bufferization.to_buffer %1 : tensor<4xi32> to memref<4xi32>
  %u1 = memref.cast %m1 : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u1) : (memref<*xi32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [2,  0,  0,  1]
  %2 = call @argmax_rows(%b) : (tensor<4x4xf32>) -> tensor<4xi32>
  %m2 = bufferization.to_buffer %2 : tensor<4xi32> to memref<4xi32>
  %u2 = memref.cast %m2 : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u2) : (memref<*xi32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [1,  0,  0,  0]
  %3 = call @argmin_cols_i32(%c) : (tensor<3x4xi32>) -> tensor<4xi32>
  %m3 = bufferization.to_buffer %3 : tensor<4xi32> to memref<4xi32>
  %u3 = memref.cast %m3 : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u3) : (memref<*xi32>) -> ()

  // CHECK: sizes = [2] strides = [1] data =
  // CHECK-NEXT: [-1,  0.5]
  %4 = call @matvec(%m, %v) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %m4 = bufferization.to_buffer %4 : tensor<2xf32> to memref<2xf32>
  %u4 = memref.cast %m4 : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u4) : (memref<*xf32>) -> ()

  // CHECK: sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[4,   5],
  // CHECK-NEXT:  [10,   11]]
  %5 = call @matmul(%m, %n) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %m5 = bufferization.to_buffer %5 : tensor<2x2xf32> to memref<2x2xf32>
  %u5 = memref.cast %m5 : memref<2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u5) : (memref<*xf32>) -> ()

  // CHECK: sizes = [2, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT: {{\[}}{{\[}}[4,    5],
  // CHECK-NEXT:   [10,    11]],
  // CHECK-NEXT:  {{\[}}[0,    1],
  // CHECK-NEXT:   [2,    1]]]
  %6 = call @one_side_batched(%l, %n) : (tensor<2x2x3xf32>, tensor<3x2xf32>) -> tensor<2x2x2xf32>
  %m6 = bufferization.to_buffer %6 : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %u6 = memref.cast %m6 : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u6) : (memref<*xf32>) -> ()

  // CHECK: sizes = [2, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT: {{\[}}{{\[}}[4,    5],
  // CHECK-NEXT:   [10,    11]],
  // CHECK-NEXT:  {{\[}}[0,    2],
  // CHECK-NEXT:   [3,    0]]]
  %7 = call @batch_matmul(%l, %r) : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  %m7 = bufferization.to_buffer %7 : tensor<2x2x2xf32> to memref<2x2x2xf32>
  %u7 = memref.cast %m7 : memref<2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%u7) : (memref<*xf32>) -> ()

  // CHECK: sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[0,   3,   14],
  // CHECK-NEXT:  [14,   5,   0]]
  // CHECK: sizes = [2] strides = [1] data =
  // CHECK-NEXT: [0,  2]
  %8:2 = call @pairwise(%q, %refs) : (tensor<2x3xf32>, tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<2xi32>)
  %m8 = bufferization.to_buffer %8#0 : tensor<2x3xf32> to memref<2x3xf32>
  %u8 = memref.cast %m8 : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u8) : (memref<*xf32>) -> ()
  %m9 = bufferization.to_buffer %8#1 : tensor<2xi32> to memref<2xi32>
  %u9 = memref.cast %m9 : memref<2xi32> to memref<*xi32>
  call @printMemrefI32(%u9) : (memref<*xi32>) -> ()

  // CHECK: sizes = [3] strides = [1] data =
  // CHECK-NEXT: [41,  52,  63]
  // CHECK: sizes = [2] strides = [1] data =
  // CHECK-NEXT: [11,  41]
  %10:2 = call @stretch_reduce(%x, %cc) : (tensor<2x3xf32>, tensor<1x3xf32>) -> (tensor<3xf32>, tensor<2xf32>)
  %m10 = bufferization.to_buffer %10#0 : tensor<3xf32> to memref<3xf32>
  %u10 = memref.cast %m10 : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u10) : (memref<*xf32>) -> ()
  %m11 = bufferization.to_buffer %10#1 : tensor<2xf32> to memref<2xf32>
  %u11 = memref.cast %m11 : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u11) : (memref<*xf32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [3,  -3,  -3,  -3]
  %12 = call @div_neg_i32(%ia, %ib) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %m12 = bufferization.to_buffer %12 : tensor<4xi32> to memref<4xi32>
  %u12 = memref.cast %m12 : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u12) : (memref<*xi32>) -> ()

  // CHECK: sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[2,   6],
  // CHECK-NEXT:  [5,   9],
  // CHECK-NEXT:  [8,   12]]
  %13 = call @transpose_reshape(%m) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %m13 = bufferization.to_buffer %13 : tensor<3x2xf32> to memref<3x2xf32>
  %u13 = memref.cast %m13 : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u13) : (memref<*xf32>) -> ()
  return
}
