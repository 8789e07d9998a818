# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline | FileCheck %s
#
# Property-test seed 104110 (reduced): nested loops over a concat, a reversed
# slice of a carry. Upstream --linalg-fuse-elementwise-ops crashed on it
# (its reshape-propagation patterns); --arr-fuse-elementwise fuses it.

fn f(x0: f32[1, 1, 1], x1: f32[1]) -> (i32[1, 1, 1], i32[1, 1, 5], f32[1, 3, 1]) {
  let v2 = (x0 != x1);
  let v3 = concat((x0, x0, x0), axis=1);
  for ix4 in range(1) carry (c5 = v3, c6 = x1) {
    for ix7 in range(3) carry (c8 = v2, c9 = ix4, c10 = v3) {
      let v12 = max(v3);
      let v13 = broadcast_to(v12, (1, 1, 1));
      let v14 = (v13 > 0);
      yield ((c8 and v14), maximum(c9, ix7), tanh(c10));
    }
    let v15 = c10[0::-1, ::-1, :];
    let v16 = (v15 * 3.0);
    let v18 = max(v16);
    let v19 = broadcast_to(v18, (1,));
    yield (maximum(c5, tanh(v15)), ((c6 * 0.5) + tanh(v19)));
  }
  let v20 = (x1 + c5);
  let v21 = sign(x0);
  let v22 = iota(5);
  let v23 = where(v2, v22, 3);
  let v24 = transpose(v21, perm=(1, 0, 2));
  let v25 = i32(v24);
  let v26 = (v20 * 0.00390625);
  return (v25, v23, v26);
}
export e = vmap(f, in_axes=(1, -1), out_axes=(2, 0, 2), batch=4);

# The outer loop runs once, so it is no loop; the inner one remains.
# CHECK-LABEL: func.func @e(
# CHECK:         scf.for
# CHECK-NOT:     scf.for
# CHECK:         return
