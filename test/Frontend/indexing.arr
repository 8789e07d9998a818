# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# The arr IR of indexing with computed indices, take and x.at[...] updates
# (docs/language.md, "Indexing with computed indices", "In-place updates").

# A computed index is a gather of its dimension, mode clamp.
# CHECK-LABEL: func.func private @pick(
# CHECK-SAME: %[[L:.+]]: tensor<10xf32>, %[[Y:.+]]: tensor<i32>)
# CHECK-NEXT: %[[G:.+]] = arr.gather %[[L]][%[[Y]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<10xf32>, tensor<i32>) -> tensor<f32>
# CHECK-NEXT: return %[[G]]
fn pick(logits: f32[10], y: i32) -> f32 { return logits[y]; }

# -----

# Static slices first, then each computed index, in order; the loop index
# and arithmetic on it are computed indices too.
# CHECK-LABEL: func.func private @mixed(
# CHECK-SAME: %[[M:.+]]: tensor<8x6x4xf32>, %[[I:.+]]: tensor<i32>)
# CHECK: %[[S:.+]] = arr.slice %[[M]], start = [0, 1, 2], stride = [1, 2, 1] : (tensor<8x6x4xf32>) -> tensor<8x3x1xf32>
# CHECK: %[[R:.+]] = arr.reshape %[[S]] : (tensor<8x3x1xf32>) -> tensor<8x3xf32>
# CHECK: %[[A:.+]] = arr.gather %[[R]][%[[I]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<8x3xf32>, tensor<i32>) -> tensor<3xf32>
fn mixed(m: f32[8, 6, 4], i: i32) -> f32[3] { return m[i, 1::2, 2]; }

# -----

# x[i, j] with two computed indices: two gathers, the second along the
# dimension that is left.
# CHECK-LABEL: func.func private @entry(
# CHECK-SAME: %[[M:.+]]: tensor<8x4xf32>, %[[I:.+]]: tensor<i32>, %[[J:.+]]: tensor<i32>)
# CHECK-NEXT: %[[ROW:.+]] = arr.gather %[[M]][%[[I]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<8x4xf32>, tensor<i32>) -> tensor<4xf32>
# CHECK-NEXT: %[[E:.+]] = arr.gather %[[ROW]][%[[J]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<4xf32>, tensor<i32>) -> tensor<f32>
# CHECK-NEXT: return %[[E]]
fn entry(m: f32[8, 4], i: i32, j: i32) -> f32 { return m[i, j]; }

# -----

# x[:, i]: the gather is along dimension 1.
# CHECK-LABEL: func.func private @column(
# CHECK: arr.gather %{{.+}}[%{{.+}}], axis = 1, batch_dims = 0, mode = clamp : (tensor<8x4xf32>, tensor<i32>) -> tensor<8xf32>
fn column(m: f32[8, 4], j: i32) -> f32[8] { return m[:, j]; }

# -----

# Horner's rule: c[5 - i] with the loop index.
# CHECK-LABEL: func.func private @horner(
# CHECK: arr.for 6
# CHECK: %[[FIVE:.+]] = arr.constant dense<5> : tensor<i32>
# CHECK: %[[K:.+]] = arr.sub %[[FIVE]], %{{.+}} : tensor<i32>
# CHECK: arr.gather %{{.+}}[%[[K]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<6xf32>, tensor<i32>) -> tensor<f32>
fn horner(c: f32[6], x: f32) -> f32 {
  for i in range(6) carry (acc = 0.0) { yield acc * x + c[5 - i]; }
  return acc;
}

# -----

# take: mode fill by default, clip on request; without axis the operand is
# flattened; a literal array of indices is i32.
# CHECK-LABEL: func.func private @takes(
# CHECK-SAME: %[[T:.+]]: tensor<100x8xf32>, %[[IDS:.+]]: tensor<5xi32>)
# CHECK: arr.gather %[[T]][%[[IDS]]], axis = 0, batch_dims = 0, mode = fill : (tensor<100x8xf32>, tensor<5xi32>) -> tensor<5x8xf32>
# CHECK: arr.gather %[[T]][%[[IDS]]], axis = 1, batch_dims = 0, mode = clip : (tensor<100x8xf32>, tensor<5xi32>) -> tensor<100x5xf32>
# CHECK: %[[LIT:.+]] = arr.constant dense<[3, -1]> : tensor<2xi32>
# CHECK: %[[FLAT:.+]] = arr.reshape %[[T]] : (tensor<100x8xf32>) -> tensor<800xf32>
# CHECK: arr.gather %[[FLAT]][%[[LIT]]], axis = 0, batch_dims = 0, mode = fill : (tensor<800xf32>, tensor<2xi32>) -> tensor<2xf32>
fn takes(t: f32[100, 8], ids: i32[5]) -> (f32[5, 8], f32[100, 5], f32[2]) {
  return (take(t, ids, axis=0), take(t, ids, axis=-1, mode=clip), take(t, [3, -1]));
}

