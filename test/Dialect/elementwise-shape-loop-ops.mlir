// RUN: vmapc-opt %s | vmapc-opt | FileCheck %s

// Round trip of abs sign not maximum minimum pow and or select convert concat
// slice iota and arr.for/arr.yield.

// CHECK-LABEL: func.func @unary(
// CHECK-SAME: %[[F:[^:]+]]: tensor<4x8xf32>, %[[I:[^:]+]]: tensor<3xi32>, %[[B:[^:]+]]: tensor<2xi1>)
func.func @unary(%f: tensor<4x8xf32>, %i: tensor<3xi32>, %b: tensor<2xi1>) -> (tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>) {
  // CHECK: %[[A0:.+]] = arr.abs %[[F]] : tensor<4x8xf32>
  %0 = arr.abs %f : tensor<4x8xf32>
  // CHECK-NEXT: %[[A1:.+]] = arr.abs %[[I]] : tensor<3xi32>
  %1 = arr.abs %i : tensor<3xi32>
  // CHECK-NEXT: %[[S0:.+]] = arr.sign %[[A0]] : tensor<4x8xf32>
  %2 = arr.sign %0 : tensor<4x8xf32>
  // CHECK-NEXT: %[[S1:.+]] = arr.sign %[[A1]] : tensor<3xi32>
  %3 = arr.sign %1 : tensor<3xi32>
  // CHECK-NEXT: %[[N:.+]] = arr.not %[[B]] : tensor<2xi1>
  %4 = arr.not %b : tensor<2xi1>
  // CHECK-NEXT: return %[[S0]], %[[S1]], %[[N]] : tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>
  return %2, %3, %4 : tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>
}

// A 0-d operand.
// CHECK-LABEL: func.func @unary_scalar(
// CHECK: arr.sign %{{.+}} : tensor<f32>
func.func @unary_scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = arr.sign %x : tensor<f32>
  return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @binary(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>, %[[I:[^:]+]]: tensor<4xi32>, %[[J:[^:]+]]: tensor<4xi32>, %[[P:[^:]+]]: tensor<4xi1>, %[[Q:[^:]+]]: tensor<4xi1>)
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>, %p: tensor<4xi1>, %q: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi1>) {
  // CHECK: %[[MX:.+]] = arr.maximum %[[X]], %[[Y]] : tensor<4xf32>
  %0 = arr.maximum %x, %y : tensor<4xf32>
  // CHECK-NEXT: %[[MN:.+]] = arr.minimum %[[MX]], %[[Y]] : tensor<4xf32>
  %1 = arr.minimum %0, %y : tensor<4xf32>
  // CHECK-NEXT: %[[PW:.+]] = arr.pow %[[MN]], %[[X]] : tensor<4xf32>
  %2 = arr.pow %1, %x : tensor<4xf32>
  // CHECK-NEXT: %[[MXI:.+]] = arr.maximum %[[I]], %[[J]] : tensor<4xi32>
  %3 = arr.maximum %i, %j : tensor<4xi32>
  // CHECK-NEXT: %[[MNI:.+]] = arr.minimum %[[MXI]], %[[J]] : tensor<4xi32>
  %4 = arr.minimum %3, %j : tensor<4xi32>
  // CHECK-NEXT: %[[AND:.+]] = arr.and %[[P]], %[[Q]] : tensor<4xi1>
  %5 = arr.and %p, %q : tensor<4xi1>
  // CHECK-NEXT: %[[OR:.+]] = arr.or %[[AND]], %[[Q]] : tensor<4xi1>
  %6 = arr.or %5, %q : tensor<4xi1>
  // CHECK-NEXT: return %[[PW]], %[[MNI]], %[[OR]]
  return %2, %4, %6 : tensor<4xf32>, tensor<4xi32>, tensor<4xi1>
}

