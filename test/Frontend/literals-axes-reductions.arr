# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# true, false, inf and nan; new axes x[:, none]; keepdims=; reductions of
# bool (sum counts, mean is f32, max/min are any/all), any/all; argmax of
# bool (docs/language.md, "Literals", "Static slices", "Reductions").

# CHECK-LABEL: func.func private @literals(
# CHECK-DAG: arr.constant dense<true> : tensor<i1>
# CHECK-DAG: arr.constant dense<0x7F800000> : tensor<3xf32>
# CHECK-DAG: arr.constant dense<0x7FC00000> : tensor<3xf32>
fn literals(x: f32[3], b: bool[3]) -> (bool[3], f32[3], f32[3]) {
  return (b and true, maximum(x, -inf) + inf, x * nan);
}

# -----

# A new axis is a reshape that adds a dimension of size 1; with a computed
# index, the gather is along the dimension it indexes in the kept shape.
# CHECK-LABEL: func.func private @axes(
# CHECK-SAME: %[[X:.+]]: tensor<4x3xf32>, %[[I:.+]]: tensor<i32>)
# CHECK: %[[R:.+]] = arr.reshape %[[X]] : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
# CHECK: %[[S:.+]] = arr.reshape %[[X]] : (tensor<4x3xf32>) -> tensor<1x4x3x1xf32>
# CHECK: arr.gather %[[S]][%[[I]]], axis = 2, batch_dims = 0, mode = clamp : (tensor<1x4x3x1xf32>, tensor<i32>) -> tensor<1x4x1xf32>
fn axes(x: f32[4, 3], i: i32) -> (f32[4, 1, 3], f32[1, 4, 1]) {
  return (x[:, none, :], x[none, :, i, none]);
}

# -----

# keepdims= puts the reduced dimensions back as size 1.
# CHECK-LABEL: func.func private @keep(
# CHECK: %[[S:.+]] = arr.reduce_sum %{{.+}}, dims = [1] : (tensor<4x3xf32>) -> tensor<4xf32>
# CHECK: arr.reshape %[[S]] : (tensor<4xf32>) -> tensor<4x1xf32>
# CHECK: %[[A:.+]] = arr.argmax %{{.+}}, axis = 0 : (tensor<12xf32>) -> tensor<i32>
# CHECK: arr.reshape %[[A]] : (tensor<i32>) -> tensor<1x1xi32>
fn keep(x: f32[4, 3]) -> (f32[4, 1], i32[1, 1]) {
  return (sum(x, axis=1, keepdims=true), argmax(x, keepdims=true));
}

# -----

# Reductions of bool: sum converts to i32; any is a max of 0/1; mean is f32.
# CHECK-LABEL: func.func private @bools(
# CHECK-SAME: %[[B:.+]]: tensor<5xi1>)
# CHECK: %[[I:.+]] = arr.convert %[[B]] : tensor<5xi1> -> tensor<5xi32>
# CHECK: arr.reduce_sum %[[I]], dims = [0] : (tensor<5xi32>) -> tensor<i32>
# CHECK: %[[M:.+]] = arr.reduce_max %{{.+}}, dims = [0] : (tensor<5xi32>) -> tensor<i32>
# CHECK: arr.cmp ne, %[[M]], %{{.+}} : tensor<i32> -> tensor<i1>
# CHECK: %[[F:.+]] = arr.convert %[[B]] : tensor<5xi1> -> tensor<5xf32>
# CHECK: arr.reduce_sum %[[F]], dims = [0] : (tensor<5xf32>) -> tensor<f32>
fn bools(b: bool[5]) -> (i32, bool, f32) {
  return (sum(b), any(b), mean(b));
}

# -----

# Literal arrays in concat take the dtype of the array pieces; all-literal
# pieces are f32 when any element is a float.
# CHECK-LABEL: func.func private @concat_f32(
# CHECK: %[[Z:.*]] = arr.constant dense<0.000000e+00> : tensor<2xf32>
# CHECK: arr.concat %{{.*}}, %[[Z]] dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
fn concat_f32(s: f32[4]) -> f32[3] {
  return concat((s[0:1], [0.0, 0.0]), axis=0);
}
# CHECK-LABEL: func.func private @concat_i32(
# CHECK: %[[C:.*]] = arr.constant dense<[7, 8]> : tensor<2xi32>
# CHECK: arr.concat %[[C]], %arg0 dim = 0 : (tensor<2xi32>, tensor<4xi32>) -> tensor<6xi32>
fn concat_i32(s: i32[4]) -> i32[6] {
  return concat(([7, 8], s));
}
# CHECK-LABEL: func.func private @concat_literals(
# CHECK: arr.constant dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32>
# CHECK: arr.constant dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
# CHECK: arr.concat {{.*}} -> tensor<4xf32>
fn concat_literals() -> f32[4] {
  return concat(([1.5, 2], [3, 4]));
}
