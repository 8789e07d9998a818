# RUN: vmapc-opt %s -split-input-file | FileCheck %s
# The elementwise math builtins: one arr op each (an f32 operand, a literal
# made an f32 scalar), and softplus as its composition (jax.nn.softplus).

# CHECK-LABEL: func.func private @trig(
# CHECK-SAME: %[[X:.+]]: tensor<3xf32>)
# CHECK: %[[S:.+]] = arr.sin %[[X]] : tensor<3xf32>
# CHECK: %[[C:.+]] = arr.cos %[[X]] : tensor<3xf32>
# CHECK: %[[ONE:.+]] = arr.constant dense<1.000000e+00> : tensor<f32>
# CHECK: %[[S1:.+]] = arr.sin %[[ONE]] : tensor<f32>
# CHECK: return %[[S]], %[[C]], %[[S1]]
fn trig(x: f32[3]) -> (f32[3], f32[3], f32) {
  return (sin(x), cos(x), sin(1));
}

# -----

# CHECK-LABEL: func.func private @near_zero(
# CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>)
# CHECK: %[[L:.+]] = arr.log1p %[[X]] : tensor<2x3xf32>
# CHECK: %[[E:.+]] = arr.expm1 %[[X]] : tensor<2x3xf32>
# CHECK: %[[F:.+]] = arr.erf %[[X]] : tensor<2x3xf32>
# CHECK: return %[[L]], %[[E]], %[[F]]
fn near_zero(x: f32[2, 3]) -> (f32[2, 3], f32[2, 3], f32[2, 3]) {
  return (log1p(x), expm1(x), erf(x));
}

# -----

# round is half to even (jnp.round): arr.round.
# CHECK-LABEL: func.func private @roundings(
# CHECK-SAME: %[[X:.+]]: tensor<4xf32>)
# CHECK: %[[F:.+]] = arr.floor %[[X]] : tensor<4xf32>
# CHECK: %[[C:.+]] = arr.ceil %[[X]] : tensor<4xf32>
# CHECK: %[[R:.+]] = arr.round %[[X]] : tensor<4xf32>
# CHECK: %[[H:.+]] = arr.constant dense<2.500000e+00> : tensor<f32>
# CHECK: %[[RH:.+]] = arr.round %[[H]] : tensor<f32>
# CHECK: return %[[F]], %[[C]], %[[R]], %[[RH]]
fn roundings(x: f32[4]) -> (f32[4], f32[4], f32[4], f32) {
  return (floor(x), ceil(x), round(x), round(2.5));
}

# -----

# softplus(x) = log1p(exp(-|x|)) + maximum(x, 0): finite for every finite x,
# accurate for very negative x; the 0 is a splat of x's shape.
# CHECK-LABEL: func.func private @sp(
# CHECK-SAME: %[[X:.+]]: tensor<2x3xf32>)
# CHECK: %[[A:.+]] = arr.abs %[[X]] : tensor<2x3xf32>
# CHECK: %[[N:.+]] = arr.neg %[[A]] : tensor<2x3xf32>
# CHECK: %[[E:.+]] = arr.exp %[[N]] : tensor<2x3xf32>
# CHECK: %[[Z:.+]] = arr.constant dense<0.000000e+00> : tensor<2x3xf32>
# CHECK: %[[M:.+]] = arr.maximum %[[X]], %[[Z]] : tensor<2x3xf32>
# CHECK: %[[L:.+]] = arr.log1p %[[E]] : tensor<2x3xf32>
# CHECK: %[[R:.+]] = arr.add %[[L]], %[[M]] : tensor<2x3xf32>
# CHECK: return %[[R]]
fn sp(x: f32[2, 3]) -> f32[2, 3] { return softplus(x); }

# -----

# The operand of a vmapped function: the ops batch like any elementwise op.
# CHECK-LABEL: func.func private @per_example(
# CHECK: arr.erf %{{.+}} : tensor<5xf32>
# CHECK-LABEL: func.func @e(
# CHECK: arr.vmap_call @per_example
fn per_example(x: f32[5]) -> f32[5] { return erf(x) * floor(x); }
export e = vmap(per_example, batch=8);
