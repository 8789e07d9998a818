# RUN: vmapc-opt %s -split-input-file -verify-diagnostics
# Every error the front end reports, one case per kind. Each case stops at
# its first error.

#===------------------------------------------------------------------===#
# Lexical errors
#===------------------------------------------------------------------===#

# expected-error @+1 {{unexpected character '$'}}
fn f(a: f32) -> f32 { return a $ a; }

# -----

# expected-error @+1 {{unexpected character '!' (did you mean '!=' or 'not'?)}}
fn f(a: f32) -> bool { return !a; }

# -----

# A non-ASCII character is named whole, with its code point; LLVM shows no
# caret under a line with non-ASCII characters, so a note does.
# expected-note @+2 {{here:}}
# expected-error @+1 {{unexpected character '×' (U+00D7); only ASCII is allowed outside comments}}
fn f(a: f32) -> f32 { return a × 2.0; }

# -----

# A byte that is not valid UTF-8.
# expected-note @+2 {{here:}}
# expected-error @+1 {{unexpected character with code 0xFF (only ASCII is allowed outside comments)}}
fn f(a: f32) -> f32 { return a � 2.0; }

# -----

# expected-error @+1 {{integer 99999999999999999999 is too large}}
fn f(a: f32) -> f32 { return a * 99999999999999999999; }

# -----

# expected-error @+1 {{number 1e999 is out of range for f32}}
fn f(a: f32) -> f32 { return a * 1e999; }

# -----

# expected-error @+1 {{expected digits in the exponent of a number}}
fn f(a: f32) -> f32 { return a * 1e; }

# -----

# expected-error @+1 {{invalid number '3x' (a name cannot start with a digit)}}
fn f(a: f32) -> f32 { return a * 3x; }

# -----

#===------------------------------------------------------------------===#
# Syntax errors
#===------------------------------------------------------------------===#

# expected-error @+2 {{the program is empty; define at least one 'fn'}}

# -----

# expected-error @+1 {{expected 'fn' or 'export' at top level, found 'let'}}
let x = 1;

# -----

# expected-error @+1 {{expected a function name after 'fn', found '('}}
fn (a: f32) -> f32 { return a; }

# -----

# expected-error @+1 {{expected ':' and a type after parameter 'a', found ','}}
fn f(a, b: f32) -> f32 { return b; }

# -----

# expected-error @+1 {{unknown type 'f64' (expected f32, i32 or bool)}}
fn f(a: f64) -> f32 { return a; }

# -----

# expected-error @+1 {{expected a dimension size (a positive integer), found ']'}}
fn f(a: f32[]) -> f32 { return a; }

# -----

# expected-error @+1 {{dimension size must be at least 1, got 0}}
fn f(a: f32[0]) -> f32 { return a; }

# -----

# expected-error @+1 {{dimension size 4294967296 is too large (at most 2147483647)}}
fn f(a: f32[4294967296]) -> f32 { return a; }

# -----

# expected-error @+1 {{expected ']' after the dimensions of a shape, found ';'}}
fn f(a: f32[3;]) -> f32 { return a; }

# -----

