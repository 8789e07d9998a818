#!/usr/bin/env python3
"""Edits one field of a .vmapc manifest in place and reseals the checksum, as
someone editing a manifest apart from its code would (standard library only;
layout: runtime/include/vmapc/ArtifactFormat.h, format 5).

    edit_manifest.py FILE.vmapc FIELD VALUE

FIELD is one of
  batch         the first entry's u32 batch size
  arena         the first entry's u64 arena bytes
  staging       the staging offset of the first entry's first input
  grid          the first kernel's workgroup counts, "X,Y,Z" (i64 each)
  access        the first kernel's binding accesses, "1,2,..." (u8 each)
  binding-kind  the kind of the last binding of the first entry's first
                dispatch (1 input, 2 output, 3 arena)
  trips         the trip count of the first entry's first loop
  code-size     the size of the first code object
"""
import struct
import sys


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


class Reader:
    def __init__(self, data, pos):
        self.data, self.pos = data, pos

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def string(self):
        n = self.take("I")
        self.pos += n


def parse(data):
    """Offsets of the fields edit() writes."""
    at = {}
    r = Reader(data, 64)
    kernels = []
    for k in range(r.take("I")):
        r.string()
        bindings, scalars = r.take("II")
        kernels.append((bindings, scalars))
        if k == 0:
            at["grid"] = r.pos
            at["access"] = r.pos + 3 * 8 + 8 + 8 * bindings
        r.pos += 3 * 8 + 8 + 9 * bindings
    for e in range(r.take("I")):
        r.string()
        if e == 0:
            at["batch"] = r.pos
            at["arena"] = r.pos + 8
        r.pos += 4 + 4 + 4 * 8 + 4 + 4
        inputs, outputs = r.take("II")
        for a in range(inputs + outputs):
            r.string()
            _, rank, _, _ = r.take("BBHi")
            if e == 0 and a == 0:
                at["staging"] = r.pos
            r.pos += 8 + 8 * rank
        for _ in range(r.take("I")):
            kind = r.take("B")
            r.pos += 3
            if kind == 2:
                if e == 0 and "trips" not in at:
                    at["trips"] = r.pos
                r.pos += 8 + 4
                continue
            bindings, scalars = kernels[r.take("I")]
            if e == 0 and "binding-kind" not in at:
                at["binding-kind"] = r.pos + 16 * (bindings - 1)
            r.pos += 16 * bindings + 8 * scalars
    for o in range(r.take("I")):
        kind = r.take("I")
        r.string()
        for _ in range(r.take("I")):
            r.string()
        if kind in (2, 3):
            r.pos += 16 * len(kernels)
        if o == 0:
            at["code-size"] = r.pos + 8
        r.pos += 16
    return at


def main(path, field, value):
    data = bytearray(open(path, "rb").read())
    at = parse(data)
    if field not in at:
        sys.exit("no field %r in %s (fields: %s)" % (field, path, ", ".join(sorted(at))))
    pos = at[field]
    if field == "batch":
        struct.pack_into("<I", data, pos, int(value))
    elif field in ("arena", "staging", "trips", "code-size"):
        struct.pack_into("<Q", data, pos, int(value))
    elif field == "grid":
        struct.pack_into("<qqq", data, pos, *[int(v) for v in value.split(",")])
    elif field == "access":
        for i, v in enumerate(value.split(",")):
            data[pos + i] = int(v)
    elif field == "binding-kind":
        data[pos] = int(value)
    struct.pack_into("<Q", data, len(data) - 8, fnv1a64(data[:-8]))
    open(path, "wb").write(data)


if __name__ == "__main__":
    main(*sys.argv[1:])
