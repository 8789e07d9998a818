# A histogram by in-place updates: 256 values in [0, 32) per example counted
# into 32 bins, one .at[].add per value in a loop (the carry is updated in
# its own buffer every iteration, with no copy).
fn histogram(x: i32[256]) -> i32[32] {
  for t in range(256) carry (h = zeros((32,), dtype=i32)) {
    yield h.at[x[t]].add(1);
  }
  return h;
}
export histogram_batch = vmap(histogram, batch=256);