# expected-error @+1 {{expected ')' after parameters, found '{'}}
fn f(a: f32 { return a; }

# -----

# expected-error @+1 {{expected '->' and a result type after parameters, found '{'}}
fn f(a: f32) { return a; }

# -----

# expected-error @+1 {{expected ';' after 'let x = ...', found 'return'}}
fn f(a: f32) -> f32 { let x = a return x; }

# -----

# expected-error @+1 {{expected ';' after 'return ...', found '}'}}
fn f(a: f32) -> f32 { return a }

# -----

# expected-error @+1 {{expected ')' after arguments, found ';'}}
fn f(a: f32) -> f32 { return exp(a; }

# -----

# expected-error @+1 {{expected ')' after a parenthesised expression, found ';'}}
fn f(a: f32) -> f32 { return (a + a; }

# -----

# expected-error @+1 {{expected an expression, found ';'}}
fn f(a: f32) -> f32 { return a + ; }

# -----

fn f(a: f32) -> f32 {
  return a;
# expected-error @+2 {{expected '}' at the end of the body of 'f', found end of input}}

# -----

# expected-error @+1 {{function 'f' must end with 'return <value>;'}}
fn f(a: f32) -> f32 { let x = a; }

# -----

# expected-error @+1 {{statement after 'return' is unreachable}}
fn f(a: f32) -> f32 { return a; let x = a; }

# -----

# expected-error @+1 {{comparisons cannot be chained; use parentheses}}
fn f(a: f32) -> bool { return a < a < a; }

# -----

# expected-error @+1 {{positional argument after keyword argument 'axis'}}
fn f(a: f32[3]) -> f32 { return sum(axis=0, a); }

# -----

# expected-error @+1 {{keyword argument 'axis' is given twice}}
fn f(a: f32[3]) -> f32 { return sum(a, axis=0, axis=0); }

# -----

# expected-error @+1 {{expected 'let', 'for' or 'return' in the body of 'f', found 'a'}}
fn f(a: f32) -> f32 { a = a; return a; }

# -----

# expected-error @+1 {{expression is nested too deeply}}
fn f(a: f32) -> f32 { return ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a; }

# -----

#===------------------------------------------------------------------===#
# Names
#===------------------------------------------------------------------===#

# expected-error @+1 {{unknown name 'x'}}
fn f(a: f32) -> f32 { return a + x; }

# -----

# expected-error @+1 {{unknown function 'g'}}
fn f(a: f32) -> f32 { return g(a); }

# -----

fn f(a: f32) -> f32 {
  let y = a;
  # expected-error @+1 {{'y' is already defined at line 4; names cannot be redefined}}
  let y = a * 2;
  return y;
}

# -----

# expected-error @+1 {{'a' is already defined at line 4; names cannot be redefined}}
fn f(a: f32) -> f32 { let a = 1.0; return a; }

# -----

fn f(a: f32) -> f32 { return a; }
# expected-error @+1 {{'f' is already defined at line 3; choose another name}}
fn f(b: f32) -> f32 { return b; }

# -----

# expected-error @+1 {{'sum' is the name of a builtin; choose another name}}
fn sum(a: f32) -> f32 { return a; }

# -----

# expected-error @+1 {{parameter 'a' of 'f' is already defined; rename it}}
fn f(a: f32, a: f32) -> f32 { return a; }

# -----

# expected-error @+1 {{'g' is a function; call it with arguments, e.g. g(...)}}
fn f(a: f32) -> f32 { return g; }
fn g(a: f32) -> f32 { return a; }

# -----

# expected-error @+1 {{'a' is a variable, not a function}}
fn f(a: f32) -> f32 { return a(1); }

# -----

# expected-error @+1 {{keepdims= must be true or false}}
fn f(a: i32[3]) -> f32 { return mean(a, keepdims=1); }

# -----

# expected-error @+1 {{'f' calls itself (f -> f); recursion is not supported}}
fn f(a: f32) -> f32 { return f(a); }

# -----

fn f(a: f32) -> f32 { return g(a); }
# expected-error @+1 {{'f' calls itself (f -> g -> f); recursion is not supported}}
fn g(a: f32) -> f32 { return f(a); }

# -----

# expected-error @+1 {{'f' calls itself (f -> f); recursion is not supported}}
fn f(a: f32[4]) -> f32[4] { return m(a); }
fn m = vmap(f);

# -----

# expected-error @+1 {{named map 'm' is defined in terms of itself}}
fn m = vmap(m);

# -----

#===------------------------------------------------------------------===#
# Types and shapes
#===------------------------------------------------------------------===#

# expected-error @+1 {{operands of '+' have different dtypes: f32[3] and i32[3] (there is no implicit conversion; use f32(x) or i32(x))}}
fn f(a: f32[3], b: i32[3]) -> f32[3] { return a + b; }

# -----

# expected-error @+1 {{the float literal 1.5 cannot be used with an i32 operand (no implicit conversion); convert the operand with f32(...), or write an integer}}
fn f(a: i32[3]) -> i32[3] { return a * 1.5; }

# -----

# expected-error @+1 {{integer 3000000000 does not fit in i32}}
fn f(a: i32) -> i32 { return a + 3000000000; }

# -----

# expected-error @+1 {{shapes f32[3] and f32[4] cannot broadcast}}
fn f(a: f32[3], b: f32[4]) -> f32[3] { return a + b; }

# -----

# expected-error @+1 {{shapes f32[2, 3] and f32[3, 3] cannot broadcast (dimension sizes 2 and 3 differ and neither is 1)}}
fn f(a: f32[2, 3], b: f32[3, 3]) -> f32[2, 3] { return a * b; }

# -----

# expected-error @+1 {{'+' needs f32 or i32 operands, got bool[3] and bool[3]}}
fn f(a: bool[3], b: bool[3]) -> bool[3] { return a + b; }

# -----

# expected-error @+1 {{unary '-' needs an f32 or i32 operand, got bool}}
fn f(a: bool) -> bool { return -a; }

# -----

# expected-error @+1 {{'<' needs f32 or i32 operands, got bool and bool}}
fn f(a: bool, b: bool) -> bool { return a < b; }

# -----

# expected-error @+1 {{return type f32[3] does not match declared f32 of 'f'}}
fn f(a: f32[3]) -> f32 { return a; }

# -----

# expected-error @+1 {{return type bool[3] does not match declared f32[3] of 'f'}}
fn f(a: f32[3]) -> f32[3] { return a < 0; }

# -----

# expected-error @+1 {{'exp' needs an f32 operand, got i32[3]}}
fn f(a: i32[3]) -> i32[3] { return exp(a); }

# -----

# The sum of bools counts them (JAX): an i32.
# expected-error @+1 {{return type i32 does not match declared bool of 'f'}}
fn f(a: bool[3]) -> bool { return sum(a); }

# -----

# expected-error @+1 {{'exp' takes 1 argument, got 2}}
fn f(a: f32) -> f32 { return exp(a, a); }

# -----

# expected-error @+1 {{unknown keyword argument 'axes' for 'sum' (expected axis=, keepdims=)}}
fn f(a: f32[3]) -> f32 { return sum(a, axes=0); }

# -----

# expected-error @+1 {{keyword argument 'axis' is given twice}}
fn f(a: f32[3, 4]) -> f32[3] { return sum(a, axis=1, axis=0); }

# -----

# An axis is an integer literal, maybe negated; `not 1` is none of those.
# expected-error @+1 {{axis= must be an integer, a tuple of integers or none}}
fn f(a: f32[3, 4]) -> f32[3] { return sum(a, axis=not 1); }

# -----

# expected-error @+1 {{'exp' needs an f32 operand, got bool[3]}}
fn f(a: bool[3]) -> f32[3] { return exp(a); }

# -----

# expected-error @+1 {{axis 2 is out of range for rank 2 (valid: -2..1)}}
fn f(a: f32[3, 4]) -> f32[3] { return sum(a, axis=2); }

# -----

# expected-error @+1 {{axis -3 is out of range for rank 2 (valid: -2..1)}}
fn f(a: f32[3, 4]) -> i32[3] { return argmax(a, axis=-3); }

# -----

# expected-error @+1 {{axis 1 is given twice in axis=}}
fn f(a: f32[3, 4]) -> f32 { return max(a, axis=(1, -1)); }

# -----

# expected-error @+1 {{argmin takes a single axis, not a tuple}}
fn f(a: f32[3, 4]) -> i32 { return argmin(a, axis=(0, 1)); }

# -----

# expected-error @+1 {{'@' contracts the last axis of f32[3, 4] (size 4) with the first axis of f32[5, 2] (size 5); the sizes differ}}
fn f(a: f32[3, 4], b: f32[5, 2]) -> f32[3, 2] { return a @ b; }

# -----

# expected-error @+1 {{'@' supports operands of rank 1 and 2 (numpy matmul), got f32[2, 3, 4] @ f32[4]}}
fn f(a: f32[2, 3, 4], b: f32[4]) -> f32[2, 3] { return a @ b; }

# -----

fn g(a: f32, b: f32[3]) -> f32 { return a; }
# expected-error @+1 {{'g' takes 2 arguments, got 1}}
fn f(a: f32) -> f32 { return g(a); }

# -----

fn g(a: f32, b: f32[3]) -> f32 { return a; }
# expected-error @+1 {{argument 1 of 'g' has type f32[4], but parameter 'b' has type f32[3]}}
fn f(a: f32, c: f32[4]) -> f32 { return g(a, c); }

# -----

# expected-error @+1 {{'none' is only allowed in in_axes= and out_axes=}}
fn f(a: f32) -> f32 { return a + none; }

# -----

# expected-error @+1 {{'return' gives 2 values, but 'f' returns 1 value: f32}}
fn f(a: f32) -> f32 { return (a, a); }

# -----

#===------------------------------------------------------------------===#
# vmap
#===------------------------------------------------------------------===#

fn g(a: f32, b: f32) -> f32 { return a * b; }
# expected-error @+1 {{in_axes has 3 entries for a function of 2 parameters}}
fn m = vmap(g, in_axes=(0, 0, none));

# -----

fn g(a: f32, b: f32) -> f32 { return a * b; }
# expected-error @+1 {{in_axes has 1 entry for a function of 2 parameters}}
fn m = vmap(g, in_axes=(0,));

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{out_axes has 2 entries for a function of 1 result}}
fn m = vmap(g, out_axes=(0, 1));

# -----

fn g(a: f32[3]) -> f32 { return sum(a); }
fn f(x: f32[4, 3]) -> f32[4] {
  # expected-error @+1 {{in_axes[0]: axis 2 is out of range for rank 2 (valid: -2..1)}}
  return vmap(g, in_axes=2)(x);
}

# -----

fn g(a: f32) -> f32 { return a; }
fn f(x: f32[4]) -> f32[4] {
  # expected-error @+1 {{out_axes: axis 1 is out of range for a result of per-example type f32 (valid: -1..0)}}
  return vmap(g, out_axes=1)(x);
}

# -----

fn g(a: f32, b: f32) -> f32 { return a * b; }
fn f(x: f32[10], y: f32[12]) -> f32[10] {
  # expected-error @+1 {{vmapped operands have different sizes on their mapped axes: 10 (operand 0) and 12 (operand 1)}}
  return vmap(g)(x, y);
}

# -----

fn g(a: f32, b: f32) -> f32 { return a * b; }
fn f(x: f32, y: f32) -> f32[5] {
  # expected-error @+1 {{vmap needs axis_size= when no operand is mapped (all in_axes are none)}}
  return vmap(g, in_axes=none)(x, y);
}

# -----

fn g(a: f32) -> f32 { return a; }
fn f(x: f32[4]) -> f32[4] {
  # expected-error @+1 {{axis_size=5 does not match size 4 of the mapped axis of operand 0}}
  return vmap(g, axis_size=5)(x);
}

# -----

fn g(a: f32[3]) -> f32 { return sum(a); }
fn f(x: f32[4, 5]) -> f32[4] {
  # expected-error @+1 {{vmap('g'): operand 0 has per-example type f32[5] (after removing mapped axis 0 of f32[4, 5]), but 'g' expects f32[3] for parameter 'a'}}
  return vmap(g)(x);
}

# -----

fn g(a: f32) -> f32 { return a; }
fn f(x: f32) -> f32[4] {
  # expected-error @+1 {{in_axes maps operand 0 of type f32, a scalar with no axis to map over; use none for it}}
  return vmap(g)(x);
}

# -----

fn g(a: f32, b: f32) -> f32 { return a * b; }
fn f(x: f32[4]) -> f32[4] {
  # expected-error @+1 {{vmap('g') takes 2 arguments, got 1}}
  return vmap(g)(x);
}

# -----

fn g(a: f32) -> f32 { return a; }
fn f(x: f32[4]) -> f32[4] {
  # expected-error @+1 {{vmap(...) must be applied to arguments}}
  let h = vmap(g);
  return x;
}

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{unknown keyword argument 'axis' for vmap (expected in_axes=, out_axes=, axis_size=)}}
fn m = vmap(g, axis=0);

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{in_axes must be an integer, none, or a tuple of those}}
fn m = vmap(g, in_axes=(0.5));

# -----

# expected-error @+1 {{builtin 'exp' cannot be mapped directly; wrap it in a fn}}
fn m = vmap(exp);

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{'fn m = ...' must name a vmap(...) expression}}
fn m = g;

