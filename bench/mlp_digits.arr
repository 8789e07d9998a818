# bench/mlp_digits.arr: a 64-32-10 tanh MLP classifying the 8x8 UCI digits.
# One example is one image (64 pixels, 0-16); the weights are shared by all
# examples (bench/hand_batched.py trains them with numpy on rows 0-999).
# The hand-batched twin is bench/hand_batched/mlp_digits.arr.

# The predicted digit (0-9) of one image: the index of the largest logit.
fn mlp(x: f32[64], w1: f32[64, 32], b1: f32[32], w2: f32[32, 10],
       b2: f32[10]) -> i32 {
  let h = tanh(x @ w1 + b1);
  let logits = h @ w2 + b2;
  return argmax(logits);
}

# The entry point: 256 images per launch, the weights shared by all.
export predict = vmap(mlp, in_axes=(0, none, none, none, none), batch=256);
