# bench/hand_batched/knn_digits_b1.arr: bench/knn_digits_b1.arr (1-NN of the
# UCI digits, one query per launch) batched by hand, without vmap: the batch
# (of one query) is an explicit leading dimension. As in
# bench/hand_batched/knn_digits.arr, the query is f32[1, 1, 64] because the
# front end has no `reshape` yet.

fn classify_hb(q: f32[1, 1, 64], refs: f32[1000, 64]) -> i32[1] {
  let d = q - refs;                 # f32[1, 1000, 64] by broadcasting
  let dist = sum(d * d, axis=2);    # f32[1, 1000]
  return argmin(dist, axis=1);      # i32[1]
}

# Only so that `vmapc run` can call it (nothing mapped: a plain call).
export classify = vmap(classify_hb, in_axes=none, out_axes=none, batch=1);
