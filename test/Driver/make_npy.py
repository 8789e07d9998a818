#!/usr/bin/env python3
"""Writes a .npy file (format 1.0) with the Python standard library only.

    make_npy.py OUT.npy DTYPE SHAPE VALUES...

DTYPE is f4, i4 or b1 (little-endian '<f4', '<i4', '|b1'); SHAPE is a
comma-separated list of dims ("2,3"; "" or "scalar" for a 0-d array);
VALUES are the elements in C order (their count must match the shape).
Used by the lit tests of the `vmapc` CLI (numpy is not required).
"""
import struct
import sys

DESCR = {"f4": "<f4", "i4": "<i4", "b1": "|b1"}
PACK = {"f4": "<f", "i4": "<i", "b1": "<B"}


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: make_npy.py OUT.npy DTYPE SHAPE VALUES...")
    out, dtype, shape_text = argv[1], argv[2], argv[3]
    if dtype not in DESCR:
        sys.exit("unknown dtype %r (use f4, i4 or b1)" % dtype)
    shape = [] if shape_text in ("", "scalar") else [int(d) for d in shape_text.split(",")]
    count = 1
    for d in shape:
        count *= d
    values = argv[4:]
    if len(values) != count:
        sys.exit("shape %r needs %d values, got %d" % (shape, count, len(values)))
    if len(shape) == 1:
        shape_repr = "(%d,)" % shape[0]
    else:
        shape_repr = "(" + ", ".join(str(d) for d in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        DESCR[dtype], shape_repr)
    # Pad with spaces so that magic + version + length + header + '\n' is a
    # multiple of 64 bytes.
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    convert = float if dtype == "f4" else int
    body = b"".join(struct.pack(PACK[dtype], convert(v)) for v in values)
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(body)


if __name__ == "__main__":
    main(sys.argv)
