# bench/hand_batched/mlp_digits.arr: bench/mlp_digits.arr (a 64-32-10 tanh
# MLP on the UCI digits, 256 images per launch) batched by hand, without
# vmap: the batch of images is an explicit leading dimension.

fn predict_hb(x: f32[256, 64], w1: f32[64, 32], b1: f32[32], w2: f32[32, 10],
              b2: f32[10]) -> i32[256] {
  let h = tanh(x @ w1 + b1);        # f32[256, 32]; b1 broadcasts over rows
  let logits = h @ w2 + b2;         # f32[256, 10]
  return argmax(logits, axis=1);    # i32[256]
}

# Only so that `vmapc run` can call it (nothing mapped: a plain call).
export predict = vmap(predict_hb, in_axes=none, out_axes=none, batch=1);
