# bench/knn_digits_b1.arr: examples/knn_digits.arr exported with batch=1, so the
# runtime runs one query per launch (797 launches for the 797 benchmark
# queries). Keep the functions identical to examples/knn_digits.arr.

# Squared Euclidean distance between two 64-pixel images.
fn sqdist(a: f32[64], b: f32[64]) -> f32 {
  let d = a - b;
  return sum(d * d);
}

# All pairs: inner map over references, outer map over queries.
fn pairwise = vmap(vmap(sqdist, in_axes=(none, 0)), in_axes=(0, none));

# Index of the nearest reference for one query (the lowest index wins ties).
fn nearest(q: f32[64], refs: f32[1000, 64]) -> i32 {
  return argmin(vmap(sqdist, in_axes=(none, 0))(q, refs));
}

# The entry point: ONE query per launch, the references shared by all.
export classify = vmap(nearest, in_axes=(0, none), batch=1);
