#!/usr/bin/env python3
"""Flips every bit of one byte of a file in place (standard library only).

    flip_byte.py FILE [OFFSET]

OFFSET defaults to the middle of the file (size // 2). Prints nothing.
"""
import sys

path = sys.argv[1]
with open(path, "r+b") as f:
    data = bytearray(f.read())
    offset = int(sys.argv[2]) if len(sys.argv) > 2 else len(data) // 2
    data[offset] ^= 0xFF
    f.seek(0)
    f.write(data)
