# 1-nearest-neighbour classification of 8x8 handwritten digits (UCI digits).
# One example is one query image; the 1000 reference images are shared by all.

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

# The entry point: 256 queries per launch, the references shared by all.
export classify = vmap(nearest, in_axes=(0, none), batch=256);
