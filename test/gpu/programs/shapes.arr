# Data movement on the GPU against the CPU, which must agree bit for bit:
# transposes (2-D, 3-D), slices (strided, reversed, an integer index),
# concatenation along each axis, reshapes, broadcasts, iota and literal
# arrays.

fn permute(x: f32[33, 65], y: f32[4, 9, 17]) -> (f32[65, 33], f32[17, 4, 9]) {
  return (x.T, transpose(y, perm=(2, 0, 1)));
}
export transposes = vmap(permute, batch=16);

fn slice(x: f32[100, 12]) -> (f32[49, 12], f32[100, 4], f32[12], f32[30, 6]) {
  return (x[1:99:2], x[:, ::-3], x[7], x[90:-100:-3, 11:0:-2]);
}
export slices = vmap(slice, batch=16);

fn join(a: f32[5, 7], b: f32[3, 7], c: f32[5, 2]) -> (f32[8, 7], f32[5, 10]) {
  return (concat((a, b), axis=0), concat((a, c, a[:, 0:1]), axis=1));
}
export concats = vmap(join, in_axes=(0, 0, none), batch=32);

fn reshape_all(x: f32[6, 20]) -> (f32[120], f32[4, 30], f32[3, 6, 20]) {
  return (reshape(x, -1), reshape(x, (4, 30)), broadcast_to(x, (3, 6, 20)));
}
export reshapes = vmap(reshape_all, batch=16);

fn literal(x: i32[10]) -> (i32[10], f32[2, 3]) {
  return (x + iota(10) * 3, f32(reshape(x[0:2], (2, 1))) * 0.5 + [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
}
export constants = vmap(literal, batch=8);
