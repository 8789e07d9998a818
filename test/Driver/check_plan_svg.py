#!/usr/bin/env python3
"""Checks the picture of `vmapc plan --svg` against its JSON (standard library only).

    check_plan_svg.py PLAN.svg PLAN.json

Prints one line per fact, for FileCheck:

    xml: ok                               (it parses)
    width W px, smallest font F px        (the root's width; every font-size)
    texts past an edge: N                 (0.6 em a character, as PlanSvg.cpp
                                           sizes text; the anchor's side)
    rects R, without a title T            (every <rect>, legend swatches too)
    entry NAME
    buffers B drawn of J in the JSON, ids match: yes|no
    labelled L                            (buffers whose name is written inside)
    overlapping pairs K, recorded P, unrecorded U [pairs]
    offsets monotone: yes|no              (a higher offset is never drawn above)

Two buffer rectangles overlap when their intersection has a positive area
(beyond 0.05 px of rounding). The plan records an overlap when the two are
in one in-place group (in_place_of, followed to its root) or one of them is
donated (role "donated").
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
EPS = 0.05


def main(argv):
    svg_path, json_path = argv[1], argv[2]
    root = ET.parse(svg_path).getroot()
    print("xml: ok")
    sizes = [float(e.get("font-size")) for e in root.iter() if e.get("font-size")]
    print("width %s px, smallest font %g px" % (root.get("width"), min(sizes)))
    width = float(root.get("width"))
    font = float(root.get("font-size") or min(sizes))
    past = []
    for t in root.iter(SVG + "text"):
        if t.get("x") is None:
            continue
        x, w = float(t.get("x")), 0.6 * float(t.get("font-size") or font) * len(t.text or "")
        left = {"end": x - w, "middle": x - w / 2}.get(t.get("text-anchor"), x)
        if left < -EPS or left + w > width + EPS:
            past.append(t.text)
    print("texts past an edge: %d %s" % (len(past), " | ".join(past)))
    rects = list(root.iter(SVG + "rect"))
    untitled = [r for r in rects
                if r.find(SVG + "title") is None or not (r.find(SVG + "title").text or "").strip()]
    print("rects %d, without a title %d" % (len(rects), len(untitled)))
    texts = [(t.text or "") for t in root.iter(SVG + "text")]

    for plan in json.load(open(json_path)):
        entry = plan["entry"]
        by_id = {b["name"]: b for b in plan["buffers"]}
        print("entry %s" % entry)
        drawn = {}
        for r in rects:
            if r.get("class") == "buffer" and r.get("data-entry") == entry:
                drawn[r.get("data-id")] = tuple(
                    float(r.get(k)) for k in ("x", "y", "width", "height"))
        print("buffers %d drawn of %d in the JSON, ids match: %s" %
              (len(drawn), len(by_id), "yes" if set(drawn) == set(by_id) else "no"))
        labelled = sum(1 for b in plan["buffers"]
                       if any(t == b["source"] or t.startswith(b["source"] + ", ")
                              for t in texts))
        print("labelled %d" % labelled)

        def group(name):
            seen = set()
            while by_id[name]["in_place_of"] is not None and name not in seen:
                seen.add(name)
                name = by_id[name]["in_place_of"]
            return name

        names = sorted(drawn)
        recorded, unrecorded = 0, []
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                ax, ay, aw, ah = drawn[a]
                bx, by, bw, bh = drawn[b]
                w = min(ax + aw, bx + bw) - max(ax, bx)
                h = min(ay + ah, by + bh) - max(ay, by)
                if w <= EPS or h <= EPS:
                    continue
                if group(a) == group(b) or "donated" in (by_id[a]["role"], by_id[b]["role"]):
                    recorded += 1
                else:
                    unrecorded.append("%s/%s" % (a, b))
        print("overlapping pairs %d, recorded %d, unrecorded %d %s" %
              (recorded + len(unrecorded), recorded, len(unrecorded), " ".join(unrecorded)))
        # The offset axis: sorted by offset, the rectangles' tops never go up.
        tops = sorted((by_id[n]["offset"], drawn[n][1]) for n in names)
        monotone = all(tops[i][1] <= tops[i + 1][1] + EPS for i in range(len(tops) - 1))
        print("offsets monotone: %s" % ("yes" if monotone else "no"))


if __name__ == "__main__":
    main(sys.argv)
