# Elementwise chains on the GPU against the CPU: a fused multiply-add chain
# with shared scalars, the math functions (libdevice on the GPU, polynomials
# on the CPU) and the roundings, comparisons and selects, i32 arithmetic,
# casts, and a batch axis that is not outermost (staged on the way in and
# out).

fn affine_tanh(x: f32[4096], a: f32, b: f32, c: f32) -> f32[4096] {
  return tanh(x * a + b) * c;
}
export chain = vmap(affine_tanh, in_axes=(0, none, none, none), batch=256);

# For positive inputs (the checks feed [0.25, 4)).
fn transcendental(x: f32[300]) -> (f32[300], f32[300], f32[300], f32[300], f32[300]) {
  return (exp(x), log(x), sqrt(x), tanh(x - 2.0), x ** 1.5);
}
export math = vmap(transcendental, batch=64);

# sin, cos, log1p, expm1, erf, the roundings and softplus; scaled so that
# uniform data [-1, 1) reaches cos's zero at pi/2, log1p's arguments stay
# above -1, and 8x has ties at .5 for round (half to even on both devices).
fn special(x: f32[300]) -> (f32[300], f32[300], f32[300], f32[300], f32[300],
                            f32[300], f32[300], f32[300], f32[300]) {
  let y = 8.0 * x;
  return (sin(3.0 * x), cos(3.0 * x), log1p(0.5 * x), expm1(x), erf(2.0 * x),
          floor(y), ceil(y), round(y), softplus(4.0 * x));
}
export special_math = vmap(special, batch=64);

fn compare_select(x: f32[257], y: f32[257]) -> (f32[257], f32[257], f32[257], bool[257]) {
  return (where(x > y, x - y, y * 2.0), maximum(x, y), minimum(abs(x), sign(y)),
          x <= y);
}
export select = vmap(compare_select, batch=7);

fn int_ops(i: i32[100], j: i32[100]) -> (i32[100], i32[100], f32[100]) {
  return (i * j - 3, i / maximum(abs(j), 1), f32(i) * 0.5);
}
export integers = vmap(int_ops, batch=32);

# The batch axis second on the way in and last on the way out.
fn convert(x: f32[3, 50]) -> (i32[3, 50], f32[3, 50]) {
  return (i32(x * 100.0), f32(i32(x * 10.0)) - x);
}
export casts = vmap(convert, in_axes=1, out_axes=2, batch=16);

# A longer chain with a shared vector operand (broadcast along the batch).
fn exp_select(x: f32[1024], w: f32[1024]) -> f32[1024] {
  let y = x * w + 0.5;
  let z = exp(-(y * y)) - 0.25 * y;
  # Both branches are 1 at z = 0: a z that rounds to the other side of 0
  # on one device changes the result by a rounding, not by a jump.
  return where(z > 0.0, sqrt(z + 1.0), 1.0 + z / (1.0 + abs(w)));
}
export chain_long = vmap(exp_select, in_axes=(0, none), batch=128);
