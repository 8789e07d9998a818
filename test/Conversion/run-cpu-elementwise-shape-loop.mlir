// Runs abs sign not maximum minimum pow and or select convert concat slice
// iota and arr.for through the CPU pipeline of run-cpu.mlir and checks the
// exact numbers.
//
// RUN: vmapc-opt %s --convert-arr-to-linalg \
// RUN: | mlir-opt --pass-pipeline="builtin.module(eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-deallocation-pipeline,convert-bufferization-to-memref,convert-linalg-to-loops,convert-math-to-libm,convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-vector-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)" \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

// f32 -> i32 truncates toward zero, NaN gives 0, -3e9 saturates at INT_MIN;
// 2147483520 (the largest f32 below 2^31) is exact.
func.func @to_i32(%x: tensor<7xf32>) -> tensor<7xi32> {
  %0 = arr.convert %x : tensor<7xf32> -> tensor<7xi32>
  return %0 : tensor<7xi32>
}

// f32 -> bool (x != 0, NaN is true) and back to f32 (1 or 0); i32 -> f32
// rounds to nearest even (2^24 + 1 -> 2^24, 2^24 + 3 -> 2^24 + 4; printed
// minus 2^24).
func.func @bools(%x: tensor<5xf32>, %i: tensor<2xi32>) -> (tensor<5xf32>, tensor<2xf32>) {
  %b = arr.convert %x : tensor<5xf32> -> tensor<5xi1>
  %f = arr.convert %b : tensor<5xi1> -> tensor<5xf32>
  %g = arr.convert %i : tensor<2xi32> -> tensor<2xf32>
  %c = arr.constant dense<16777216.0> : tensor<2xf32>
  %d = arr.sub %g, %c : tensor<2xf32>
  return %f, %d : tensor<5xf32>, tensor<2xf32>
}

// sign keeps 0, -0.0 and NaN.
func.func @sign_abs(%x: tensor<6xf32>, %i: tensor<4xi32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<4xi32>) {
  %s = arr.sign %x : tensor<6xf32>
  %a = arr.abs %x : tensor<6xf32>
  %si = arr.sign %i : tensor<4xi32>
  return %s, %a, %si : tensor<6xf32>, tensor<6xf32>, tensor<4xi32>
}

// maximum and minimum propagate NaN; pow is C's powf.
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<3xi32>, %j: tensor<3xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xi32>, tensor<3xi32>) {
  %mx = arr.maximum %x, %y : tensor<4xf32>
  %mn = arr.minimum %x, %y : tensor<4xf32>
  %p = arr.pow %x, %y : tensor<4xf32>
  %mxi = arr.maximum %i, %j : tensor<3xi32>
  %mni = arr.minimum %i, %j : tensor<3xi32>
  return %mx, %mn, %p, %mxi, %mni : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xi32>, tensor<3xi32>
}

// (p and q) or not p, and select on it; bools printed as i32.
func.func @logic(%p: tensor<4xi1>, %q: tensor<4xi1>, %x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %a = arr.and %p, %q : tensor<4xi1>
  %n = arr.not %p : tensor<4xi1>
  %o = arr.or %a, %n : tensor<4xi1>
  %oi = arr.convert %o : tensor<4xi1> -> tensor<4xi32>
  %s = arr.select %q, %x, %y : tensor<4xi1>, tensor<4xi32>
  return %oi, %s : tensor<4xi32>, tensor<4xi32>
}

