# Cosine similarity of each query against a shared set of 1000 vectors of
# 64, written as a user would: the dot product over the product of the
# norms, under a nested vmap (queries mapped, the set shared).
fn cosine(a: f32[64], b: f32[64]) -> f32 {
  return sum(a * b) / sqrt(sum(a * a) * sum(b * b));
}

fn against_set(q: f32[64], set: f32[1000, 64]) -> f32[1000] {
  return vmap(cosine, in_axes=(none, 0))(q, set);
}

export cosine_batch = vmap(against_set, in_axes=(0, none), batch=256);
