#!/usr/bin/env python3
"""Prints the PTX that `gpu.binary` ops hold (gpu-module-to-binary format=isa).

usage: extract-ptx.py FILE.mlir [BINARY]

With BINARY, prints only the PTX of `gpu.binary @BINARY`. MLIR prints the
string with `\\XX` hex escapes and `\\\\` for a backslash; the PTX ends in a
NUL byte (docs/toolchain.md, pitfall 7), which is dropped. Fails if nothing matches.
"""
import re
import sys


def unescape(text):
    return re.sub(r"\\(\\|[0-9A-Fa-f]{2})",
                  lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)),
                  text)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    wanted = sys.argv[2] if len(sys.argv) == 3 else None
    with open(sys.argv[1]) as f:
        mlir = f.read()
    found = 0
    for m in re.finditer(r'gpu\.binary @([\w$.-]+)\s+\[[^\n]*?assembly = "([^"]*)"', mlir):
        if wanted is None or m.group(1) == wanted:
            sys.stdout.write(unescape(m.group(2)).rstrip("\0"))
            found += 1
    if not found:
        sys.exit("extract-ptx.py: no PTX for %s in %s" % (wanted or "any gpu.binary", sys.argv[1]))


if __name__ == "__main__":
    main()
