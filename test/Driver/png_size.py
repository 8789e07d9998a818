#!/usr/bin/env python3
"""Prints `png WIDTH x HEIGHT` of a PNG file (its IHDR chunk), or fails."""
import struct
import sys

with open(sys.argv[1], "rb") as f:
    head = f.read(24)
if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
    sys.exit("not a PNG file: %s" % sys.argv[1])
print("png %d x %d" % struct.unpack(">II", head[16:24]))
