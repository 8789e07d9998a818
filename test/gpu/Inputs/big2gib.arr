# Input of index-bitwidth.test: one example is 4 MiB, a chunk of 512 is
# 2 GiB, so each binding is 2^31 bytes: past what 32-bit offsets reach.
fn f(x: f32[1024, 1024]) -> f32[1024, 1024] {
  return x * 2.0;
}
export big = vmap(f, batch=512);
