# bench/hand_batched/knn_digits.arr: examples/knn_digits.arr (1-NN of the UCI
# digits, 256 queries per launch) batched by hand, without vmap: the batch of
# queries is an explicit leading dimension.
#
# The queries are declared f32[256, 1, 64], not f32[256, 64]: without
# `reshape` (not supported by the front end yet) this is the only way to get
# numpy's q[:, None, :] - refs[None, :, :]. The bytes are the same (row-major
# 256 x 64 floats); the host passes q.reshape(256, 1, 64).

# Nearest reference of each of 256 queries (the lowest index wins ties).
fn classify_hb(q: f32[256, 1, 64], refs: f32[1000, 64]) -> i32[256] {
  let d = q - refs;                 # f32[256, 1000, 64] by broadcasting
  let dist = sum(d * d, axis=2);    # f32[256, 1000]
  return argmin(dist, axis=1);      # i32[256]
}

# Only so that `vmapc run` can call it: nothing is mapped, so --arr-vmap
# makes a plain call (inlined) and adds no batch dimension. One launch = one
# call = 256 queries; run with --num-examples 1. bench/hand_batched.py plans
# this entry with the batch attributes of the vmapped export (see
# bench/README.md).
export classify = vmap(classify_hb, in_axes=none, out_axes=none, batch=1);