# -----

#===------------------------------------------------------------------===#
# export
#===------------------------------------------------------------------===#

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{batch must be at least 1, got 0}}
export e = vmap(g, batch=0);

# -----

# A negative batch is not an integer literal (a negation of one): the same
# rule, said the same way.
fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{batch must be an integer, at least 1}}
export e = vmap(g, batch=-3);

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{an export needs its static batch size: add batch=B}}
export e = vmap(g, in_axes=0);

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{batch= is only allowed in 'export NAME = vmap(f, ..., batch=B);'; use axis_size= here}}
fn m = vmap(g, batch=4);

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{an export must be 'vmap(f, in_axes=..., out_axes=..., batch=B)'}}
export e = g;

# -----

fn g(a: f32, b: f32) -> f32 { return a * b; }
fn m = vmap(g, in_axes=(0, none));
# expected-error @+1 {{cannot derive the per-example parameter types of 'm': its axis size is only known where it is applied}}
export e = vmap(m, batch=8);

# -----

fn g(a: f32[3]) -> f32 { return sum(a); }
# expected-error @+1 {{in_axes[0]: axis 2 is out of range for rank 2 (valid: -2..1)}}
export e = vmap(g, in_axes=2, batch=8);

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{'e' is an entry point for host programs and cannot be called}}
fn f(x: f32[8]) -> f32[8] { return e(x); }
export e = vmap(g, batch=8);

