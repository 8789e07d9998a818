# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# The arr IR the front end emits for each construct of the language.

# numpy broadcasting is explicit: both operands are broadcast to [3, 4].
# CHECK-LABEL: func.func private @bcast(
# CHECK-SAME: %[[A:.+]]: tensor<3x1xf32>, %[[B:.+]]: tensor<4xf32>) -> tensor<3x4xf32>
# CHECK: %[[BA:.+]] = arr.broadcast_in_dim %[[A]], dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x4xf32>
# CHECK: %[[BB:.+]] = arr.broadcast_in_dim %[[B]], dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
# CHECK: %[[S:.+]] = arr.add %[[BA]], %[[BB]] : tensor<3x4xf32>
# CHECK: return %[[S]] : tensor<3x4xf32>
fn bcast(a: f32[3, 1], b: f32[4]) -> f32[3, 4] {
  return a + b;
}

# -----

# Only the operand that needs it is broadcast; operand order is kept.
# CHECK-LABEL: func.func private @scalar_bcast(
# CHECK-SAME: %[[A:.+]]: tensor<2x3xf32>, %[[S:.+]]: tensor<f32>)
# CHECK: %[[BS:.+]] = arr.broadcast_in_dim %[[S]], dims = [] : (tensor<f32>) -> tensor<2x3xf32>
# CHECK: %[[M:.+]] = arr.mul %[[BS]], %[[A]] : tensor<2x3xf32>
# CHECK: %[[BS2:.+]] = arr.broadcast_in_dim %[[S]], dims = []
# CHECK: %[[D:.+]] = arr.div %[[A]], %[[BS2]] : tensor<2x3xf32>
# CHECK: arr.sub %[[M]], %[[D]] : tensor<2x3xf32>
fn scalar_bcast(a: f32[2, 3], s: f32) -> f32[2, 3] {
  return s * a - a / s;
}

# -----

# Weakly typed literals take the dtype and shape of the other operand;
# literal-only arithmetic is folded (`/` of literals is true division).
# CHECK-LABEL: func.func private @literals(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>, %[[I:.+]]: tensor<3xi32>)
# CHECK: %[[K:.+]] = arr.constant dense<20> : tensor<3xi32>
# CHECK: %[[IK:.+]] = arr.mul %[[I]], %[[K]] : tensor<3xi32>
# CHECK: %[[ONE:.+]] = arr.constant dense<1> : tensor<3xi32>
# CHECK: arr.sub %[[IK]], %[[ONE]] : tensor<3xi32>
# CHECK: %[[TWO:.+]] = arr.constant dense<2.000000e+00> : tensor<3xf32>
# CHECK: %[[X2:.+]] = arr.mul %[[X]], %[[TWO]] : tensor<3xf32>
# CHECK: %[[HALF:.+]] = arr.constant dense<5.000000e-01> : tensor<3xf32>
# CHECK: %[[SUM:.+]] = arr.add %[[X2]], %[[HALF]] : tensor<3xf32>
# CHECK: %[[Q:.+]] = arr.constant dense<2.500000e+00> : tensor<3xf32>
# CHECK: arr.add %[[SUM]], %[[Q]] : tensor<3xf32>
fn literals(x: f32[3], i: i32[3]) -> f32[3] {
  let k = (2 + 3) * 4;
  let j = i * k - 1;
  return x * 2 + 0.5 + k / 8;
}

# -----

# A returned literal takes the declared type.
# CHECK-LABEL: func.func private @literal_return() -> tensor<i32>
# CHECK: %[[C:.+]] = arr.constant dense<7> : tensor<i32>
# CHECK: return %[[C]] : tensor<i32>
fn literal_return() -> i32 {
  return 7;
}

# -----

