# Contractions on the GPU against the CPU (f32 FMA on both; never TF32): a
# shared weight matrix, per-example matrices on both sides, matrix-vector,
# vector-matrix and dot products, at sizes that are not multiples of a tile.

fn affine(x: f32[45], w: f32[45, 17], b: f32[17]) -> f32[17] {
  return x @ w + b;
}
export linear = vmap(affine, in_axes=(0, none, none), batch=64);

fn square(a: f32[33, 45], b: f32[45, 31]) -> f32[33, 31] {
  return a @ b;
}
export matmul = vmap(square, batch=8);

fn mat_vec(a: f32[129, 64], v: f32[64]) -> (f32[129], f32[64]) {
  return (a @ v, v @ a[0:64, :]);
}
export matvec = vmap(mat_vec, in_axes=(none, 0), batch=32);

fn inner(a: f32[1000], b: f32[1000]) -> f32 {
  return a @ b;
}
export dot = vmap(inner, batch=64);

# Two layers: a contraction feeding another through tanh.
fn mlp(x: f32[100], w1: f32[100, 48], w2: f32[48, 10]) -> f32[10] {
  return tanh(x @ w1) @ w2;
}
export two_layers = vmap(mlp, in_axes=(0, none, none), batch=256);
