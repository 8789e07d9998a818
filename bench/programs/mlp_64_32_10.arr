# A 64-32-10 tanh MLP (the digits' shape): logits of one example.
fn mlp(x: f32[64], w1: f32[64, 32], b1: f32[32], w2: f32[32, 10],
       b2: f32[10]) -> f32[10] {
  let h = tanh(x @ w1 + b1);
  return h @ w2 + b2;
}
export predict = vmap(mlp, in_axes=(0, none, none, none, none), batch=256);