# CHECK-LABEL: func.func private @compare(
# CHECK-SAME: %[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<f32>, %[[I:.+]]: tensor<3xi32>) -> tensor<3xi1>
# CHECK: %[[BB:.+]] = arr.broadcast_in_dim %[[B]], dims = [] : (tensor<f32>) -> tensor<3xf32>
# CHECK: arr.cmp lt, %[[A]], %[[BB]] : tensor<3xf32> -> tensor<3xi1>
# CHECK: arr.cmp le,
# CHECK: %[[ONE:.+]] = arr.constant dense<1.000000e+00> : tensor<3xf32>
# CHECK: arr.cmp gt, %[[A]], %[[ONE]] : tensor<3xf32> -> tensor<3xi1>
# CHECK: %[[ZERO:.+]] = arr.constant dense<0> : tensor<3xi32>
# CHECK: arr.cmp ge, %[[I]], %[[ZERO]] : tensor<3xi32> -> tensor<3xi1>
# CHECK: arr.cmp eq, %[[I]], %[[I]] : tensor<3xi32> -> tensor<3xi1>
# CHECK: %[[NE:.+]] = arr.cmp ne,
# CHECK: return %[[NE]] : tensor<3xi1>
fn compare(a: f32[3], b: f32, i: i32[3]) -> bool[3] {
  let c0 = a < b;
  let c1 = a <= b;
  let c2 = a > 1;
  let c3 = i >= 0;
  let c4 = i == i;
  return a != b;
}

# -----

# Unary minus binds tighter than '*'; a negated literal stays a literal.
# CHECK-LABEL: func.func private @neg(
# CHECK-SAME: %[[A:.+]]: tensor<3xf32>)
# CHECK: %[[N:.+]] = arr.neg %[[A]] : tensor<3xf32>
# CHECK: %[[M1:.+]] = arr.constant dense<-1.000000e+00> : tensor<3xf32>
# CHECK: arr.mul %[[N]], %[[M1]] : tensor<3xf32>
fn neg(a: f32[3]) -> f32[3] {
  return -a * -1;
}

# -----

# '@' follows numpy matmul for ranks 1 and 2.
# CHECK-LABEL: func.func private @matmul(
# CHECK-SAME: %[[V:[^:]+]]: tensor<4xf32>, %[[W:[^:]+]]: tensor<4xf32>, %[[M:[^:]+]]: tensor<4x5xf32>, %[[N:[^:]+]]: tensor<3x4xf32>)
# CHECK: arr.dot_general %[[V]], %[[W]], lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
# CHECK: arr.dot_general %[[V]], %[[M]], lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<4xf32>, tensor<4x5xf32>) -> tensor<5xf32>
# CHECK: arr.dot_general %[[N]], %[[V]], lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
# CHECK: arr.dot_general %[[N]], %[[M]], lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
fn matmul(v: f32[4], w: f32[4], m: f32[4, 5], n: f32[3, 4]) -> f32 {
  let vv = v @ w;
  let vm = v @ m;
  let nv = n @ v;
  let nm = n @ m;
  return vv;
}

# -----

# Reduction axes are normalised (negative counts from the end) and sorted;
# no axis (or axis=none) reduces all axes.
# CHECK-LABEL: func.func private @reductions(
# CHECK-SAME: %[[X:.+]]: tensor<2x3x4xf32>)
# CHECK: arr.reduce_sum %[[X]], dims = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<f32>
# CHECK: arr.reduce_sum %[[X]], dims = [1] : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
# CHECK: arr.reduce_max %[[X]], dims = [2] : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
# CHECK: arr.reduce_min %[[X]], dims = [0, 2] : (tensor<2x3x4xf32>) -> tensor<3xf32>
# CHECK: arr.reduce_sum %[[X]], dims = [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<f32>
fn reductions(x: f32[2, 3, 4]) -> f32 {
  let a = sum(x);
  let b = sum(x, axis=1);
  let c = max(x, axis=-1);
  let d = min(x, axis=(2, 0));
  let e = sum(x, axis=none);
  return a;
}

# -----

# argmin/argmax without axis= index the flattened operand (a reshape to
# 1-D, skipped when the operand is 1-D already).
# CHECK-LABEL: func.func private @argreductions(
# CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>, %[[V:.+]]: tensor<5xi32>)
# CHECK: %[[FLAT:.+]] = arr.reshape %[[X]] : (tensor<2x3xf32>) -> tensor<6xf32>
# CHECK: %[[AMIN:.+]] = arr.argmin %[[FLAT]], axis = 0 : (tensor<6xf32>) -> tensor<i32>
# CHECK: arr.argmax %[[X]], axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
# CHECK-NOT: arr.reshape
# CHECK: arr.argmax %[[V]], axis = 0 : (tensor<5xi32>) -> tensor<i32>
# CHECK: return %[[AMIN]] : tensor<i32>
fn argreductions(x: f32[2, 3], v: i32[5]) -> i32 {
  let a = argmin(x);
  let b = argmax(x, axis=-1);
  let c = argmax(v);
  return a;
}