# -----

#===------------------------------------------------------------------===#
# Limits
#===------------------------------------------------------------------===#

# expected-error @+1 {{expression is too large (more than 1000 operations deep); split it with 'let'}}
fn f(a: f32) -> f32 { return a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a; }

# -----

fn g(a: f32) -> f32 { return a; }
# expected-error @+1 {{'g' takes no keyword arguments}}
fn f(x: f32) -> f32 { return g(x, axis=0); }

# -----

fn g(a: i32) -> i32 { return a; }
# expected-error @+1 {{the float literal 2.5 cannot be used with an i32 operand}}
fn f(x: i32) -> i32 { return g(2.5); }

# -----

# expected-error @+1 {{'vmap' is the name of a builtin; choose another name}}
fn vmap(x: f32) -> f32 { return x; }

# -----

fn g(a: f32) -> f32 { return a; }
fn f(x: f32[3]) -> f32[3] {
  # expected-error @+1 {{operand 0 is the literal 1.0, which has no axis to map over; use none for it in in_axes}}
  return vmap(g, in_axes=0)(1.0) + x;
}

# -----

# expected-error @+1 {{integer overflow in 9223372036854775807 + 1}}
fn f(x: f32) -> f32 { return x * (9223372036854775807 + 1); }

# -----

# expected-error @+1 {{division by zero in 1 / 0}}
fn f(x: f32) -> f32 { return x * (1 / 0); }

