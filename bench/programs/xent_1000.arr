# Softmax cross-entropy of 1000-class logits against an integer label: the
# negative log-probability of the label, -log_softmax(z)[y] (shifted by
# the maximum, as jax.nn.log_softmax).
fn cross_entropy(z: f32[1000], label: i32) -> f32 {
  return -log_softmax(z)[label];
}
export xent = vmap(cross_entropy, batch=256);
