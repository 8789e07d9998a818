#!/usr/bin/env python3
"""Writes deep or long .arr programs for the lit tests of the nesting limits.

    gen_deep_programs.py KIND N

KIND is one of
  calls         N functions g0..g(N-1), g(k) calling g(k-1), declared callee
                first, and an export of g(N-1): N + 1 bodies nested
  calls-reversed  the same, declared caller first
  loops-calls   two functions, each with N nested `for` loops; the inner one
                calls the other inside its innermost loop
  maps          N named maps, each three vmaps deep around the previous one
  loops         one function with N nested `for` loops whose carries become
                batched one level at a time (the scan rule's fixpoint)
"""
import sys


def calls(n, reverse=False):
    fns = ["fn g0(x: f32) -> f32 { return x + 1.0; }"]
    fns += ["fn g%d(x: f32) -> f32 { return g%d(x) * 0.5; }" % (k, k - 1)
            for k in range(1, n)]
    if reverse:
        fns.reverse()
    return fns + ["export e = vmap(g%d, in_axes=0, batch=4);" % (n - 1)]


def nested_loops(n, body):
    lines, indent = [], "  "
    for k in range(n):
        lines.append(indent + "for k%d in range(2) carry (c%d = x) {" % (k, k))
        indent += "  "
    lines.append(indent + body)
    for k in range(n - 1, -1, -1):
        indent = indent[:-2]
        lines.append(indent + "  yield (%s);" % ("t" if k == n - 1 else "c%d" % (k + 1)))
        lines.append(indent + "}")
    return lines


def loops_calls(n):
    out = ["fn h(x: f32) -> f32 {"] + nested_loops(n, "let t = c%d * 2.0;" % (n - 1))
    out += ["  return c0;", "}", "fn f(x: f32) -> f32 {"]
    out += nested_loops(n, "let t = h(c%d);" % (n - 1))
    out += ["  return c0;", "}", "export e = vmap(f, in_axes=0, batch=4);"]
    return out


def maps(n):
    out = ["fn g(x: f32) -> f32 { return x + 1.0; }",
           "fn m0 = vmap(vmap(vmap(g)));"]
    out += ["fn m%d = vmap(vmap(vmap(m%d)));" % (k, k - 1) for k in range(1, n)]
    return out


def loops(n):
    # Carry c(k) starts unbatched and becomes batched only through the loop
    # below it, so every level needs two rounds of the fixpoint.
    lines, indent = ["fn f(x: f32) -> f32 {"], "  "
    for k in range(n):
        lines.append(indent + "for k%d in range(2) carry (c%d = 0.0) {" % (k, k))
        indent += "  "
    lines.append(indent + "let t = c%d + x;" % (n - 1))
    for k in range(n - 1, -1, -1):
        indent = indent[:-2]
        lines.append(indent + "  yield (%s);" % ("t" if k == n - 1 else "c%d + c%d" % (k + 1, k)))
        lines.append(indent + "}")
    return lines + ["  return c0;", "}", "export e = vmap(f, in_axes=0, batch=4);"]


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    lines = {"calls": lambda: calls(n), "calls-reversed": lambda: calls(n, True),
             "loops-calls": lambda: loops_calls(n), "maps": lambda: maps(n),
             "loops": lambda: loops(n)}[kind]()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
