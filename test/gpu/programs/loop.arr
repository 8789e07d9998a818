# Loops on the GPU against the CPU: a recurrence whose carry feeds a
# contraction (the schedule's loop repeats its dispatches), a loop index used
# in the body, and a loop nested in another.

fn rnn(x: f32[32], w: f32[64, 64], u: f32[64, 32]) -> f32[64] {
  for i in range(7) carry (h = zeros((64,))) {
    yield tanh(w @ h + u @ x);
  }
  return h;
}
export recurrence = vmap(rnn, in_axes=(0, none, none), batch=64);

fn nested(x: f32[100]) -> (f32[100], i32) {
  for i in range(5) carry (acc = x, n = 0) {
    for j in range(3) carry (inner = acc) {
      yield inner * 0.5 + f32(i * j);
    }
    yield (inner, n + i);
  }
  return (acc, n);
}
export indexed = vmap(nested, batch=32);

# cumsum and cumprod: a loop over the axis that gathers element i and
# scatters the running value into place (the same additions and products
# in the same order on both devices), along a middle axis, flattened, and
# over bool (counted as i32).
fn cumulative(x: f32[6, 40, 3], m: bool[50]) -> (f32[6, 40, 3], f32[6, 40, 3], f32[720], i32[50]) {
  return (cumsum(x, axis=1), cumprod(x, axis=0), cumsum(x), cumsum(m));
}
export scans = vmap(cumulative, in_axes=(2, 0), batch=16);