# -----

fn g(a: f32) -> f32 { return a; }
export e = vmap(g, batch=8);
# expected-error @+1 {{'e' is an entry point for host programs and cannot be mapped}}
export e2 = vmap(e, batch=2);

# -----

#===------------------------------------------------------------------===#
# Tuples, loops, slices, literal arrays and the shape builtins
#===------------------------------------------------------------------===#

# expected-error @+1 {{index 3 is out of range for dimension 0 of f32[3] (size 3, valid: -3..2)}}
fn f(x: f32[3]) -> f32 { return x[3]; }

# -----

# expected-error @+1 {{the slice 2:1 of dimension 0 of f32[3] (size 3) is empty; empty arrays are not supported}}
fn f(x: f32[3]) -> f32[1] { return x[2:1]; }

# -----

# expected-error @+1 {{too many indices: f32[3] has 1 dimension, got 2 indices}}
fn f(x: f32[3]) -> f32 { return x[0, 1]; }

# -----

# expected-error @+1 {{slice step cannot be zero}}
fn f(x: f32[3]) -> f32 { return x[::0]; }

# -----

# expected-error @+1 {{expected an expression, found ','}}
fn f(x: f32[3]) -> f32 { return x[, 1]; }

# -----

# expected-error @+1 {{expected 'T' or 'at' after '.' (x.T transposes, x.at[i].set(v) updates), found 'shape'}}
fn f(x: f32[3]) -> f32 { return x.shape; }

# -----

# expected-error @+1 {{'let' unpacks 2 names from 1 value}}
fn f(x: f32[3]) -> f32 { let (a, b) = x; return a; }

# -----

# expected-error @+2 {{this is a tuple of 2 values, not one value; unpack it with 'let (a, b) = ...'}}
fn g(x: f32) -> (f32, f32) { return (x, x); }
fn f(x: f32) -> f32 { return g(x) + 1.0; }

# -----

