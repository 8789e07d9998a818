#!/usr/bin/env python3
"""Edits a field of the first entry of a .vmapc manifest in place and reseals
the checksum, as someone editing a manifest apart from its code would
(standard library only; layout: runtime/vmapc/ArtifactFormat.h).

    edit_manifest.py FILE.vmapc FIELD VALUE

FIELD is batch (u32 batch size) or arena (u64 arena bytes).
"""
import struct
import sys


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main(path, field, value):
    data = bytearray(open(path, "rb").read())
    pos = 64
    (num_kernels,) = struct.unpack_from("<I", data, pos)
    pos += 4
    for _ in range(num_kernels):
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4 + n
        num_bindings, _ = struct.unpack_from("<II", data, pos)
        pos += 8 + 3 * 8 + 8 + 8 * num_bindings
    pos += 4  # entry count
    (n,) = struct.unpack_from("<I", data, pos)  # entry name
    pos += 4 + n
    if field == "batch":
        struct.pack_into("<I", data, pos, int(value))
    elif field == "arena":
        struct.pack_into("<Q", data, pos + 8, int(value))
    else:
        sys.exit("unknown field %r (use batch or arena)" % field)
    struct.pack_into("<Q", data, len(data) - 8, fnv1a64(data[:-8]))
    open(path, "wb").write(data)


if __name__ == "__main__":
    main(*sys.argv[1:])
