#!/usr/bin/env python3
"""Compiles .arr programs with `vmapc compile --target=TARGET`.

usage: compile-all.py VMAPC TARGET OUTDIR FILE.arr...

TARGET is what --target takes: cpu, cuda or cpu,cuda.

Writes OUTDIR/NAME.vmapc per program and prints one line per program, in
argument order: `NAME: ok` or `NAME: error: <the first error line>`. Exits 0
whatever the outcome (FileCheck checks the lines).
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    vmapc, target, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    for path in sys.argv[4:]:
        name = os.path.splitext(os.path.basename(path))[0]
        run = subprocess.run([vmapc, "compile", "--target=" + target, path,
                              "-o", os.path.join(outdir, name + ".vmapc")],
                             capture_output=True, text=True)
        if run.returncode == 0:
            print("%s: ok" % name)
        else:
            errors = [l for l in run.stderr.splitlines() if "error:" in l]
            print("%s: error: %s" % (name, errors[0] if errors else run.stderr))


if __name__ == "__main__":
    main()