// select on each dtype.
// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[C:[^:]+]]: tensor<2x3xi1>, %[[X:[^:]+]]: tensor<2x3xf32>, %[[Y:[^:]+]]: tensor<2x3xf32>, %[[I:[^:]+]]: tensor<2x3xi32>)
func.func @select(%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %i: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>) {
  // CHECK: %[[S0:.+]] = arr.select %[[C]], %[[X]], %[[Y]] : tensor<2x3xi1>, tensor<2x3xf32>
  %0 = arr.select %c, %x, %y : tensor<2x3xi1>, tensor<2x3xf32>
  // CHECK-NEXT: %[[S1:.+]] = arr.select %[[C]], %[[I]], %[[I]] : tensor<2x3xi1>, tensor<2x3xi32>
  %1 = arr.select %c, %i, %i : tensor<2x3xi1>, tensor<2x3xi32>
  // CHECK-NEXT: %[[S2:.+]] = arr.select %[[C]], %[[C]], %[[C]] : tensor<2x3xi1>, tensor<2x3xi1>
  %2 = arr.select %c, %c, %c : tensor<2x3xi1>, tensor<2x3xi1>
  // CHECK-NEXT: return %[[S0]], %[[S1]], %[[S2]]
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>
}

// convert between every pair of dtypes (and to its own).
// CHECK-LABEL: func.func @convert(
// CHECK-SAME: %[[F:[^:]+]]: tensor<3xf32>, %[[I:[^:]+]]: tensor<3xi32>, %[[B:[^:]+]]: tensor<3xi1>)
func.func @convert(%f: tensor<3xf32>, %i: tensor<3xi32>, %b: tensor<3xi1>) -> (tensor<3xi32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) {
  // CHECK: arr.convert %[[F]] : tensor<3xf32> -> tensor<3xi32>
  %0 = arr.convert %f : tensor<3xf32> -> tensor<3xi32>
  // CHECK-NEXT: arr.convert %[[F]] : tensor<3xf32> -> tensor<3xi1>
  %1 = arr.convert %f : tensor<3xf32> -> tensor<3xi1>
  // CHECK-NEXT: arr.convert %[[I]] : tensor<3xi32> -> tensor<3xf32>
  %2 = arr.convert %i : tensor<3xi32> -> tensor<3xf32>
  // CHECK-NEXT: arr.convert %[[I]] : tensor<3xi32> -> tensor<3xi1>
  %3 = arr.convert %i : tensor<3xi32> -> tensor<3xi1>
  // CHECK-NEXT: arr.convert %[[B]] : tensor<3xi1> -> tensor<3xf32>
  %4 = arr.convert %b : tensor<3xi1> -> tensor<3xf32>
  // CHECK-NEXT: arr.convert %[[B]] : tensor<3xi1> -> tensor<3xi32>
  %5 = arr.convert %b : tensor<3xi1> -> tensor<3xi32>
  // CHECK-NEXT: arr.convert %[[F]] : tensor<3xf32> -> tensor<3xf32>
  %6 = arr.convert %f : tensor<3xf32> -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>, tensor<3xi32>, tensor<3xf32>
}

