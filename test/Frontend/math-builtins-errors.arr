# RUN: vmapc-opt %s -split-input-file -verify-diagnostics
# The errors of the elementwise math builtins (docs/language.md,
# "Elementwise builtins and casts").

# An i32 operand: the roundings of an integer too (jnp.floor(i) is i; here,
# convert first).
# expected-error @+1 {{'floor' needs an f32 operand, got i32[3] (convert it with f32(x))}}
fn f(i: i32[3]) -> f32[3] { return floor(i); }

# -----

# expected-error @+1 {{'round' needs an f32 operand, got i32 (convert it with f32(x))}}
fn f(i: i32) -> f32 { return round(i); }

# -----

# expected-error @+1 {{'sin' needs an f32 operand, got bool[2]}}
fn f(b: bool[2]) -> f32[2] { return sin(b); }

# -----

# expected-error @+1 {{'softplus' needs an f32 operand, got i32[4] (convert it with f32(x))}}
fn f(i: i32[4]) -> f32[4] { return softplus(i); }

# -----

# round has no decimals= (jnp.round's): round(x * 100.0) / 100.0 is one.
# expected-error @+1 {{unknown keyword argument 'decimals' for 'round' (it takes none)}}
fn f(x: f32) -> f32 { return round(x, decimals=2); }

# -----

# expected-error @+1 {{'log1p' takes 1 argument, got 2}}
fn f(x: f32) -> f32 { return log1p(x, 1.0); }

# -----

# expected-error @+1 {{'softplus' takes 1 argument, got 0}}
fn f(x: f32) -> f32 { return softplus(); }

# -----

# The names are reserved.
# expected-error @+1 {{'erf' is the name of a builtin; choose another name}}
fn f(x: f32) -> f32 { let erf = x; return erf; }

# -----

# expected-error @+1 {{'softplus' is the name of a builtin; choose another name}}
fn softplus(x: f32) -> f32 { return x; }

# -----

# expected-error @+1 {{cumsum takes a single axis, not a tuple}}
fn f(x: f32[2, 3]) -> f32[2, 3] { return cumsum(x, axis=(0, 1)); }

# -----

# expected-error @+1 {{axis 2 is out of range for rank 2 (valid: -2..1)}}
fn f(x: f32[2, 3]) -> f32[2, 3] { return cumprod(x, axis=2); }

# -----

# expected-error @+1 {{unknown keyword argument 'keepdims' for 'cumsum' (expected axis=)}}
fn f(x: f32[2, 3]) -> f32[6] { return cumsum(x, keepdims=true); }
