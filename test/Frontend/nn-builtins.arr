# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# jax.nn's functions as compositions of arr ops (frontend/NNBuiltins.h).

# softmax along the last axis: the row maximum, kept and broadcast back,
# is subtracted before exp; the sum is divided out the same way.
# CHECK-LABEL: func.func private @sm(
# CHECK-SAME: %[[X:.+]]: tensor<4x5xf32>)
# CHECK: %[[M:.+]] = arr.reduce_max %[[X]], dims = [1] : (tensor<4x5xf32>) -> tensor<4xf32>
# CHECK: %[[MK:.+]] = arr.reshape %[[M]] : (tensor<4xf32>) -> tensor<4x1xf32>
# CHECK: %[[MB:.+]] = arr.broadcast_in_dim %[[MK]], dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x5xf32>
# CHECK: %[[D:.+]] = arr.sub %[[X]], %[[MB]] : tensor<4x5xf32>
# CHECK: %[[E:.+]] = arr.exp %[[D]] : tensor<4x5xf32>
# CHECK: arr.reduce_sum %[[E]], dims = [1]
# CHECK: arr.div %[[E]], %{{.+}} : tensor<4x5xf32>
fn sm(x: f32[4, 5]) -> f32[4, 5] { return softmax(x); }

# -----

# logsumexp shifts by the maximum only where it is finite (|m| < inf).
# CHECK-LABEL: func.func private @lse(
# CHECK: %[[M:.+]] = arr.reduce_max %{{.+}}, dims = [0, 1]
# CHECK: %[[A:.+]] = arr.abs %{{.+}} : tensor<1x1xf32>
# CHECK: %[[F:.+]] = arr.cmp lt, %[[A]], %{{.+}} : tensor<1x1xf32> -> tensor<1x1xi1>
# CHECK: arr.select %[[F]], %{{.+}}, %{{.+}} : tensor<1x1xi1>, tensor<1x1xf32>
# CHECK: arr.log
# CHECK: arr.reshape %{{.+}} : (tensor<1x1xf32>) -> tensor<f32>
fn lse(x: f32[4, 5]) -> f32 { return logsumexp(x); }

# -----

# sigmoid is 1 / (1 + exp(-x)); relu a maximum with 0 (i32 too); clip
# broadcasts its bounds.
# CHECK-LABEL: func.func private @small(
# CHECK: arr.neg
# CHECK: arr.exp
# CHECK: arr.div
# CHECK: arr.maximum %{{.+}}, %{{.+}} : tensor<3xi32>
# CHECK: %[[L:.+]] = arr.maximum %{{.+}}, %{{.+}} : tensor<3xf32>
# CHECK: arr.minimum %[[L]], %{{.+}} : tensor<3xf32>
fn small(x: f32[3], i: i32[3]) -> (f32[3], i32[3], f32[3]) {
  return (sigmoid(x), relu(i), clip(x, -1.0, 1.0));
}