// CHECK-LABEL: func.func @concat(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<2x4xf32>, %[[C:[^:]+]]: tensor<2x1xf32>, %[[I:[^:]+]]: tensor<1xi32>, %[[J:[^:]+]]: tensor<2xi32>)
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>, %c: tensor<2x1xf32>, %i: tensor<1xi32>, %j: tensor<2xi32>) -> (tensor<2x8xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<3xi32>) {
  // CHECK: arr.concat %[[A]], %[[B]], %[[C]] dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %0 = arr.concat %a, %b, %c dim = 1 : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  // CHECK-NEXT: arr.concat %[[A]], %[[A]] dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = arr.concat %a, %a dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  // One piece.
  // CHECK-NEXT: arr.concat %[[A]] dim = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = arr.concat %a dim = 0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: arr.concat %[[I]], %[[J]] dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
  %3 = arr.concat %i, %j dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
  return %0, %1, %2, %3 : tensor<2x8xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @slice(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x6xf32>, %[[V:[^:]+]]: tensor<5xi1>)
func.func @slice(%x: tensor<8x6xf32>, %v: tensor<5xi1>) -> (tensor<4x3xf32>, tensor<8x2xf32>, tensor<5xi1>, tensor<1xi1>, tensor<8x6xf32>) {
  // CHECK: arr.slice %[[X]], start = [1, 0], stride = [1, 2] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  %0 = arr.slice %x, start = [1, 0], stride = [1, 2] : (tensor<8x6xf32>) -> tensor<4x3xf32>
  // Negative strides: x[::-1, 5::-3].
  // CHECK-NEXT: arr.slice %[[X]], start = [7, 5], stride = [-1, -3] : (tensor<8x6xf32>) -> tensor<8x2xf32>
  %1 = arr.slice %x, start = [7, 5], stride = [-1, -3] : (tensor<8x6xf32>) -> tensor<8x2xf32>
  // CHECK-NEXT: arr.slice %[[V]], start = [4], stride = [-1] : (tensor<5xi1>) -> tensor<5xi1>
  %2 = arr.slice %v, start = [4], stride = [-1] : (tensor<5xi1>) -> tensor<5xi1>
  // A single element with a stride past the end.
  // CHECK-NEXT: arr.slice %[[V]], start = [2], stride = [100] : (tensor<5xi1>) -> tensor<1xi1>
  %3 = arr.slice %v, start = [2], stride = [100] : (tensor<5xi1>) -> tensor<1xi1>
  // CHECK-NEXT: arr.slice %[[X]], start = [0, 0], stride = [1, 1] : (tensor<8x6xf32>) -> tensor<8x6xf32>
  %4 = arr.slice %x, start = [0, 0], stride = [1, 1] : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0, %1, %2, %3, %4 : tensor<4x3xf32>, tensor<8x2xf32>, tensor<5xi1>, tensor<1xi1>, tensor<8x6xf32>
}

// CHECK-LABEL: func.func @iota(
func.func @iota() -> (tensor<5xi32>, tensor<2x3xf32>, tensor<2x3x4xi32>) {
  // CHECK: arr.iota dim = 0 : tensor<5xi32>
  %0 = arr.iota dim = 0 : tensor<5xi32>
  // CHECK-NEXT: arr.iota dim = 1 : tensor<2x3xf32>
  %1 = arr.iota dim = 1 : tensor<2x3xf32>
  // CHECK-NEXT: arr.iota dim = 2 : tensor<2x3x4xi32>
  %2 = arr.iota dim = 2 : tensor<2x3x4xi32>
  return %0, %1, %2 : tensor<5xi32>, tensor<2x3xf32>, tensor<2x3x4xi32>
}

// consts and carries.
// CHECK-LABEL: func.func @for_consts(
// CHECK-SAME: %[[W:[^:]+]]: tensor<3xf32>, %[[A:[^:]+]]: tensor<3xf32>, %[[B:[^:]+]]: tensor<f32>)
// CHECK: %[[R:.+]]:2 = arr.for 10 consts(%[[W]] : tensor<3xf32>) iter_args(%[[A]], %[[B]] : tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
// CHECK-NEXT: ^bb0(%[[IDX:[^:]+]]: tensor<i32>, %[[WC:[^:]+]]: tensor<3xf32>, %[[AC:[^:]+]]: tensor<3xf32>, %[[BC:[^:]+]]: tensor<f32>):
// CHECK-NEXT: %[[A2:.+]] = arr.add %[[AC]], %[[WC]] : tensor<3xf32>
// CHECK-NEXT: %[[IF:.+]] = arr.convert %[[IDX]] : tensor<i32> -> tensor<f32>
// CHECK-NEXT: %[[B2:.+]] = arr.add %[[BC]], %[[IF]] : tensor<f32>
// CHECK-NEXT: arr.yield %[[A2]], %[[B2]] : tensor<3xf32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<3xf32>, tensor<f32>
func.func @for_consts(%w: tensor<3xf32>, %a0: tensor<3xf32>, %b0: tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
  %r:2 = arr.for 10 consts(%w : tensor<3xf32>)
           iter_args(%a0, %b0 : tensor<3xf32>, tensor<f32>)
           -> (tensor<3xf32>, tensor<f32>) {
  ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %a: tensor<3xf32>, %b: tensor<f32>):
    %a2 = arr.add %a, %wc : tensor<3xf32>
    %if = arr.convert %i : tensor<i32> -> tensor<f32>
    %b2 = arr.add %b, %if : tensor<f32>
    arr.yield %a2, %b2 : tensor<3xf32>, tensor<f32>
  }
  return %r#0, %r#1 : tensor<3xf32>, tensor<f32>
}

