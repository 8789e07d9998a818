# RUN: vmapc-opt %s -split-input-file -verify-diagnostics
# Every error of indexing, take and x.at[...] (docs/language.md, "Indexing
# with computed indices", "In-place updates"), each with what to write.

# expected-error @+1 {{a slice stop must be an integer literal: a slice with a computed bound has a size that is not static; for one element write x[i], for n elements from a computed start i write take(x, i + iota(n), axis=0, mode=clip)}}
fn f(x: f32[8], n: i32) -> f32[2] { return x[0:n]; }

# -----

# expected-error @+1 {{a slice start must be an integer literal}}
fn f(x: f32[8], i: i32) -> f32[2] { return x[i:i + 2]; }

# -----

# expected-error @+1 {{a slice step must be an integer literal}}
fn f(x: f32[8], s: i32) -> f32[4] { return x[::s]; }

# -----

# expected-error @+1 {{an index must be i32, got f32 (convert it with i32(...))}}
fn f(x: f32[8], i: f32) -> f32 { return x[i]; }

# -----

# expected-error @+1 {{an index must be i32, got bool (boolean masks are not supported; select with where(mask, x, y))}}
fn f(x: f32[8], m: bool) -> f32 { return x[m]; }

# -----

# expected-error @+1 {{an index must be an integer, got the literal 1.5}}
fn f(x: f32[8]) -> f32 { return x[1.5]; }

# -----

# expected-error @+1 {{x[...] takes scalar indices, got i32[3]; for an array of indices write take(x, idx, axis=k)}}
fn f(x: f32[8], idx: i32[3]) -> f32[3] { return x[idx]; }

# -----

# expected-error @+1 {{the indices of 'take' must be i32, got f32[3] (convert them with i32(...))}}
fn f(x: f32[8], idx: f32[3]) -> f32[3] { return take(x, idx); }

# -----

# expected-error @+1 {{the indices of 'take' must be integers, got the literal array of floats}}
fn f(x: f32[8]) -> f32[2] { return take(x, [1.0, 2.0]); }

# -----

# expected-error @+1 {{mode= must be fill (out of range reads NaN, INT32_MIN or true) or clip (indices clamped into range)}}
fn f(x: f32[8], idx: i32[3]) -> f32[3] { return take(x, idx, mode=wrap); }

# -----

# expected-error @+1 {{unknown keyword argument 'axes' for 'take' (expected axis=, mode=)}}
fn f(x: f32[8], idx: i32[3]) -> f32[3] { return take(x, idx, axes=0); }

# -----

# expected-error @+1 {{axis 1 is out of range}}
fn f(x: f32[8], idx: i32[3]) -> f32[3] { return take(x, idx, axis=1); }

# -----

# expected-error @+1 {{expected set, add, mul, min or max after 'x.at[...].', found 'get' (to read, write x[...])}}
fn f(x: f32[8], i: i32) -> f32 { return x.at[i].get(); }

# -----

# expected-error @+1 {{expected '[' after '.at' (x.at[i].set(v)), found '('}}
fn f(x: f32[8], i: i32) -> f32[8] { return x.at(i).set(1.0); }

# -----

# expected-error @+1 {{expected ')': 'set' takes one argument, found ','}}
fn f(x: f32[8], i: i32) -> f32[8] { return x.at[i].set(1.0, 2.0); }

# -----

# expected-error @+1 {{'.add' needs an f32 or i32 array, got bool[8]}}
fn f(x: bool[8], i: i32) -> bool[8] { return x.at[i].add(true); }

# -----

# expected-error @+1 {{the value of '.set' is i32, but the array is f32[8]; convert it with f32(...)}}
fn f(x: f32[8], i: i32, v: i32) -> f32[8] { return x.at[i].set(v); }

# -----

# expected-error @+1 {{cannot broadcast the value of '.set' f32[3] to shape (2,) (numpy rules: align the last dimensions; each size must match or be 1)}}
fn f(x: f32[8], idx: i32[2], v: f32[3]) -> f32[8] { return x.at[idx].set(v); }

# -----

# expected-error @+1 {{x.at[:] selects every element; write the elementwise expression instead (v, x + v, x * v, minimum(x, v), maximum(x, v))}}
fn f(x: f32[8]) -> f32[8] { return x.at[:].set(0.0); }

# -----

# expected-error @+1 {{x.at[...] takes one array of indices (or partial slice), with ':' after it; index this dimension before the array or update in two steps}}
fn f(x: f32[8, 4], idx: i32[2], j: i32) -> f32[8, 4] { return x.at[idx, j].set(0.0); }

# -----

# expected-error @+1 {{too many indices: f32[8] has 1 dimension, got 2 indices}}
fn f(x: f32[8], i: i32) -> f32[8] { return x.at[i, i].set(0.0); }

# -----

# expected-error @+1 {{an index must be i32, got f32 (convert it with i32(...))}}
fn f(x: f32[8], i: f32) -> f32[8] { return x.at[i].set(0.0); }

# -----

# expected-error @+1 {{x.at[...] takes no new axis (none); index the array as it is}}
fn f(x: f32[8]) -> f32[8] { return x.at[none].set(0.0); }

# -----

# expected-error @+1 {{'inf' is a literal; rename the parameter}}
fn f(inf: f32) -> f32 { return inf; }

# -----

fn f(x: f32) -> f32 {
  # expected-error @+1 {{'true' is a literal; choose another name}}
  let true = x;
  return x;
}
