# Layer normalisation over 768 features with a learned scale and shift.
fn layernorm(x: f32[768], g: f32[768], b: f32[768]) -> f32[768] {
  let d = x - mean(x);
  let v = mean(d * d);
  return d / sqrt(v + 0.00001) * g + b;
}
export layernorm_batch = vmap(layernorm, in_axes=(0, none, none), batch=256);
