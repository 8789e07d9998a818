# Gathers and scatters on the GPU against the CPU, bit for bit: computed
# indices (clamped), take in both modes, updates of every kind with scalar
# and array indices (duplicates, negatives and indices out of range: the
# `int` data kind gives i32 indices in [-8, 8] for dimensions of 6 and 7),
# and a loop carry updated in place. Scatters combine duplicates in index
# order on both devices, so even .add of floats agrees bit for bit.

fn pick(x: f32[6, 7], i: i32, j: i32) -> (f32[7], f32[6], f32, f32[3, 7]) {
  return (x[i], x[:, j], x[i, j], take(x, i + iota(3), axis=0, mode=clip));
}
export picks = vmap(pick, in_axes=(0, 0, 0), batch=16);

fn bool_rows(x: f32[6, 7], i: i32) -> (f32[7], f32[6]) {
  let m = x > 0.5;
  return (f32(m[i]), where(m[:, i], 1.0, -1.0));
}
export bool_picks = vmap(bool_rows, in_axes=(0, 0), batch=16);

fn lookup(table: f32[6, 7], ids: i32[5]) -> (f32[5, 7], f32[6, 5], f32[5]) {
  return (take(table, ids, axis=0), take(table, ids, axis=1, mode=clip),
          take(table, ids));
}
export lookups = vmap(lookup, in_axes=(none, 0), batch=32);
export lookups_own = vmap(lookup, in_axes=(0, 0), batch=8);

fn update(x: f32[6, 7], i: i32, idx: i32[5], v: f32[5, 7])
    -> (f32[6, 7], f32[6, 7], f32[6, 7], f32[6, 7], f32[6, 7]) {
  return (x.at[idx].set(v), x.at[idx].add(v), x.at[i].mul(2.0),
          x.at[idx, :].min(v), x.at[i, 3].max(0.5));
}
export updates = vmap(update, in_axes=(0, 0, 0, 0), batch=16);
export updates_shared = vmap(update, in_axes=(none, 0, none, 0), batch=16);

fn histogram(x: i32[40], w: f32[40]) -> (f32[6], i32[6]) {
  for t in range(40) carry (h = zeros((6,)), c = zeros((6,), dtype=i32)) {
    yield (h.at[x[t]].add(w[t]), c.at[x[t]].add(1));
  }
  return (h, c);
}
export histograms = vmap(histogram, batch=16);
