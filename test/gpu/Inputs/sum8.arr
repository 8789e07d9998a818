# Input of compile-cuda.test: the sum of 8 values per example.
fn f(x: f32[8]) -> f32 {
  return sum(x);
}
export e = vmap(f, batch=4);