// m[::-1, 5::-2] of a 3x6 matrix.
func.func @slice_reversed(%m: tensor<3x6xf32>) -> tensor<3x3xf32> {
  %0 = arr.slice %m, start = [2, 5], stride = [-1, -2] : (tensor<3x6xf32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// concat along dimension 1 of three pieces, one of them an iota.
func.func @concat_iota(%a: tensor<2x1xf32>, %b: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %i = arr.iota dim = 1 : tensor<2x3xf32>
  %0 = arr.concat %a, %i, %b dim = 1 : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// sum of i for i < 10 (45) and 10 additions of the const w.
func.func @loop_sum(%w: tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %z = arr.constant dense<0> : tensor<i32>
  %zf = arr.constant dense<0.0> : tensor<3xf32>
  %r:2 = arr.for 10 consts(%w : tensor<3xf32>) iter_args(%z, %zf : tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>) {
  ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %s: tensor<i32>, %acc: tensor<3xf32>):
    %s2 = arr.add %s, %i : tensor<i32>
    %acc2 = arr.add %acc, %wc : tensor<3xf32>
    arr.yield %s2, %acc2 : tensor<i32>, tensor<3xf32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<3xf32>
}

// (a, b) -> (b, a + b) five times from (0, 1): (5, 8).
func.func @fib() -> (tensor<i32>, tensor<i32>) {
  %a = arr.constant dense<0> : tensor<i32>
  %b = arr.constant dense<1> : tensor<i32>
  %r:2 = arr.for 5 iter_args(%a, %b : tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<i32>, %y: tensor<i32>):
    %s = arr.add %x, %y : tensor<i32>
    arr.yield %y, %s : tensor<i32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<i32>, tensor<i32>
}

// A carry reversed (a slice with stride -1) three times, then zero trips.
func.func @loop_reverse(%v: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r = arr.for 3 iter_args(%v : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %y = arr.slice %x, start = [3], stride = [-1] : (tensor<4xf32>) -> tensor<4xf32>
    arr.yield %y : tensor<4xf32>
  }
  %e = arr.for 0 iter_args(%r : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i32>, %x: tensor<4xf32>):
    %y = arr.add %x, %x : tensor<4xf32>
    arr.yield %y : tensor<4xf32>
  }
  return %r, %e : tensor<4xf32>, tensor<4xf32>
}

// Nested: the inner loop sums 10 * i + j over j < 4 from a zero of its own
// (40 * i + 6), the outer one adds that up over i < 3: 120 + 18 = 138.
func.func @loop_nested() -> tensor<i32> {
  %z = arr.constant dense<0> : tensor<i32>
  %ten = arr.constant dense<10> : tensor<i32>
  %r = arr.for 3 consts(%ten : tensor<i32>) iter_args(%z : tensor<i32>) -> (tensor<i32>) {
  ^bb0(%i: tensor<i32>, %t: tensor<i32>, %acc: tensor<i32>):
    %ti = arr.mul %t, %i : tensor<i32>
    %z2 = arr.constant dense<0> : tensor<i32>
    %in = arr.for 4 consts(%ti : tensor<i32>) iter_args(%z2 : tensor<i32>) -> (tensor<i32>) {
    ^bb0(%j: tensor<i32>, %tic: tensor<i32>, %acc2: tensor<i32>):
      %e = arr.add %tic, %j : tensor<i32>
      %s = arr.add %acc2, %e : tensor<i32>
      arr.yield %s : tensor<i32>
    }
    %sum = arr.add %acc, %in : tensor<i32>
    arr.yield %sum : tensor<i32>
  }
  return %r : tensor<i32>
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  // CHECK: sizes = [7] strides = [1] data =
  // CHECK-NEXT: [0,  -2,  2,  0,  -2147483648,  2147483520,  -2147483648]
  %x0 = arr.constant dense<[0x7FC00000, -2.5, 2.75, -0.0, -3.0e9, 2147483520.0, 0xFF800000]> : tensor<7xf32>
  %0 = call @to_i32(%x0) : (tensor<7xf32>) -> tensor<7xi32>
  %m0 = bufferization.to_buffer %0 : tensor<7xi32> to memref<7xi32>
  %u0 = memref.cast %m0 : memref<7xi32> to memref<*xi32>
  call @printMemrefI32(%u0) : (memref<*xi32>) -> ()

  // CHECK: sizes = [5] strides = [1] data =
  // CHECK-NEXT: [0,  0,  1,  1,  1]
  // CHECK: sizes = [2] strides = [1] data =
  // CHECK-NEXT: [0,  4]
  %x1 = arr.constant dense<[0.0, -0.0, 0x7FC00000, 0.5, -3.0]> : tensor<5xf32>
  %i1 = arr.constant dense<[16777217, 16777219]> : tensor<2xi32>
  %1:2 = call @bools(%x1, %i1) : (tensor<5xf32>, tensor<2xi32>) -> (tensor<5xf32>, tensor<2xf32>)
  %m1 = bufferization.to_buffer %1#0 : tensor<5xf32> to memref<5xf32>
  %u1 = memref.cast %m1 : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  %m1b = bufferization.to_buffer %1#1 : tensor<2xf32> to memref<2xf32>
  %u1b = memref.cast %m1b : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u1b) : (memref<*xf32>) -> ()

  // CHECK: sizes = [6] strides = [1] data =
  // CHECK-NEXT: [-1,  0,  -0,  nan,  1,  -1]
  // CHECK: sizes = [6] strides = [1] data =
  // CHECK-NEXT: [2.5,  0,  0,  nan,  3,  inf]
  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [-1,  0,  1,  -1]
  %x2 = arr.constant dense<[-2.5, 0.0, -0.0, 0x7FC00000, 3.0, 0xFF800000]> : tensor<6xf32>
  %i2 = arr.constant dense<[-7, 0, 5, -2147483647]> : tensor<4xi32>
  %2:3 = call @sign_abs(%x2, %i2) : (tensor<6xf32>, tensor<4xi32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<4xi32>)
  %m2 = bufferization.to_buffer %2#0 : tensor<6xf32> to memref<6xf32>
  %u2 = memref.cast %m2 : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  %m2b = bufferization.to_buffer %2#1 : tensor<6xf32> to memref<6xf32>
  %u2b = memref.cast %m2b : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%u2b) : (memref<*xf32>) -> ()
  %m2c = bufferization.to_buffer %2#2 : tensor<4xi32> to memref<4xi32>
  %u2c = memref.cast %m2c : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u2c) : (memref<*xi32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [10,  nan,  9,  0]
  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [2,  nan,  0.5,  -0]
  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [1024,  nan,  3,  1]
  // CHECK: sizes = [3] strides = [1] data =
  // CHECK-NEXT: [4,  -1,  2147483647]
  // CHECK: sizes = [3] strides = [1] data =
  // CHECK-NEXT: [-3,  -2,  -2147483648]
  %x3 = arr.constant dense<[2.0, 0x7FC00000, 9.0, -0.0]> : tensor<4xf32>
  %y3 = arr.constant dense<[10.0, 1.0, 0.5, 0.0]> : tensor<4xf32>
  %i3 = arr.constant dense<[4, -2, 2147483647]> : tensor<3xi32>
  %j3 = arr.constant dense<[-3, -1, -2147483648]> : tensor<3xi32>
  %3:5 = call @binary(%x3, %y3, %i3, %j3) : (tensor<4xf32>, tensor<4xf32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xi32>, tensor<3xi32>)
  %m3 = bufferization.to_buffer %3#0 : tensor<4xf32> to memref<4xf32>
  %u3 = memref.cast %m3 : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  %m3b = bufferization.to_buffer %3#1 : tensor<4xf32> to memref<4xf32>
  %u3b = memref.cast %m3b : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u3b) : (memref<*xf32>) -> ()
  %m3c = bufferization.to_buffer %3#2 : tensor<4xf32> to memref<4xf32>
  %u3c = memref.cast %m3c : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u3c) : (memref<*xf32>) -> ()
  %m3d = bufferization.to_buffer %3#3 : tensor<3xi32> to memref<3xi32>
  %u3d = memref.cast %m3d : memref<3xi32> to memref<*xi32>
  call @printMemrefI32(%u3d) : (memref<*xi32>) -> ()
  %m3e = bufferization.to_buffer %3#4 : tensor<3xi32> to memref<3xi32>
  %u3e = memref.cast %m3e : memref<3xi32> to memref<*xi32>
  call @printMemrefI32(%u3e) : (memref<*xi32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [1,  0,  1,  1]
  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [10,  -2,  -3,  40]
  %p4 = arr.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q4 = arr.constant dense<[true, false, false, true]> : tensor<4xi1>
  %x4 = arr.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %y4 = arr.constant dense<[-1, -2, -3, -4]> : tensor<4xi32>
  %4:2 = call @logic(%p4, %q4, %x4, %y4) : (tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)
  %m4 = bufferization.to_buffer %4#0 : tensor<4xi32> to memref<4xi32>
  %u4 = memref.cast %m4 : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u4) : (memref<*xi32>) -> ()
  %m4b = bufferization.to_buffer %4#1 : tensor<4xi32> to memref<4xi32>
  %u4b = memref.cast %m4b : memref<4xi32> to memref<*xi32>
  call @printMemrefI32(%u4b) : (memref<*xi32>) -> ()

  // CHECK: sizes = [3, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[25,   23,   21],
  // CHECK-NEXT:  [15,   13,   11],
  // CHECK-NEXT:  [5,   3,   1]]
  %m5in = arr.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
                              [10.0, 11.0, 12.0, 13.0, 14.0, 15.0],
                              [20.0, 21.0, 22.0, 23.0, 24.0, 25.0]]> : tensor<3x6xf32>
  %5 = call @slice_reversed(%m5in) : (tensor<3x6xf32>) -> tensor<3x3xf32>
  %m5 = bufferization.to_buffer %5 : tensor<3x3xf32> to memref<3x3xf32>
  %u5 = memref.cast %m5 : memref<3x3xf32> to memref<*xf32>
  call @printMemrefF32(%u5) : (memref<*xf32>) -> ()

  // CHECK: sizes = [2, 6] strides = [6, 1] data =
  // CHECK-NEXT: {{\[}}[-1,   0,   1,   2,   7,   8],
  // CHECK-NEXT:  [-2,   0,   1,   2,   9,   10]]
  %a6 = arr.constant dense<[[-1.0], [-2.0]]> : tensor<2x1xf32>
  %b6 = arr.constant dense<[[7.0, 8.0], [9.0, 10.0]]> : tensor<2x2xf32>
  %6 = call @concat_iota(%a6, %b6) : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  %m6 = bufferization.to_buffer %6 : tensor<2x6xf32> to memref<2x6xf32>
  %u6 = memref.cast %m6 : memref<2x6xf32> to memref<*xf32>
  call @printMemrefF32(%u6) : (memref<*xf32>) -> ()

  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [45]
  // CHECK: sizes = [3] strides = [1] data =
  // CHECK-NEXT: [10,  -5,  2.5]
  %w7 = arr.constant dense<[1.0, -0.5, 0.25]> : tensor<3xf32>
  %7:2 = call @loop_sum(%w7) : (tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
  %m7 = bufferization.to_buffer %7#0 : tensor<i32> to memref<i32>
  %u7 = memref.cast %m7 : memref<i32> to memref<*xi32>
  call @printMemrefI32(%u7) : (memref<*xi32>) -> ()
  %m7b = bufferization.to_buffer %7#1 : tensor<3xf32> to memref<3xf32>
  %u7b = memref.cast %m7b : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u7b) : (memref<*xf32>) -> ()

  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [5]
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [8]
  %8:2 = call @fib() : () -> (tensor<i32>, tensor<i32>)
  %m8 = bufferization.to_buffer %8#0 : tensor<i32> to memref<i32>
  %u8 = memref.cast %m8 : memref<i32> to memref<*xi32>
  call @printMemrefI32(%u8) : (memref<*xi32>) -> ()
  %m8b = bufferization.to_buffer %8#1 : tensor<i32> to memref<i32>
  %u8b = memref.cast %m8b : memref<i32> to memref<*xi32>
  call @printMemrefI32(%u8b) : (memref<*xi32>) -> ()

  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [4,  3,  2,  1]
  // CHECK: sizes = [4] strides = [1] data =
  // CHECK-NEXT: [4,  3,  2,  1]
  %v9 = arr.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %9:2 = call @loop_reverse(%v9) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %m9 = bufferization.to_buffer %9#0 : tensor<4xf32> to memref<4xf32>
  %u9 = memref.cast %m9 : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u9) : (memref<*xf32>) -> ()
  %m9b = bufferization.to_buffer %9#1 : tensor<4xf32> to memref<4xf32>
  %u9b = memref.cast %m9b : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u9b) : (memref<*xf32>) -> ()


  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [138]
  %10 = call @loop_nested() : () -> tensor<i32>
  %m10 = bufferization.to_buffer %10 : tensor<i32> to memref<i32>
  %u10 = memref.cast %m10 : memref<i32> to memref<*xi32>
  call @printMemrefI32(%u10) : (memref<*xi32>) -> ()
  return
}
