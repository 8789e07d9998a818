# DP-SGD's per-example step for softmax regression on the UCI digits (64
# pixels, 0-16 as given; 10 classes): each example's gradient of the
# cross-entropy loss with respect to W (10 x 64) and b (10), clipped to L2
# norm C = 1 over W and b together, and the example's loss. The host
# (examples/dpsgd_digits.cpp) sums the clipped gradients of a batch, adds
# Gaussian noise N(0, sigma^2 C^2 I) and takes the step.
#
# loss(W, b, x, y) = -log softmax(W x + b)[y] = log(sum(exp(z))) - z[y],
# with z = logits - max(logits) (the stable form: no exp overflows).
# Its gradient: with p = softmax(W x + b) and g = p - onehot(y),
# dloss/dW = g (outer) x and dloss/db = g.

fn grad_step(w: f32[10, 64], b: f32[10], x: f32[64], y: i32)
    -> (f32[10, 64], f32[10], f32) {
  let logits = w @ x + b;
  let z = logits - max(logits);
  let e = exp(z);
  let s = sum(e);
  let loss = log(s) - z[y];              # -log p[y], read with logits[y]-style indexing
  let g = (e / s).at[y].add(-1.0);       # softmax - onehot(y)
  let gw = reshape(g, (10, 1)) * x;      # the outer product g x^T
  # Clip to L2 norm C = 1 over (gw, g): scale = 1 / max(1, |grad| / C).
  let norm = sqrt(sum(gw * gw) + sum(g * g));
  let scale = 1.0 / maximum(norm, 1.0);
  return (gw * scale, g * scale, loss);
}

# W and b are shared by the whole batch (in_axes none); x and y are per
# example. 256 examples per launch.
export per_example_grads = vmap(grad_step, in_axes=(none, none, 0, 0), batch=256);
