#!/usr/bin/env python3
"""Prints how long `vmapc compile` takes on wide and long programs.

    compile_times.py [--vmapc PATH] [--runs N] [--only NAME ...]
    compile_times.py --emit NAME > prog.arr

Each program is generated here (nothing is read from disk) and compiled with
`vmapc compile PROG.arr -o PROG.vmapc`; the table shows the size of the
program and, over N runs (default 3), the median wall time and the median
CPU time (user + system, of vmapc and the `ld` it links with), in seconds:
on a shared machine the wall time grows with the load, the CPU time much
less. Compile time should grow about linearly with program size; the goal
is under 10 s for each row on a 2-core machine. Programs:

    concat100, concat500    concat((x + 1.0, x + 2.0, ...), axis=0) of N
                            pieces of f32[8], exported at batch 16
    lets1000, lets4000      N chained `let aK = aK-1 * 1.0001 + 0.5;`
    tuple1600               a function returning a tuple of 1600 f32 scalars,
                            each x + K, exported at batch 16
    calls255                a chain of 255 user functions, g_K calling g_K-1:
                            with the export, the deepest nesting allowed

`--emit NAME` prints one program instead (to look at its IR, say).
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def concat(n):
    pieces = ", ".join("x + %d.0" % (k + 1) for k in range(n))
    return ("fn f(x: f32[8]) -> f32[%d] {\n  return concat((%s), axis=0);\n}\n"
            "export e = vmap(f, in_axes=0, batch=16);\n" % (8 * n, pieces))


def lets(n):
    body = ["  let a0 = x;"]
    body += ["  let a%d = a%d * 1.0001 + 0.5;" % (k, k - 1) for k in range(1, n)]
    return ("fn f(x: f32[8]) -> f32[8] {\n%s\n  return a%d;\n}\n"
            "export e = vmap(f, in_axes=0, batch=16);\n" % ("\n".join(body), n - 1))


def tuple_results(n):
    types = ", ".join(["f32"] * n)
    values = ", ".join("x + %d.0" % k for k in range(n))
    return ("fn f(x: f32) -> (%s) {\n  return (%s);\n}\n"
            "export e = vmap(f, in_axes=0, batch=16);\n" % (types, values))


def calls(n):
    fns = ["fn g0(x: f32[8]) -> f32[8] {\n  return x + 1.0;\n}\n"]
    fns += ["fn g%d(x: f32[8]) -> f32[8] {\n  return g%d(x) * 0.5;\n}\n" % (k, k - 1)
            for k in range(1, n)]
    return "".join(fns) + "export e = vmap(g%d, in_axes=0, batch=16);\n" % (n - 1)


PROGRAMS = {
    "concat100": lambda: concat(100),
    "concat500": lambda: concat(500),
    "lets1000": lambda: lets(1000),
    "lets4000": lambda: lets(4000),
    "tuple1600": lambda: tuple_results(1600),
    "calls255": lambda: calls(255),
}


def time_compile(vmapc, source, runs):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "prog.arr")
        with open(path, "w") as f:
            f.write(source)
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run([vmapc, "compile", path, "-o",
                                   os.path.join(tmp, "prog.vmapc")],
                                  capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime +
                        after.ru_stime - before.ru_stime)
            if proc.returncode != 0:
                return None, proc.stderr.strip().splitlines()[:3]
        return (statistics.median(walls), statistics.median(cpus)), None


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vmapc", default=os.path.join(root, "build", "bin", "vmapc"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(PROGRAMS))
    parser.add_argument("--emit", choices=sorted(PROGRAMS))
    args = parser.parse_args()
    if args.emit:
        sys.stdout.write(PROGRAMS[args.emit]())
        return 0
    names = args.only or list(PROGRAMS)
    print("%-12s %10s %8s  %8s %8s" % ("program", "bytes", "lines", "wall s", "cpu s"))
    failed = False
    for name in names:
        source = PROGRAMS[name]()
        seconds, error = time_compile(args.vmapc, source, args.runs)
        size = "%10d %8d" % (len(source), source.count("\n"))
        if error:
            failed = True
            print("%-12s %s  FAILED: %s" % (name, size, " | ".join(error)))
        else:
            print("%-12s %s  %8.2f %8.2f" % (name, size, seconds[0], seconds[1]))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