// No consts (the `consts` group is not printed); a zero trip count; a carry
// yielded unchanged and a const yielded as a carry.
// CHECK-LABEL: func.func @for_no_consts(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xi32>, %[[Y:[^:]+]]: tensor<4xi32>)
// CHECK: %[[R:.+]] = arr.for 0 iter_args(%[[X]] : tensor<4xi32>) -> (tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%{{[^:]+}}: tensor<i32>, %[[XC:[^:]+]]: tensor<4xi32>):
// CHECK-NEXT: arr.yield %[[XC]] : tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[S:.+]] = arr.for 3 consts(%[[Y]] : tensor<4xi32>) iter_args(%[[R]] : tensor<4xi32>) -> (tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%{{[^:]+}}: tensor<i32>, %[[YC:[^:]+]]: tensor<4xi32>, %{{[^:]+}}: tensor<4xi32>):
// CHECK-NEXT: arr.yield %[[YC]] : tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[S]] : tensor<4xi32>
func.func @for_no_consts(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %r = arr.for 0 iter_args(%x : tensor<4xi32>) -> (tensor<4xi32>) {
  ^bb0(%i: tensor<i32>, %c: tensor<4xi32>):
    arr.yield %c : tensor<4xi32>
  }
  %s = arr.for 3 consts(%y : tensor<4xi32>) iter_args(%r : tensor<4xi32>) -> (tensor<4xi32>) {
  ^bb0(%i: tensor<i32>, %yc: tensor<4xi32>, %c: tensor<4xi32>):
    arr.yield %yc : tensor<4xi32>
  }
  return %s : tensor<4xi32>
}

// A nested loop: the inner body reads the outer carry and the outer index
// through its consts (the region is isolated from above).
// CHECK-LABEL: func.func @for_nested(
// CHECK-SAME: %[[M:[^:]+]]: tensor<2x3xf32>, %[[Z:[^:]+]]: tensor<f32>)
// CHECK: %[[R:.+]] = arr.for 2 consts(%[[M]] : tensor<2x3xf32>) iter_args(%[[Z]] : tensor<f32>) -> (tensor<f32>) {
// CHECK-NEXT: ^bb0(%[[I:[^:]+]]: tensor<i32>, %[[MC:[^:]+]]: tensor<2x3xf32>, %[[ACC:[^:]+]]: tensor<f32>):
// CHECK-NEXT: %[[IN:.+]] = arr.for 3 consts(%[[MC]], %[[I]] : tensor<2x3xf32>, tensor<i32>) iter_args(%[[ACC]] : tensor<f32>) -> (tensor<f32>) {
// CHECK-NEXT: ^bb0(%[[J:[^:]+]]: tensor<i32>, %[[MC2:[^:]+]]: tensor<2x3xf32>, %[[IC:[^:]+]]: tensor<i32>, %[[ACC2:[^:]+]]: tensor<f32>):
// CHECK-NEXT: %[[ROW:.+]] = arr.convert %[[IC]] : tensor<i32> -> tensor<f32>
// CHECK-NEXT: %[[S:.+]] = arr.add %[[ACC2]], %[[ROW]] : tensor<f32>
// CHECK-NEXT: arr.yield %[[S]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: arr.yield %[[IN]] : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<f32>
func.func @for_nested(%m: tensor<2x3xf32>, %z: tensor<f32>) -> tensor<f32> {
  %r = arr.for 2 consts(%m : tensor<2x3xf32>) iter_args(%z : tensor<f32>) -> (tensor<f32>) {
  ^bb0(%i: tensor<i32>, %mc: tensor<2x3xf32>, %acc: tensor<f32>):
    %in = arr.for 3 consts(%mc, %i : tensor<2x3xf32>, tensor<i32>) iter_args(%acc : tensor<f32>) -> (tensor<f32>) {
    ^bb0(%j: tensor<i32>, %mc2: tensor<2x3xf32>, %ic: tensor<i32>, %acc2: tensor<f32>):
      %row = arr.convert %ic : tensor<i32> -> tensor<f32>
      %s = arr.add %acc2, %row : tensor<f32>
      arr.yield %s : tensor<f32>
    }
    arr.yield %in : tensor<f32>
  }
  return %r : tensor<f32>
}