# expected-error @+2 {{'return' gives 2 values, but 'f' returns 3 values: (f32, f32, f32)}}
fn g(x: f32) -> (f32, f32) { return (x, x); }
fn f(x: f32) -> (f32, f32, f32) { return g(x); }

# -----

# expected-error @+2 {{out_axes has 3 entries for a function of 2 results}}
fn g(x: f32) -> (f32, f32) { return (x, x); }
fn f(x: f32[4]) -> f32[4] { return vmap(g, out_axes=(0, 0, 0))(x); }

# -----

# expected-error @+1 {{returned value 1 has type f32, but result 1 of 'f' is declared i32}}
fn f(x: f32) -> (f32, i32) { return (x, x); }

# -----

# expected-error @+2 {{'x' is already defined at line 4; names cannot be redefined, choose another name}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (x = 0.0) { yield x; }
  return x;
}

# -----

# expected-error @+2 {{'yield' gives 2 values for 1 carried variable (a: f32)}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = 0.0) { let t = a; yield (a, a); }
  return a;
}

# -----

# expected-error @+2 {{yielded value 0 has type bool, but carried variable 'a' has type f32}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = 0.0) { yield f32(i) > a; }
  return a;
}

# -----

# expected-error @+3 {{unknown name 't'}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = 0.0) { let t = a; yield t; }
  return t;
}

# -----

# expected-error @+3 {{unknown name 'i'}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = 0.0) { yield a; }
  return f32(i);
}

# -----

# expected-error @+2 {{the trip count of range(N) must be a non-negative integer literal, found 'n'}}
fn f(x: f32) -> f32 {
  for i in range(n) carry (a = 0.0) { yield a; }
  return a;
}

# -----

# expected-error @+2 {{a 'for' body must end with 'yield (...);', one value per carried variable}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = 0.0) { let t = a; }
  return a;
}

# -----

# expected-error @+2 {{expected 'carry (name = init, ...)' after 'range(N)', found '{'}}
fn f(x: f32) -> f32 {
  for i in range(3) { yield x; }
  return x;
}

# -----

# expected-error @+2 {{'a' is carried twice}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = 0.0, a = 1.0) { yield (a, a); }
  return a;
}

# -----

# expected-error @+2 {{'i' is the loop index; choose another name for the carried variable}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (i = 0.0) { yield i; }
  return x;
}

# -----

# expected-error @+1 {{'return' is not allowed in a 'for' body; end it with 'yield (...)'}}
fn f(x: f32) -> f32 { for i in range(3) carry (a = 0.0) { return a; } return x; }

# -----

# expected-error @+1 {{'yield' is only allowed at the end of a 'for' body; a function ends with 'return'}}
fn f(x: f32) -> f32 { yield x; }

# -----

# expected-error @+1 {{'and' needs bool operands, got f32[3] and f32[3]}}
fn f(x: f32[3]) -> f32[3] { return x and x; }

# -----

# expected-error @+1 {{'not' needs a bool operand, got f32[3] (compare it first, e.g. x != 0)}}
fn f(x: f32[3]) -> f32[3] { return not x; }

# -----

# expected-error @+1 {{'**' needs f32 operands, got i32[3] (convert with f32(x))}}
fn f(x: i32[3]) -> i32[3] { return x ** 2; }

# -----

# expected-error @+1 {{the condition of 'where' must be bool, got f32[3]}}
fn f(x: f32[3]) -> f32[3] { return where(x, x, x); }

# -----

# expected-error @+1 {{dtype= must be f32, i32 or bool}}
fn f(x: f32[3]) -> f32[3] { return zeros(3, dtype=f16); }

# -----

# expected-error @+1 {{the size of 'iota' must be an integer literal from 1 to 2147483647}}
fn f(x: f32[3]) -> i32[3] { return iota(0); }

# -----

# expected-error @+1 {{piece 1 of 'concat' is the 1.0, a scalar; concat joins arrays of rank at least 1: write [1.0]}}
fn f(x: f32[3]) -> f32[6] { return concat((x, 1.0)); }

# -----

# expected-error @+1 {{a literal array with float elements cannot be used with an i32 operand (no implicit conversion); convert the operand with f32(...), or write integers}}
fn f(x: i32[3]) -> i32[5] { return concat((x, [0.5, 1.0])); }

# -----

# expected-error @+1 {{'concat' takes a tuple of arrays, e.g. concat((a, b), axis=0)}}
fn f(x: f32[3]) -> f32[6] { return concat(x); }

