# RUN: vmapc-opt %s -split-input-file -verify-diagnostics
# The errors of donate= in an export (docs/runtime.md, "Donation").

fn f(x: f32[4]) -> f32[4] { return x + 1.0; }
# expected-error @+1 {{donate= names input 1, but 'e' has 1 input (valid: 0..0)}}
export e = vmap(f, donate=(1,), batch=8);

# -----

fn f(x: f32[4], y: f32[4]) -> f32[4] { return x + y; }
# expected-error @+1 {{donate= names input 0 twice}}
export e = vmap(f, donate=(0, 0), batch=8);

# -----

fn f(x: f32[4], w: f32[4]) -> f32[4] { return x * w; }
# expected-error @+1 {{donate= names input 'w', which is not mapped (in_axes none): every chunk reads it whole, so no output can take its bytes}}
export e = vmap(f, in_axes=(0, none), donate=(1,), batch=8);

# -----

fn f(x: f32[4]) -> f32 { return sum(x); }
# expected-error @+1 {{donate= names input 'x' (f32[8, 4], batch axis 0), but no output left has that type and batch axis; an output takes a donated input's bytes only when it has the same dtype, per-example shape and batch axis}}
export e = vmap(f, donate=(0,), batch=8);

# -----

fn f(x: f32[4]) -> f32[4] { return x * 2.0; }
# expected-error @+1 {{donate= names input 'x' (f32[8, 4], batch axis 0), but no output left has that type and batch axis}}
export e = vmap(f, out_axes=1, donate=(0,), batch=8);

# -----

fn f(x: f32[4]) -> f32[4] { return x * 2.0; }
fn g(x: f32[4]) -> f32[4] {
  # expected-error @+1 {{donate= is only allowed in 'export NAME = vmap(f, ..., donate=(k,), batch=B);'}}
  return vmap(f, donate=(0,))(x);
}

# -----

fn f(x: f32[4]) -> f32[4] { return x * 2.0; }
# expected-error @+1 {{donate= must be}}
export e = vmap(f, donate=x, batch=8);
