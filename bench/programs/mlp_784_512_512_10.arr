# A 784-512-512-10 tanh MLP (MNIST-sized): logits of one example.
fn mlp(x: f32[784], w1: f32[784, 512], b1: f32[512], w2: f32[512, 512],
       b2: f32[512], w3: f32[512, 10], b3: f32[10]) -> f32[10] {
  let h1 = tanh(x @ w1 + b1);
  let h2 = tanh(h1 @ w2 + b2);
  return h2 @ w3 + b3;
}
export predict = vmap(mlp, in_axes=(0, none, none, none, none, none, none),
                      batch=256);
