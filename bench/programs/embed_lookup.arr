# An embedding lookup: the 16 rows of a shared 50000 x 64 table that an
# example's ids name (a bag of tokens). The table is passed once (in_axes
# none) and every example's rows are gathered from it, never copied per
# example.
fn embed(table: f32[50000, 64], ids: i32[16]) -> f32[16, 64] {
  return take(table, ids, axis=0);
}
export embed_batch = vmap(embed, in_axes=(none, 0), batch=256);
