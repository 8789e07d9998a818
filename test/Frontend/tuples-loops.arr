# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# Tuple returns, destructuring, per-output out_axes, and bounded loops.

# A function returns a tuple; `let (a, b) = ...` unpacks it; a weak literal
# takes its result's declared type.
# CHECK-LABEL: func.func private @stats(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<i32>)
# CHECK: %[[S:.+]] = arr.reduce_sum %[[X]]
# CHECK: %[[ONE:.+]] = arr.constant dense<1> : tensor<i32>
# CHECK: return %[[X]], %[[S]], %[[ONE]] : tensor<3xf32>, tensor<f32>, tensor<i32>
# CHECK-LABEL: func.func private @use(
# CHECK: %[[R:.+]]:3 = call @stats(%{{.+}}) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<i32>)
# CHECK: %[[B:.+]] = arr.broadcast_in_dim %[[R]]#1, dims = [] : (tensor<f32>) -> tensor<3xf32>
# CHECK: arr.mul %[[R]]#0, %[[B]] : tensor<3xf32>
# CHECK-LABEL: func.func private @forward(
# CHECK: %[[F:.+]]:3 = call @stats(
# CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
fn stats(x: f32[3]) -> (f32[3], f32, i32) {
  return (x, sum(x), 1);
}
fn use(x: f32[3]) -> f32[3] {
  let (a, s, n) = stats(x);
  return a * s;
}
fn forward(x: f32[3]) -> (f32[3], f32, i32) {
  let t = stats(x);
  return t;
}

# -----

# vmap of a tuple function: one arr.vmap_call with one out axis per result
# (an int or none for all, or a tuple); an export names results out0, out1.
# CHECK-LABEL: func.func private @mapped(
# CHECK-SAME: %[[XS:.+]]: tensor<3x5xf32>)
# CHECK: %[[V:.+]]:2 = arr.vmap_call @pair(%[[XS]]) {axis_size = 5 : i64, in_axes = [1], out_axes = [1, 0]} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<5xf32>)
# CHECK: arr.vmap_call @pair(%[[XS]]) {axis_size = 5 : i64, in_axes = [1], out_axes = [0, 0]} : (tensor<3x5xf32>) -> (tensor<5x3xf32>, tensor<5xf32>)
# CHECK-LABEL: func.func @e(
# CHECK-SAME: %{{.+}}: tensor<4x3xf32> {arr.name = "x"}) -> (tensor<3x4xf32> {arr.name = "out0"}, tensor<4xf32> {arr.name = "out1"})
# CHECK-SAME: arr.out_axes = [1, 0]
fn pair(x: f32[3]) -> (f32[3], f32) {
  return (x * 2.0, sum(x));
}
fn mapped(xs: f32[3, 5]) -> f32[3, 5] {
  let (a, s) = vmap(pair, in_axes=-1, out_axes=(-1, 0))(xs);
  let (b, t) = vmap(pair, in_axes=1)(xs);
  return a;
}
export e = vmap(pair, out_axes=(1, -1), batch=4);

# -----

# for ... carry: an arr.for whose consts are the outer variables the body
# reads (in order of first use, once each), with the index and the carries
# as block arguments; the carries hold the final values after the loop.
# Nested loops capture through the outer loop.
# CHECK-LABEL: func.func private @loop(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>, %[[W:.+]]: tensor<3xf32>)
# CHECK: %[[Z:.+]] = arr.constant dense<0.000000e+00> : tensor<3xf32>
# CHECK: %[[N0:.+]] = arr.constant dense<0.000000e+00> : tensor<f32>
# CHECK: %[[R:.+]]:2 = arr.for 10 consts(%[[X]], %[[W]] : tensor<3xf32>, tensor<3xf32>) iter_args(%[[Z]], %[[N0]] : tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
# CHECK: ^bb0(%[[I:.+]]: tensor<i32>, %[[XC:.+]]: tensor<3xf32>, %[[WC:.+]]: tensor<3xf32>, %[[ACC:.+]]: tensor<3xf32>, %[[N:.+]]: tensor<f32>):
# CHECK: %[[FI:.+]] = arr.convert %[[I]] : tensor<i32> -> tensor<f32>
# CHECK: %[[BI:.+]] = arr.broadcast_in_dim %[[FI]]
# CHECK: %[[XI:.+]] = arr.mul %[[XC]], %[[BI]]
# CHECK: %[[T:.+]] = arr.add %[[ACC]], %[[XI]]
# CHECK: %[[U:.+]] = arr.for 2 consts(%[[WC]] : tensor<3xf32>) iter_args(%[[T]] : tensor<3xf32>) -> (tensor<3xf32>) {
# CHECK: ^bb0(%{{.+}}: tensor<i32>, %[[WI:.+]]: tensor<3xf32>, %[[UA:.+]]: tensor<3xf32>):
# CHECK: %[[M:.+]] = arr.mul %[[UA]], %[[WI]]
# CHECK: arr.yield %[[M]] : tensor<3xf32>
# CHECK: }
# CHECK: %[[ONE:.+]] = arr.constant dense<1.000000e+00> : tensor<f32>
# CHECK: %[[N1:.+]] = arr.add %[[N]], %[[ONE]]
# CHECK: arr.yield %[[U]], %[[N1]] : tensor<3xf32>, tensor<f32>
# CHECK: }
# CHECK: return %[[R]]#0, %[[R]]#1
fn loop(x: f32[3], w: f32[3]) -> (f32[3], f32) {
  for i in range(10) carry (acc = zeros((3,)), n = 0.0) {
    let t = acc + x * f32(i);
    for j in range(2) carry (u = t) {
      yield u * w;
    }
    yield (u, n + 1);
  }
  return (acc, n);
}

# -----

# A loop that reads nothing from outside has no consts; zero trips are
# allowed; a weak literal yield takes the carry's type (a splat).
# CHECK-LABEL: func.func private @count(
# CHECK: %[[C0:.+]] = arr.constant dense<0> : tensor<2xi32>
# CHECK: arr.for 0 iter_args(%[[C0]] : tensor<2xi32>) -> (tensor<2xi32>) {
# CHECK: %[[SEVEN:.+]] = arr.constant dense<7> : tensor<2xi32>
# CHECK: arr.yield %[[SEVEN]] : tensor<2xi32>
fn count() -> i32[2] {
  for k in range(0) carry (c = [0, 0]) {
    yield 7;
  }
  return c;
}
