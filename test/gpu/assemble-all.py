"""Assembles the PTX of every `gpu.binary` in an MLIR file with ptxas.

usage: assemble-all.py FILE.mlir PTXAS ARCH OUTDIR

Writes OUTDIR/NAME.ptx and OUTDIR/NAME.cubin per binary and prints one line
per binary, in file order: `NAME: ok, N registers, S bytes spilled` (from
`ptxas -v`). Exits non-zero on the first binary that fails to assemble, or
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
        regs = re.search(r"Used (\d+) registers", run.stderr)
        spill = re.search(r"(\d+) bytes spill stores", run.stderr)
        print("%s: ok, %s registers, %s bytes spilled"
              % (name, regs.group(1) if regs else "?",
                 spill.group(1) if spill else "0"))


if __name__ == "__main__":
    main()
