# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# cumsum and cumprod: a sequential scan as an arr.for over the axis (the
# loop's, the gather's and the scatter's batching rules and lowerings; no op
# of its own). The running value starts at the identity (0, 1); each step
# gathers element i along the axis, combines, and scatters the result into
# place in the output carry.

# CHECK-LABEL: func.func private @along_axis(
# CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>)
# CHECK-DAG: %[[ZERO:.+]] = arr.constant dense<0.000000e+00> : tensor<2xf32>
# CHECK-DAG: %[[OUT:.+]] = arr.constant dense<0.000000e+00> : tensor<2x3xf32>
# CHECK: %[[R:.+]]:2 = arr.for 3 consts(%[[X]] : tensor<2x3xf32>) iter_args(%[[ZERO]], %[[OUT]] : tensor<2xf32>, tensor<2x3xf32>)
# CHECK-NEXT: ^bb0(%[[I:.+]]: tensor<i32>, %[[XC:.+]]: tensor<2x3xf32>, %[[ACC:.+]]: tensor<2xf32>, %[[O:.+]]: tensor<2x3xf32>):
# CHECK-NEXT: %[[E:.+]] = arr.gather %[[XC]][%[[I]]], axis = 1, batch_dims = 0, mode = clamp
# CHECK-NEXT: %[[N:.+]] = arr.add %[[ACC]], %[[E]] : tensor<2xf32>
# CHECK-NEXT: %[[W:.+]] = arr.scatter %[[O]][%[[I]]], %[[N]], axis = 1, batch_dims = 0, kind = set
# CHECK-NEXT: arr.yield %[[N]], %[[W]]
# CHECK: return %[[R]]#1
fn along_axis(x: f32[2, 3]) -> f32[2, 3] {
  return cumsum(x, axis=-1);
}

# -----

# No axis: the flattened operand (numpy's and JAX's axis=None); a bool
# operand counts as i32; cumprod starts at 1.

# CHECK-LABEL: func.func private @flattened_bool(
# CHECK: %[[C:.+]] = arr.convert %{{.+}} : tensor<2x2xi1> -> tensor<2x2xi32>
# CHECK: %[[F:.+]] = arr.reshape %[[C]] : (tensor<2x2xi32>) -> tensor<4xi32>
# CHECK: %[[ONE:.+]] = arr.constant dense<1> : tensor<i32>
# CHECK: arr.for 4 consts(%[[F]] : tensor<4xi32>) iter_args(%[[ONE]], %{{.+}} : tensor<i32>, tensor<4xi32>)
# CHECK: arr.mul
fn flattened_bool(m: bool[2, 2]) -> i32[4] {
  return cumprod(m);
}
