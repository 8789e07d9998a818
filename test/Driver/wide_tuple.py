#!/usr/bin/env python3
"""A function returning a tuple of N scalars, compiled and run with vmapc.

    wide_tuple.py emit N              prints the program
    wide_tuple.py run VMAPC DIR N     compiles and runs it, checks every output

The program is `fn f(x: f32) -> (f32, ..., f32) { return (x * 1.0 + 0.0,
x * 2.0 + 1.0, ...); }` exported at batch 4; output k holds x * (k + 1) + k
for each example. `run` runs it on x = [1, 2, 3, 4] (the batch) and prints
"N outputs match" or the first outputs that differ, and exits non-zero on a
mismatch. Standard library only.
"""
import os
import struct
import subprocess
import sys

BATCH = 4
INPUT = [1.0, 2.0, 3.0, 4.0]


def program(n):
    types = ", ".join(["f32"] * n)
    values = ", ".join("x * %d.0 + %d.0" % (k + 1, k) for k in range(n))
    return ("fn f(x: f32) -> (%s) {\n  return (%s);\n}\n"
            "export e = vmap(f, in_axes=0, batch=%d);\n" % (types, values, BATCH))


def write_npy(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    body = data[10 + header_len:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))


def run(vmapc, work, n):
    os.makedirs(work, exist_ok=True)
    source = os.path.join(work, "wide.arr")
    with open(source, "w") as f:
        f.write(program(n))
    artifact = os.path.join(work, "wide.vmapc")
    subprocess.run([vmapc, "compile", source, "-o", artifact], check=True)
    x = os.path.join(work, "x.npy")
    write_npy(x, INPUT)
    outputs = [os.path.join(work, "out%d.npy" % k) for k in range(n)]
    subprocess.run([vmapc, "run", artifact, "--input", x] +
                   ["--output=" + path for path in outputs], check=True)
    wrong = []
    for k, path in enumerate(outputs):
        got = read_npy(path)
        want = [v * (k + 1) + k for v in INPUT]
        if got != want:
            wrong.append("output %d: got %s, want %s" % (k, got, want))
    if wrong:
        print("\n".join(wrong[:5]))
        return 1
    print("%d outputs match" % n)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "emit":
        sys.stdout.write(program(int(argv[2])))
        return 0
    if len(argv) == 5 and argv[1] == "run":
        return run(argv[2], argv[3], int(argv[4]))
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
