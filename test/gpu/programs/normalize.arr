# Normalizations on the GPU against the CPU: a reduction feeding an
# elementwise op over the same row (softmax: max, exp, sum, divide; log
# softmax; layer normalization: two means, a square root, a shared scale
# and shift), at a row of a warp and a half and a row of 1000. The batches
# keep a workgroup's rows within a block's shared memory.

fn softmax_row(x: f32[1000]) -> f32[1000] {
  let e = exp(x - max(x));
  return e / sum(e);
}
export softmax_1000 = vmap(softmax_row, batch=32);

fn softmax48(x: f32[48]) -> (f32[48], f32[48]) {
  let s = x - max(x);
  return (exp(s) / sum(exp(s)), s - log(sum(exp(s))));
}
export softmax_48 = vmap(softmax48, batch=64);

fn layernorm(x: f32[768], g: f32[768], b: f32[768]) -> f32[768] {
  let d = x - mean(x);
  let v = mean(d * d);
  return d / sqrt(v + 0.00001) * g + b;
}
export layernorm_768 = vmap(layernorm, in_axes=(0, none, none), batch=32);
