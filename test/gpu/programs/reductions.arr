# Reductions on the GPU against the CPU: sum, max, min, argmin and argmax of
# one example's vector, at lengths that are 1, just under and over a warp
# (31, 33), not multiples of 32 (45, 129, 180, 1000, 8193), a multiple
# (48), and longer than any block (8193). Each entry returns all five, so
# the block reduction is checked at every length for each op; argmin and
# argmax keep the lowest index on ties (the checks feed small integers,
# which tie often). Then the reduced axis away from the innermost one, i32
# reductions, a mean and a reduction of a computed value.

fn all1(x: f32[1]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all31(x: f32[31]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all33(x: f32[33]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all45(x: f32[45]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all48(x: f32[48]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all129(x: f32[129]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all180(x: f32[180]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all1000(x: f32[1000]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
fn all8193(x: f32[8193]) -> (f32, f32, f32, i32, i32) {
  return (sum(x), max(x), min(x), argmin(x), argmax(x));
}
export reduce_1 = vmap(all1, batch=64);
export reduce_31 = vmap(all31, batch=64);
export reduce_33 = vmap(all33, batch=64);
export reduce_45 = vmap(all45, batch=32);
export reduce_48 = vmap(all48, batch=64);
export reduce_129 = vmap(all129, batch=16);
export reduce_180 = vmap(all180, batch=64);
export reduce_1000 = vmap(all1000, batch=64);
export reduce_8193 = vmap(all8193, batch=8);

# The reduced axis outermost (a column reduction: threads along the kept
# axis) and innermost of a 2-D example.
fn columns(x: f32[129, 7]) -> (f32[7], f32[7], i32[7]) {
  return (sum(x, axis=0), min(x, axis=0), argmax(x, axis=0));
}
fn rows(x: f32[5, 1000]) -> (f32[5], f32[5], i32[5]) {
  return (sum(x, axis=1), max(x, axis=1), argmin(x, axis=1));
}
export reduce_columns = vmap(columns, batch=32);
export reduce_rows = vmap(rows, batch=32);

# i32 reductions are exact whatever the order.
fn ints(x: i32[1000]) -> (i32, i32, i32, i32) {
  return (sum(x), max(x), min(x), argmax(x));
}
export reduce_i32 = vmap(ints, batch=64);

# A mean, and a reduction of an elementwise producer fused into it.
fn moments(x: f32[180]) -> (f32, f32) {
  let m = mean(x);
  let d = x - m;
  return (m, sum(d * d));
}
export reduce_moments = vmap(moments, batch=64);

# NaN in argmin and argmax: the first NaN wins (numpy, JAX) whichever
# thread, warp or lane holds it. On uniform data in [-1, 1), 1 element in
# 100 is NaN (most rows of 180 hold one, some two or none) and 1 in 200 of
# the columns of 129; max propagates it.
fn nan_rows(x: f32[5, 180]) -> (i32[5], i32[5], f32[5]) {
  let y = where(x > 0.98, nan, x);
  return (argmin(y, axis=1), argmax(y, axis=1), max(y, axis=1));
}
fn nan_columns(x: f32[129, 7]) -> (i32[7], i32[7]) {
  let y = where(x > 0.99, nan, x);
  return (argmin(y, axis=0), argmax(y, axis=0));
}
export reduce_nan_rows = vmap(nan_rows, batch=32);
export reduce_nan_columns = vmap(nan_columns, batch=32);
