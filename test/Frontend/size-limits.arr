# RUN: vmapc-opt %s -split-input-file -verify-diagnostics
# The size limits (docs/language.md, "Limits"): every dimension is at most
# 2147483647 and every array, per example or batched, holds fewer than 2^62
# bytes. Each way a size could pass them is an error at the expression that
# makes it, before any pass computes with it.

# expected-error @+1 {{this type needs 2^62 bytes or more; an array holds fewer than 2^62 bytes}}
fn f(a: f32[2147483647, 2147483647, 2]) -> f32 { return sum(a); }

# -----

fn f(x: f32) -> f32 {
  # expected-error @+1 {{the result of 'broadcast_to' would have type f32[65536, 65536, 65536, 65536], past the size limits: it needs 2^62 bytes or more (every dimension is at most 2147483647 and every array holds fewer than 2^62 bytes)}}
  return sum(broadcast_to(x, (65536, 65536, 65536, 65536)));
}

# -----

fn f(x: f32) -> f32 {
  # expected-error @+1 {{dimension sizes must be from 1 to 2147483647, got (4294967296,)}}
  return sum(broadcast_to(x, (4294967296,)));
}

# -----

fn f(x: f32[65536, 65536]) -> f32 {
  # expected-error @+1 {{the result of 'reshape' would have type f32[4294967296], past the size limits: dimension 0 is 4294967296, more than 2147483647}}
  return sum(reshape(x, (-1,)));
}

# -----

fn f(x: f32[65536, 65536]) -> f32 {
  # expected-error @+1 {{cannot reshape f32[65536, 65536] (4294967296 elements) to (2147483647, 2147483647, 2147483647) (2^62 elements or more)}}
  return sum(reshape(x, (2147483647, 2147483647, 2147483647)));
}

# -----

# A dimension past the limit after a large one: their product would overflow
# 64 bits before any check on it (found by arr_frontend_fuzzer).
fn f(x: f32[2, 3]) -> f32[6] {
  # expected-error @+1 {{dimension sizes must be from 1 to 2147483647 (or one -1, inferred), got (1921667637, 22147483648)}}
  return reshape(x, (00000000001921667637, 22147483648));
}

# -----

fn f(x: f32[2147483647]) -> f32 {
  # expected-error @+1 {{the result of 'concat' would have type f32[4294967294], past the size limits: dimension 0 is 4294967294, more than 2147483647}}
  return sum(concat((x, x), axis=0));
}

# -----

fn f(x: f32) -> f32 {
  # expected-error @+1 {{the result of 'zeros' would have type f32[2147483647, 2147483647, 2], past the size limits: it needs 2^62 bytes or more}}
  return x + sum(zeros((2147483647, 2147483647, 2)));
}

# -----

# Broadcasting: each operand fits, the result does not.
fn f(a: f32[1048576, 1, 1], b: f32[1, 2147483647, 1048576]) -> f32 {
  # expected-error @+1 {{the result of '+' would have type f32[1048576, 2147483647, 1048576], past the size limits: it needs 2^62 bytes or more}}
  return sum(a + b);
}

# -----

fn f(a: i32[2147483647, 1], b: i32[1, 2147483647]) -> i32 {
  # expected-error @+1 {{the result of '@' would have type i32[2147483647, 2147483647], past the size limits: it needs 2^62 bytes or more}}
  return sum(a @ b);
}

# -----

# A vmap inserts its axis size into every result.
fn g(x: f32) -> f32[2147483647] { return broadcast_to(x, (2147483647,)); }
fn f(x: f32) -> f32 {
  # expected-error @+1 {{result 0 of vmap('g') over 2147483647 examples would have type f32[2147483647, 2147483647], past the size limits: it needs 2^62 bytes or more}}
  return sum(vmap(g, in_axes=none, axis_size=2147483647)(x));
}

# -----

# Nested axis sizes multiply.
fn g(x: f32) -> f32[65536] { return broadcast_to(x, (65536,)); }
fn f(x: f32) -> f32 {
  # expected-error @+1 {{result 0 of vmap(vmap(vmap('g'))) over 65536 examples would have type f32[65536, 65536, 65536, 65536], past the size limits: it needs 2^62 bytes or more}}
  return sum(vmap(vmap(vmap(g, in_axes=none, axis_size=65536), in_axes=none, axis_size=65536), in_axes=none, axis_size=65536)(x));
}

# -----

# A large batch times a large example.
fn f(x: f32[65536, 65536]) -> f32 { return sum(x); }
# expected-error @+1 {{input 0 of export 'e' at batch 2147483647 would have type f32[2147483647, 65536, 65536], past the size limits: it needs 2^62 bytes or more}}
export e = vmap(f, in_axes=0, batch=2147483647);

# -----

# The per-example signature of a named map at its axis size.
fn f(x: f32[65536, 65536]) -> f32[65536, 65536] { return x; }
# expected-error @+1 {{parameter 0 of 'm' would have type f32[2147483647, 65536, 65536], past the size limits: it needs 2^62 bytes or more}}
fn m = vmap(f, in_axes=0, axis_size=2147483647);
export e = vmap(m, in_axes=0, batch=1);

# -----

# The artifact's per-entry limits are checked at the export, before any
# pass runs: an array has at most 16 dimensions, the batch axis included.
fn f(x: f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]) -> f32 { return sum(x); }
# expected-error @+1 {{export 'e': input 0 has per-example type f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] of rank 17; an argument has rank at most 16}}
export e = vmap(f, in_axes=none, batch=4);

# -----

fn f(x: f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]) -> f32 { return sum(x); }
# expected-error @+1 {{export 'e': input 0 has per-example type f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] of rank 16; a batched argument has rank at most 15 per example (16 with the batch axis)}}
export e = vmap(f, in_axes=0, batch=4);

# -----

fn f(x: f32) -> f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] { return broadcast_to(x, (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)); }
# expected-error @+1 {{export 'e': output 0 has per-example type f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] of rank 16; a batched argument has rank at most 15 per example (16 with the batch axis)}}
export e = vmap(f, in_axes=0, batch=4);

# -----

# At the limits: 16 unbatched dimensions, 15 batched.
fn f(x: f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], y: f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]) -> f32[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] { return y + sum(x); }
export e = vmap(f, in_axes=(none, 0), batch=4);
