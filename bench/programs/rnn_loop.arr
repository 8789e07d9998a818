# 20 steps of a tanh recurrence: hidden 64, input 32.
fn rnn(x: f32[32], w: f32[64, 64], u: f32[64, 32]) -> f32[64] {
  for i in range(20) carry (h = zeros((64,))) {
    yield tanh(w @ h + u @ x);
  }
  return h;
}
export rnn_batch = vmap(rnn, in_axes=(0, none, none), batch=256);
