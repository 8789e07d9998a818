#!/usr/bin/env python3
"""Seeds of artifact_edit_fuzzer: the edits of the adversarial artifact cases
(a binding kind, a grid, a loop's trip count, a staging offset, a binding
access, a code object's size, the batch size, the arena) applied to each
compiled artifact of ARTIFACT_DIR, as the harness reads its input: byte 0
picks the artifact (the loadable ones, by sorted path: those named in
COMPILED), then 3-byte edits (u16 offset, u8 xor).

    make_edit_seeds.py ARTIFACT_DIR OUT_DIR
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test", "Driver"))
import edit_manifest  # noqa: E402

# The artifacts fuzz/CMakeLists.txt compiles with vmapc (the others are
# synthetic: stand-in code that does not load).
COMPILED = ("compile-run", "knn_digits", "plan-mlp", "tuples-loops-run")
# Per field: which byte of it to change, and how.
EDITS = {
    "binding-kind": (0, 0x03),  # output (2) -> input (1)
    "grid": (3, 0x80),          # a count of 2^31 and more
    "trips": (0, 0x01),
    "staging": (0, 0x40),
    "access": (0, 0x03),
    "code-size": (1, 0x10),
    "batch": (0, 0x01),
    "arena": (1, 0x01),
}


def main(artifacts, out):
    os.makedirs(out, exist_ok=True)
    paths = sorted(os.path.join(artifacts, f) for f in os.listdir(artifacts)
                   if f.endswith(".vmapc") and f[:-6] in COMPILED)
    for index, path in enumerate(paths):
        at = edit_manifest.parse(bytearray(open(path, "rb").read()))
        stem = os.path.basename(path)[:-6]
        for field, (byte, xor) in EDITS.items():
            if field not in at:
                continue
            offset = at[field] + byte
            if offset >= 1 << 16:
                continue
            seed = bytes([index, offset & 0xFF, offset >> 8, xor])
            with open(os.path.join(out, "%s-%s" % (stem, field)), "wb") as f:
                f.write(seed)


if __name__ == "__main__":
    main(*sys.argv[1:])