# -----

# x.at[i].op(v): one scatter; a literal value is a splat of the updated
# shape, an array broadcasts to it.
# CHECK-LABEL: func.func private @updates(
# CHECK-SAME: %[[X:.+]]: tensor<10x4xf32>, %[[I:.+]]: tensor<i32>, %[[R:.+]]: tensor<4xf32>, %[[IDX:.+]]: tensor<3xi32>)
# CHECK: %[[ONE:.+]] = arr.constant dense<1.000000e+00> : tensor<4xf32>
# CHECK: %[[A:.+]] = arr.scatter %[[X]][%[[I]]], %[[ONE]], axis = 0, batch_dims = 0, kind = add : (tensor<10x4xf32>, tensor<i32>, tensor<4xf32>) -> tensor<10x4xf32>
# CHECK: %[[RB:.+]] = arr.broadcast_in_dim %[[R]], dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
# CHECK: %[[B:.+]] = arr.scatter %[[A]][%[[IDX]]], %[[RB]], axis = 0, batch_dims = 0, kind = max : (tensor<10x4xf32>, tensor<3xi32>, tensor<3x4xf32>) -> tensor<10x4xf32>
# CHECK: %[[TWO:.+]] = arr.constant dense<2> : tensor<i32>
# CHECK: %[[C:.+]] = arr.scatter %[[B]][%[[TWO]]], %{{.+}}, axis = 1, batch_dims = 0, kind = mul : (tensor<10x4xf32>, tensor<i32>, tensor<10xf32>) -> tensor<10x4xf32>
fn updates(x: f32[10, 4], i: i32, r: f32[4], idx: i32[3]) -> f32[10, 4] {
  return x.at[i].add(1.0).at[idx].max(r).at[:, 2].mul(0.5);
}

# -----

# Two scalar indices nest: the row is gathered, updated, and set back.
# CHECK-LABEL: func.func private @nested(
# CHECK-SAME: %[[M:.+]]: tensor<8x4xi32>, %[[I:.+]]: tensor<i32>, %[[J:.+]]: tensor<i32>)
# CHECK-NEXT: %[[ROW:.+]] = arr.gather %[[M]][%[[I]]], axis = 0, batch_dims = 0, mode = clamp : (tensor<8x4xi32>, tensor<i32>) -> tensor<4xi32>
# CHECK-NEXT: %[[V:.+]] = arr.constant dense<7> : tensor<i32>
# CHECK-NEXT: %[[ROW2:.+]] = arr.scatter %[[ROW]][%[[J]]], %[[V]], axis = 0, batch_dims = 0, kind = set : (tensor<4xi32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
# CHECK-NEXT: %[[R:.+]] = arr.scatter %[[M]][%[[I]]], %[[ROW2]], axis = 0, batch_dims = 0, kind = set : (tensor<8x4xi32>, tensor<i32>, tensor<4xi32>) -> tensor<8x4xi32>
# CHECK-NEXT: return %[[R]]
fn nested(m: i32[8, 4], i: i32, j: i32) -> i32[8, 4] { return m.at[i, j].set(7); }

# -----

# A static slice in .at[] is the array of the indices it selects.
# CHECK-LABEL: func.func private @window(
# CHECK: %[[W:.+]] = arr.constant dense<[1, 3, 5]> : tensor<3xi32>
# CHECK: arr.scatter %{{.+}}[%[[W]]], %{{.+}}, axis = 0, batch_dims = 0, kind = set : (tensor<8xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<8xf32>
fn window(x: f32[8]) -> f32[8] { return x.at[1:7:2].set(0.0); }
