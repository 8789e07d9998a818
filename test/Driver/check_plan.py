#!/usr/bin/env python3
"""Checks the JSON of `vmapc plan --json` independently (standard library only).

    check_plan.py PLAN.json [--max-bytes N]

For each entry, recomputes from the buffer rows what the planner reports and
prints one line per fact, for FileCheck:

    entry NAME
    buffers B, largest buffer L bytes
    arena A bytes, lower bound LB bytes, naive sum S bytes, in place I
    recomputed naive sum S2 bytes, lower bound LB2 bytes, in place I2
    arena vs naive sum: less|equal|greater
    arena vs lower bound: less|equal|greater
    all buffers inside the arena: yes|no
    live buffers sharing bytes: K        (pairs whose closed live intervals
                                          meet and whose byte ranges overlap,
                                          other than in-place pairs)
    offsets aligned: yes|no
    buffers over N bytes: K               (with --max-bytes N)
"""
import json
import sys


def cmp_word(a, b):
    return "less" if a < b else "equal" if a == b else "greater"


def main(argv):
    path = argv[1]
    max_bytes = int(argv[argv.index("--max-bytes") + 1]) if "--max-bytes" in argv else None
    plans = json.load(open(path))
    for plan in plans:
        bufs = plan["buffers"]
        by_name = {b["name"]: b for b in bufs}
        print("entry %s" % plan["entry"])
        print("buffers %d, largest buffer %d bytes" %
              (len(bufs), max([b["bytes"] for b in bufs] or [0])))
        print("arena %d bytes, lower bound %d bytes, naive sum %d bytes, in place %d" %
              (plan["arena_bytes"], plan["lower_bound"], plan["naive_sum"], plan["in_place"]))

        # In-place groups share one slot: find each buffer's group root.
        def root(b):
            seen = set()
            while b["in_place_of"] is not None and b["name"] not in seen:
                seen.add(b["name"])
                b = by_name[b["in_place_of"]]
            return b["name"]

        groups = {}
        for b in bufs:
            groups.setdefault(root(b), []).append(b)
        # Lower bound: the largest sum, over schedule points, of the bytes of
        # the slots live there (a group is live from its first start to its
        # last end and counts with its largest member).
        slots = [(min(m["start"] for m in g), max(m["end"] for m in g),
                  max(m["bytes"] for m in g)) for g in groups.values()]
        points = range(0, 1 + max([s[1] for s in slots] or [0]))
        lower = max([sum(s[2] for s in slots if s[0] <= t <= s[1]) for t in points] or [0])
        naive = sum(b["bytes"] for b in bufs)
        in_place = sum(1 for b in bufs if b["in_place_of"] is not None)
        print("recomputed naive sum %d bytes, lower bound %d bytes, in place %d" %
              (naive, lower, in_place))
        print("arena vs naive sum: %s" % cmp_word(plan["arena_bytes"], plan["naive_sum"]))
        print("arena vs lower bound: %s" % cmp_word(plan["arena_bytes"], plan["lower_bound"]))
        inside = all(b["offset"] + b["bytes"] <= plan["arena_bytes"] for b in bufs)
        print("all buffers inside the arena: %s" % ("yes" if inside else "no"))
        clashes = []
        for i, a in enumerate(bufs):
            for b in bufs[i + 1:]:
                if root(a) == root(b):
                    continue
                live = a["start"] <= b["end"] and b["start"] <= a["end"]
                overlap = (a["offset"] < b["offset"] + b["bytes"] and
                           b["offset"] < a["offset"] + a["bytes"] and
                           a["bytes"] > 0 and b["bytes"] > 0)
                if live and overlap:
                    clashes.append("%s/%s" % (a["name"], b["name"]))
        print("live buffers sharing bytes: %d %s" % (len(clashes), " ".join(clashes)))
        aligned = all(b["offset"] % plan["alignment"] == 0 for b in bufs)
        print("offsets aligned: %s" % ("yes" if aligned else "no"))
        if max_bytes is not None:
            over = [b["name"] for b in bufs if b["bytes"] > max_bytes]
            print("buffers over %d bytes: %d %s" % (max_bytes, len(over), " ".join(over)))


if __name__ == "__main__":
    main(sys.argv)