# -----

# expected-error @+1 {{pieces of 'concat' have different ranks: f32[3] and f32[2, 3]}}
fn f(x: f32[3], y: f32[2, 3]) -> f32[6] { return concat((x, y)); }

# -----

# expected-error @+1 {{pieces of 'concat' have different dtypes: f32[3] and i32[3]}}
fn f(x: f32[3], y: i32[3]) -> f32[6] { return concat((x, y)); }

# -----

# expected-error @+1 {{pieces of 'concat' along axis 1 must agree on the other dimensions: f32[2, 3] and f32[3, 3] differ on dimension 0}}
fn f(x: f32[2, 3], y: f32[3, 3]) -> f32[6] { return concat((x, y), axis=1); }

# -----

# expected-error @+1 {{cannot reshape f32[2, 3] (6 elements) to (4, 2) (8 elements)}}
fn f(x: f32[2, 3]) -> f32[6] { return reshape(x, (4, 2)); }

# -----

# expected-error @+1 {{only one dimension of the shape (-1, -1) can be -1}}
fn f(x: f32[2, 3]) -> f32[6] { return reshape(x, (-1, -1)); }

# -----

# expected-error @+1 {{cannot reshape f32[2, 3] (6 elements) to (4, -1): the -1 cannot be inferred}}
fn f(x: f32[2, 3]) -> f32[6] { return reshape(x, (4, -1)); }

# -----

# expected-error @+1 {{cannot broadcast f32[2, 3] to shape (3, 3) (numpy rules: align the last dimensions; each size must match or be 1)}}
fn f(x: f32[2, 3]) -> f32[6] { return broadcast_to(x, (3, 3)); }

# -----

# expected-error @+1 {{perm= is not a permutation: axis 0 appears twice}}
fn f(x: f32[2, 3]) -> f32[6] { return transpose(x, perm=(0, 0)); }

# -----

# expected-error @+1 {{perm= has 1 entries for f32[2, 3] of rank 2}}
fn f(x: f32[2, 3]) -> f32[6] { return transpose(x, perm=(0,)); }

# -----

# expected-error @+1 {{literal array is not rectangular: found a list of shape [1] where the first element is a list of shape [2]}}
fn f(x: f32[2, 3]) -> f32[6] { return [[1.0, 2.0], [3.0]]; }

# -----

# expected-error @+1 {{literal array is not rectangular: found a number where the first element is a list of shape [2]}}
fn f(x: f32[2, 3]) -> f32[6] { return [[1.0, 2.0], 3.0]; }

# -----

# expected-error @+1 {{a literal array cannot be empty (every dimension size is at least 1)}}
fn f(x: f32[2, 3]) -> f32[6] { return []; }

# -----

# expected-error @+1 {{the elements of a literal array must be number literals (possibly negated) or lists, found 'x'}}
fn f(x: f32[2, 3]) -> f32[6] { return [x]; }

# -----

# expected-error @+1 {{a literal array with float elements cannot be used with an i32 operand (no implicit conversion); convert the operand with f32(...), or write integers}}
fn f(x: i32[2]) -> i32[2] { return x + [1.5, 2.0]; }

# -----

# expected-error @+1 {{the literal array has shape [2], but f32[3] is expected here}}
fn f(x: f32[2]) -> f32[3] { return [1.0, 2.0]; }

# -----

# expected-error @+1 {{axis 1 is out of range for rank 1 (valid: -1..0)}}
fn f(x: f32[3]) -> f32 { return mean(x, axis=1); }

# -----

# expected-error @+1 {{'maximum' takes 2 arguments, got 1}}
fn f(x: f32[3]) -> f32 { return maximum(x); }

# -----

# expected-error @+1 {{unknown keyword argument 'axis' for 'abs' (it takes none)}}
fn f(x: f32[3]) -> f32 { return abs(x, axis=0); }

# -----

# expected-error @+1 {{'not' binds more loosely than arithmetic and comparisons; put 'not ...' in parentheses here}}
fn f(x: f32[3]) -> f32 { return a == not x; }

# -----

# expected-error @+1 {{this is a tuple of 2 values, not one value; unpack it with 'let (a, b) = ...'}}
fn f(x: f32[3]) -> f32 { let t = (x, x); return t + 1; }