# -----

# CHECK-LABEL: func.func private @unary(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>)
# CHECK: arr.exp %[[X]] : tensor<3xf32>
# CHECK: arr.log %[[X]] : tensor<3xf32>
# CHECK: arr.tanh %[[X]] : tensor<3xf32>
# CHECK: arr.sqrt %[[X]] : tensor<3xf32>
# An int literal given to exp is an f32 scalar.
# CHECK: %[[ONE:.+]] = arr.constant dense<1.000000e+00> : tensor<f32>
# CHECK: arr.exp %[[ONE]] : tensor<f32>
fn unary(x: f32[3]) -> f32[3] {
  return exp(x) + log(x) + tanh(x) + sqrt(x) + exp(1);
}

# -----

# User functions are called with func.call; a literal argument takes the
# parameter's type.
# CHECK-LABEL: func.func private @callee(
# CHECK-LABEL: func.func private @caller(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>)
# CHECK: %[[TWO:.+]] = arr.constant dense<2.000000e+00> : tensor<f32>
# CHECK: %[[R:.+]] = call @callee(%[[X]], %[[TWO]]) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
# CHECK: return %[[R]]
fn callee(a: f32[3], s: f32) -> f32[3] { return a * s; }
fn caller(x: f32[3]) -> f32[3] {
  return callee(x, 2);
}

# -----

# Inline vmap: negative in/out axes are normalised, none becomes unit, and
# the axis size comes from the mapped operands.
# CHECK-LABEL: func.func private @inline_vmap(
# CHECK-SAME: %[[A:.+]]: tensor<f32>, %[[XS:.+]]: tensor<3x8xf32>, %[[YS:.+]]: tensor<8x3xf32>) -> tensor<3x8xf32>
# CHECK: %[[R:.+]] = arr.vmap_call @axpy(%[[A]], %[[XS]], %[[YS]]) {axis_size = 8 : i64, in_axes = [unit, 1, 0], out_axes = [1]} : (tensor<f32>, tensor<3x8xf32>, tensor<8x3xf32>) -> tensor<3x8xf32>
# CHECK: return %[[R]] : tensor<3x8xf32>
fn axpy(a: f32, x: f32[3], y: f32[3]) -> f32[3] { return a * x + y; }
fn inline_vmap(a: f32, xs: f32[3, 8], ys: f32[8, 3]) -> f32[3, 8] {
  return vmap(axpy, in_axes=(none, -1, 0), out_axes=-1)(a, xs, ys);
}

# -----

# No operand mapped: axis_size= gives the size.
# CHECK-LABEL: func.func private @unmapped(
# CHECK: arr.vmap_call @ident(%{{.+}}) {axis_size = 5 : i64, in_axes = [unit], out_axes = [0]} : (tensor<f32>) -> tensor<5xf32>
fn ident(a: f32) -> f32 { return a; }
fn unmapped(a: f32) -> f32[5] {
  return vmap(ident, in_axes=none, axis_size=5)(a);
}

# -----

