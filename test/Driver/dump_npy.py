#!/usr/bin/env python3
"""Prints a .npy file (format 1.0 or 2.0) with the Python standard library only.

    dump_npy.py FILE.npy

Output, for FileCheck:
    dtype <f4 shape [2, 3]
    [1, 2, 3]
    [4, 5, 6]
one line per row along the last dimension (a 0-d array prints one value;
an array with no elements prints "empty"). f32 values are printed with the
shortest repr that round-trips through float32 ("0.1", "-2.5", "3"); i32
as integers; bool as True/False.
"""
import ast
import struct
import sys

FORMATS = {"<f4": ("<f", 4), "<i4": ("<i", 4), "|b1": ("<?", 1)}


def shortest_f32(x):
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    for digits in range(1, 10):
        text = "%.*g" % (digits, x)
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == x:
            break
    text = repr(float(text))
    return text[:-2] if text.endswith(".0") else text


def main(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    descr, shape = header["descr"], list(header["shape"])
    if header["fortran_order"]:
        sys.exit("%s: Fortran order" % path)
    fmt, size = FORMATS[descr]
    body = data[start + length:]
    count = 1
    for d in shape:
        count *= d
    if len(body) != count * size:
        sys.exit("%s: %d data bytes for %d elements" % (path, len(body), count))
    values = [struct.unpack(fmt, body[i * size:(i + 1) * size])[0]
              for i in range(count)]
    if descr == "<f4":
        text = [shortest_f32(v) for v in values]
    else:
        text = [str(v) for v in values]
    print("dtype %s shape %s" % (descr, shape))
    if count == 0:
        print("empty")
    elif not shape:
        print(text[0])
    else:
        row = shape[-1]
        for i in range(0, count, row):
            print("[" + ", ".join(text[i:i + row]) + "]")


if __name__ == "__main__":
    main(sys.argv[1])
