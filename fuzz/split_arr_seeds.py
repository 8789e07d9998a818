#!/usr/bin/env python3
"""Writes the .arr programs of the tree as seeds for arr_frontend_fuzzer.

Usage: split_arr_seeds.py OUTDIR FILE.arr...

Each file is split at its `# -----` markers (the lit tests' -split-input-file
cases); comment lines are dropped; pieces over 4 KiB (the harness's limit) and
duplicates are skipped. One seed per piece, named FILE-N.arr.
"""
import hashlib
import os
import re
import sys

MAX_BYTES = 4096


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seen = set()
    for path in sys.argv[2:]:
        with open(path, 'rb') as f:
            text = f.read()
        stem = os.path.splitext(os.path.basename(path))[0]
        for i, piece in enumerate(re.split(rb'^# -----.*$', text, flags=re.M)):
            lines = [l for l in piece.split(b'\n')
                     if not l.lstrip().startswith(b'#')]
            body = b'\n'.join(lines).strip() + b'\n'
            digest = hashlib.sha1(body).digest()
            if len(body) < 8 or len(body) > MAX_BYTES or digest in seen:
                continue
            seen.add(digest)
            with open(os.path.join(out, '%s-%d.arr' % (stem, i)), 'wb') as f:
                f.write(body)


if __name__ == '__main__':
    main()