# The kNN program of docs/design.md. The named nested map `pairwise` is a
# template: each application materialises its inner vmap once per
# per-example signature (@pairwise_inner_0 is reused by the second call).
# CHECK-LABEL: func.func private @sqdist(
# CHECK-LABEL: func.func private @nearest(
# CHECK-SAME: %[[Q:.+]]: tensor<64xf32>, %[[REFS:.+]]: tensor<1000x64xf32>) -> tensor<i32>
# CHECK: %[[D:.+]] = arr.vmap_call @sqdist(%[[Q]], %[[REFS]]) {axis_size = 1000 : i64, in_axes = [unit, 0], out_axes = [0]} : (tensor<64xf32>, tensor<1000x64xf32>) -> tensor<1000xf32>
# CHECK: %[[I:.+]] = arr.argmin %[[D]], axis = 0 : (tensor<1000xf32>) -> tensor<i32>
# CHECK: return %[[I]] : tensor<i32>
# CHECK-LABEL: func.func private @all_pairs(
# CHECK-SAME: %[[Q:[^:]+]]: tensor<8x64xf32>, %[[R1:[^:]+]]: tensor<1000x64xf32>, %[[R2:[^:]+]]: tensor<1000x64xf32>)
# CHECK: arr.vmap_call @pairwise_inner_0(%[[Q]], %[[R1]]) {axis_size = 8 : i64, in_axes = [0, unit], out_axes = [0]} : (tensor<8x64xf32>, tensor<1000x64xf32>) -> tensor<8x1000xf32>
# CHECK: arr.vmap_call @pairwise_inner_0(%[[Q]], %[[R2]]) {axis_size = 8 : i64, in_axes = [0, unit], out_axes = [0]}
# CHECK-LABEL: func.func private @all_pairs_small(
# CHECK: arr.vmap_call @pairwise_inner_1(%{{.+}}, %{{.+}}) {axis_size = 2 : i64, in_axes = [0, unit], out_axes = [0]} : (tensor<2x64xf32>, tensor<3x64xf32>) -> tensor<2x3xf32>
# CHECK-LABEL: func.func private @pairwise_inner_0(
# CHECK-SAME: %[[A:.+]]: tensor<64xf32>, %[[B:.+]]: tensor<1000x64xf32>) -> tensor<1000xf32>
# CHECK: %[[R:.+]] = arr.vmap_call @sqdist(%[[A]], %[[B]]) {axis_size = 1000 : i64, in_axes = [unit, 0], out_axes = [0]}
# CHECK: return %[[R]] : tensor<1000xf32>
# CHECK-LABEL: func.func private @pairwise_inner_1(
# CHECK-SAME: tensor<64xf32>, %{{.+}}: tensor<3x64xf32>) -> tensor<3xf32>
# CHECK: arr.vmap_call @sqdist({{.*}}axis_size = 3 : i64
# CHECK-LABEL: func.func @classify(
# CHECK-SAME: %[[Q:.+]]: tensor<256x64xf32> {arr.name = "q"}, %[[REFS:.+]]: tensor<1000x64xf32> {arr.name = "refs"}) -> (tensor<256xi32> {arr.name = "out"})
# CHECK-SAME: attributes {arr.batch = 256 : i64, arr.in_axes = [0, unit], arr.out_axes = [0]}
# CHECK: %[[R:.+]] = arr.vmap_call @nearest(%[[Q]], %[[REFS]]) {axis_size = 256 : i64, in_axes = [0, unit], out_axes = [0]} : (tensor<256x64xf32>, tensor<1000x64xf32>) -> tensor<256xi32>
# CHECK: return %[[R]] : tensor<256xi32>
fn sqdist(a: f32[64], b: f32[64]) -> f32 { let d = a - b; return sum(d * d); }
fn pairwise = vmap(vmap(sqdist, in_axes=(none, 0)), in_axes=(0, none));
fn nearest(q: f32[64], refs: f32[1000, 64]) -> i32 {
  return argmin(vmap(sqdist, in_axes=(none, 0))(q, refs));
}
fn all_pairs(q: f32[8, 64], refs: f32[1000, 64], r2: f32[1000, 64]) -> f32[8, 1000] {
  return pairwise(q, refs) + pairwise(q, r2);
}
fn all_pairs_small(q: f32[2, 64], refs: f32[3, 64]) -> f32[2, 3] {
  return pairwise(q, refs);
}
export classify = vmap(nearest, in_axes=(0, none), batch=256);

# -----

# Exporting a named map with axis_size=: its per-example signature is
# derived (a: f32[4, 3], s: f32 -> f32[3, 4]); the batch axis goes to the
# normalised in_axes; parameter names come from the mapped fn.
# CHECK-LABEL: func.func @batched(
# CHECK-SAME: %[[A:.+]]: tensor<4x3x16xf32> {arr.name = "a"}, %[[S:.+]]: tensor<16xf32> {arr.name = "s"}) -> (tensor<16x3x4xf32> {arr.name = "out"})
# CHECK-SAME: attributes {arr.batch = 16 : i64, arr.in_axes = [2, 0], arr.out_axes = [0]}
# CHECK: arr.vmap_call @rows_inner_0(%[[A]], %[[S]]) {axis_size = 16 : i64, in_axes = [2, 0], out_axes = [0]} : (tensor<4x3x16xf32>, tensor<16xf32>) -> tensor<16x3x4xf32>
# CHECK-LABEL: func.func private @rows_inner_0(
# CHECK-SAME: tensor<4x3xf32>, %{{.+}}: tensor<f32>) -> tensor<3x4xf32>
# CHECK: arr.vmap_call @scale(%{{.+}}, %{{.+}}) {axis_size = 4 : i64, in_axes = [0, unit], out_axes = [1]} : (tensor<4x3xf32>, tensor<f32>) -> tensor<3x4xf32>
fn scale(a: f32[3], s: f32) -> f32[3] { return a * s; }
fn rows = vmap(scale, in_axes=(0, none), out_axes=1, axis_size=4);
export batched = vmap(rows, in_axes=(-1, 0), out_axes=0, batch=16);

