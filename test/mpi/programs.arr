# The programs of the vmapc-mpi-run test (mpi_run_test.py): every kind of
# argument the tool moves between ranks.

# x mapped on axis 0 (affine0: x is [N, 3]) or on axis 1 (affine1: [3, N]).
fn affine(x: f32[3], w: f32[3, 2], b: f32[2]) -> f32[2] {
  return x @ w + b;
}
export affine0 = vmap(affine, in_axes=(0, none, none), batch=2);
export affine1 = vmap(affine, in_axes=(1, none, none), batch=2);

# x mapped on its middle axis ([4, N, 3]); outputs mapped on axes 0, 2, 0
# and 1, of f32, i32 and bool, and one unmapped output.
fn mixed(x: f32[4, 3], t: f32, w: f32[3])
    -> (f32[3], f32[4, 3], i32, bool[4], f32[3]) {
  let rows = sum(x, axis=1);
  return (sum(x, axis=0) * w, x * t, argmax(rows), rows > t, w * t);
}
export mixed_e = vmap(mixed, in_axes=(1, none, none),
                      out_axes=(0, 2, 0, 1, none), batch=4);

# No mapped input: N comes from --num-examples.
fn fill(s: f32) -> f32[8] {
  return zeros((8,)) + s;
}
export fill_e = vmap(fill, in_axes=none, batch=4);

# 256 KiB out of each 4-byte example: 16385 examples make an output of more
# than 2^32 bytes (the test's opt-in large case).
fn spread(s: f32) -> f32[65536] {
  return zeros((65536,)) + s;
}
export spread_e = vmap(spread, batch=64);
