# The per-example gradient of a linear model's squared error,
# 0.5 * (sum(x * w) - y)^2, with respect to w: the prediction, a row
# reduction against the shared weights, then the same row scaled by the
# residual.
fn linear_grad(x: f32[784], w: f32[784], y: f32) -> f32[784] {
  let p = sum(x * w);
  return (p - y) * x;
}

export linear_grad_batch = vmap(linear_grad, in_axes=(0, none, 0), batch=256);