# -----

# An export with an unmapped (none) parameter and out_axes=1.
# CHECK-LABEL: func.func @outer(
# CHECK-SAME: %{{.+}}: tensor<3x7xf32> {arr.name = "x"}, %{{.+}}: tensor<f32> {arr.name = "s"}) -> (tensor<3x7xf32> {arr.name = "out"})
# CHECK-SAME: attributes {arr.batch = 7 : i64, arr.in_axes = [1, unit], arr.out_axes = [1]}
# CHECK: arr.vmap_call @scale2({{.*}}) {axis_size = 7 : i64, in_axes = [1, unit], out_axes = [1]} : (tensor<3x7xf32>, tensor<f32>) -> tensor<3x7xf32>
fn scale2(x: f32[3], s: f32) -> f32[3] { return x * s; }
export outer = vmap(scale2, in_axes=(-1, none), out_axes=-1, batch=7);

# -----

# An inline nested vmap inside a fn: the inner vmap becomes
# @<fn>_inner_0. A vmap of a named map materialises the map as
# @<map>_inner_N (and its own inner vmap as the next N). A literal operand
# (unmapped) takes the parameter's dtype.
# CHECK-LABEL: func.func private @nested_inline(
# CHECK-SAME: %[[X:.+]]: tensor<2x3x5xf32>) -> tensor<5x3x2xf32>
# CHECK: arr.vmap_call @nested_inline_inner_0(%[[X]]) {axis_size = 5 : i64, in_axes = [2], out_axes = [0]} : (tensor<2x3x5xf32>) -> tensor<5x3x2xf32>
# CHECK-LABEL: func.func private @of_named(
# CHECK-SAME: %[[Y:.+]]: tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
# CHECK: %[[C:.+]] = arr.constant dense<3.000000e+00> : tensor<f32>
# CHECK: arr.vmap_call @cols_inner_0(%[[Y]], %[[C]]) {axis_size = 4 : i64, in_axes = [0, unit], out_axes = [0]} : (tensor<4x2x3xf32>, tensor<f32>) -> tensor<4x2x3xf32>
# CHECK-LABEL: func.func private @nested_inline_inner_0(
# CHECK-SAME: %[[P:.+]]: tensor<2x3xf32>) -> tensor<3x2xf32>
# CHECK: arr.vmap_call @sq(%[[P]]) {axis_size = 3 : i64, in_axes = [1], out_axes = [0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
# CHECK-LABEL: func.func private @cols_inner_0(
# CHECK-SAME: tensor<2x3xf32>, %{{.+}}: tensor<f32>) -> tensor<2x3xf32>
# CHECK: arr.vmap_call @cols_inner_1({{.*}}) {axis_size = 2 : i64, in_axes = [0, unit], out_axes = [0]} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
# CHECK-LABEL: func.func private @cols_inner_1(
# CHECK-SAME: tensor<3xf32>, %{{.+}}: tensor<f32>) -> tensor<3xf32>
# CHECK: arr.vmap_call @mul({{.*}}) {axis_size = 3 : i64, in_axes = [0, unit], out_axes = [0]} : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
fn sq(a: f32[2]) -> f32[2] { return a * a; }
fn nested_inline(x: f32[2, 3, 5]) -> f32[5, 3, 2] {
  return vmap(vmap(sq, in_axes=1), in_axes=-1)(x);
}
fn mul(a: f32, s: f32) -> f32 { return a * s; }
fn cols = vmap(vmap(mul, in_axes=(0, none)), in_axes=(0, none));
fn of_named(y: f32[4, 2, 3]) -> f32[4, 2, 3] {
  return vmap(cols, in_axes=(0, none))(y, 3);
}