# -----

# expected-error @+1 {{'a' appears twice in 'let (...)'}}
fn f(x: f32[3]) -> f32 { let (a, a) = (x, x); return a; }

# -----

# expected-error @+1 {{the slice 5: of dimension 1 of f32[2, 3] (size 3) is empty; empty arrays are not supported}}
fn f(x: f32[2, 3]) -> f32 { return x[0:2:1, 5:]; }

# -----

# expected-error @+1 {{this is a tuple of 2 values, not one value; unpack it with 'let (a, b) = ...'}}
fn f(x: f32[3]) -> f32[3] { return x + (1, 2); }

# -----

# expected-error @+1 {{dimension sizes must be from 1 to 2147483647, got (2, 0)}}
fn f(x: f32[3]) -> f32 { return sum([1.0, 2.0]) + zeros((2, 0))[0, 0]; }

# -----

# expected-error @+1 {{perm= entry 1 is out of range for rank 1 (valid: -1..0)}}
fn f(x: f32[3]) -> f32[3] { return [1, 2.5, 3] * 2 + reshape(x, 3) + broadcast_to(1.0, (3,)) + transpose(x, perm=(1,)); }

# -----

# expected-error @+2 {{'let' unpacks 3 names from 2 values}}
fn g(x: f32) -> (f32, f32) { return (x, x); }
fn f(x: f32[4]) -> f32[4] { let (a, b, c) = vmap(g)(x); return a; }

# -----

# expected-error @+2 {{out_axes[1]: axis 2 is out of range for a result of per-example type f32 (valid: -1..0)}}
fn g(x: f32) -> (f32, f32) { return (x, x); }
fn f(x: f32[4]) -> f32[4] { let (a, b) = vmap(g, out_axes=(0, 2))(x); return a; }

# -----

# expected-error @+2 {{this is a tuple of 2 values, not one value; unpack it with 'let (a, b) = ...'}}
fn f(x: f32) -> f32 {
  for i in range(3) carry (a = (x, x)) { yield a; }
  return x;
}

# -----

# A token missing at the end of the input is reported just after the last
# token, not on the line after it.
fn f(a: f32) -> f32 { return a; }
# expected-error @+1 {{expected ';' after the export of 'e', found end of input}}
export e = vmap(f, batch=2)

# -----

# expected-error @+1 {{name every result or none (as in '-> (dist: f32, idx: i32)')}}
fn f(x: f32) -> (d: f32, i32) { return (x, 1); }

# -----

# expected-error @+1 {{result 'd' is named twice}}
fn f(x: f32) -> (d: f32, d: f32) { return (x, x); }

# -----

# expected-error @+1 {{expected ':' and a type after the result name 'd', found 'f32'}}
fn f(x: f32) -> (d f32) { return x; }

# -----

# expected-error @+1 {{'softmax' needs an f32 operand, got i32[3] (convert it with f32(x))}}
fn f(x: i32[3]) -> f32[3] { return softmax(x); }

# -----

# expected-error @+1 {{'clip' takes 3 arguments, got 2}}
fn f(x: f32[3]) -> f32[3] { return clip(x, 1.0); }

# -----

fn f(x: f32[3]) -> f32 {
  # expected-error @+1 {{operands of '+' have different dtypes: i32 and f32; the carry 'acc' is i32 because its initial value 0 is a literal of that dtype: start it with 0.0}}
  for i in range(3) carry (acc = 0) { yield acc + sum(x); }
  return acc;
}

# -----

# numpy's None as a new axis: the language's none.
fn f(t: i32[16]) -> i32[16, 1] {
  # expected-error @+1 {{a new axis is written none, not None (x[:, none])}}
  return t[:, None];
}

# -----

fn f(x: f32[2]) -> f32[2] {
  # expected-error @+1 {{unknown name 'True'; the language writes true}}
  return where(True, x, x);
}

# -----

# A reduction without keepdims next to its operand: the hint names the axis.
fn f(h: f32[16, 32]) -> f32[16, 32] {
  let mu = sum(h, axis=-1) / 32.0;
  # expected-error @+1 {{shapes f32[16, 32] and f32[16] cannot broadcast (dimension sizes 32 and 16 differ and neither is 1); if the smaller operand is a reduction over axis 1, keep that axis with keepdims=true}}
  return h - mu;
}
