"""Assembles the PTX of every `gpu.binary` in an MLIR file with ptxas.

usage: assemble-all.py FILE.mlir PTXAS ARCH OUTDIR

Writes OUTDIR/NAME.ptx and OUTDIR/NAME.cubin per binary and prints one line
per kernel, in the order of the PTX: `KERNEL: ok, N registers, S bytes
spilled` (from `ptxas -v`). Exits non-zero on the first binary that fails to assemble, or
when the file holds none.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module

extract = import_module("extract-ptx")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    path, ptxas, arch, outdir = sys.argv[1:]
    with open(path) as f:
        mlir = f.read()
    os.makedirs(outdir, exist_ok=True)
    binaries = re.findall(
        r'gpu\.binary @([\w$.-]+)\s+\[[^\n]*?assembly = "([^"]*)"', mlir)
    if not binaries:
        sys.exit("assemble-all.py: no gpu.binary in %s" % path)
    for name, escaped in binaries:
        ptx = os.path.join(outdir, name + ".ptx")
        cubin = os.path.join(outdir, name + ".cubin")
        with open(ptx, "w") as f:
            f.write(extract.unescape(escaped).rstrip("\0"))
        run = subprocess.run([ptxas, "-arch=" + arch, "-v", "-o", cubin, ptx],
                             capture_output=True, text=True)
        if run.returncode != 0 or not os.path.getsize(cubin):
            sys.exit("%s: ptxas failed:\n%s" % (name, run.stderr))
        # One line per kernel, in the PTX's order (ptxas reports them in
        # reverse).
        report = {}
        for m in re.finditer(r"Compiling entry function '([\w$.]+)'(.*?)"
                             r"Used (\d+) registers", run.stderr, re.S):
            spill = re.search(r"(\d+) bytes spill stores", m.group(2))
            report[m.group(1)] = (m.group(3), spill.group(1) if spill else "0")
        with open(ptx) as f:
            entries = re.findall(r"\.entry ([\w$.]+)\(", f.read())
        for entry in entries:
            regs, spilled = report.get(entry, ("?", "?"))
            print("%s: ok, %s registers, %s bytes spilled"
                  % (entry, regs, spilled))

if __name__ == "__main__":
    main()
