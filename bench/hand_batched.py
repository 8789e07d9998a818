#!/usr/bin/env python3
"""vmapped against hand-batched: the same arena bytes, the same linalg ops?

    python3 bench/hand_batched.py [--bin build/bin] [--program NAME ...]
                                  [--no-values] [--ir-dir DIR]

For each program of bench/ (PAIRS below) there is a twin under
bench/hand_batched/ written without vmap: the batch is an explicit leading
dimension. Each pair is compiled with the project's own tools and compared:

  arena bytes   the buffer planner's arena for the entry (`arr.plan` after
                `vmapc-opt --arr-to-linalg-pipeline --arr-bufferize-pipeline`;
                for the vmapped program it is checked to equal
                `vmapc plan --json`);
  linalg ops    the number of linalg ops (generic, matmul, fill, ...; not the
                `linalg.yield` / `linalg.index` inside a body) in the entry
                after `vmapc-opt --arr-to-linalg-pipeline`, which batches,
                inlines, lowers to linalg and fuses elementwise ops.

A hand-batched function is not an entry by itself: `.arr` exports only
`vmap(f, ..., batch=B)`. Each twin therefore exports its function through a
vmap that maps nothing (`in_axes=none, out_axes=none, batch=1`): --arr-vmap
turns it into a plain call, which the inliner removes, so no batching rule
runs. For the comparison the script gives that export the vmapped entry's
batch attributes (`arr.batch`, `arr.in_axes`, `arr.out_axes`, copied from the
vmapped export after checking that the twin's shapes carry B on those axes),
so that both entries have the same staging slots for the runtime's chunks of
B examples; everything else runs on the front end's IR unchanged. The arena
of the twin as written (no staging slots) is printed below the table.

Values (unless --no-values; needs numpy): both versions run through
`vmapc run` on the UCI digits (references / training rows 0-999, queries
rows 1000-1796), the twin one launch of B examples at a time, and their
answers must be equal. They are also compared with numpy (not asserted).

Exit status: 0 when every pair has equal figures and equal values, 1 when a
pair differs (its two linalg IRs are written to --ir-dir, with a diff), 2 on
a tool error.
"""

import argparse
import concurrent.futures
import difflib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "examples", "data", "digits.csv.gz")
NUM_REFS = 1000
NUM_ROWS = 1797

# name, vmapped program, hand-batched twin, entry, value check.
PAIRS = [
    ("knn_digits_b256", "examples/knn_digits.arr",
     "bench/hand_batched/knn_digits.arr", "classify", "knn"),
    ("knn_digits_b1", "bench/knn_digits_b1.arr",
     "bench/hand_batched/knn_digits_b1.arr", "classify", "knn"),
    ("mlp_digits_b256", "bench/mlp_digits.arr",
     "bench/hand_batched/mlp_digits.arr", "predict", "mlp"),
]


class ToolError(Exception):
    pass


def run_tool(argv, stdin=None):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise ToolError(f"{' '.join(argv)}: exit {p.returncode}\n{p.stderr.strip()}")
    return p.stdout


# --------------------------------------------------------------------------
# IR helpers (the printed form of MLIR; one function per `  func.func`).


def functions(ir):
    """{name: text} of the top-level functions of a printed module."""
    out = {}
    lines = ir.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"  func\.func (?:private )?@([\w$.]+)\(", lines[i])
        if not m:
            i += 1
            continue
        j = i
        if not lines[i].rstrip().endswith("{"):  # a declaration
            out[m.group(1)] = lines[i]
            i += 1
            continue
        while j < len(lines) and lines[j] != "  }":
            j += 1
        out[m.group(1)] = "\n".join(lines[i:j + 1])
        i = j + 1
    return out


LINALG_OP = re.compile(r"^\s*(?:%[\w#:]+(?:\s*,\s*%[\w#:]+)*\s*=\s*)?linalg\.([a-z_]+)")
BODY_OPS = {"yield", "index"}


def linalg_ops(fn_text):
    """The linalg ops of a function, as a list of names (no region terminators)."""
    ops = []
    for line in fn_text.splitlines():
        m = LINALG_OP.match(line)
        if m and m.group(1) not in BODY_OPS:
            ops.append(m.group(1))
    return ops


def plan_attr(fn_text):
    m = re.search(r"arr\.plan = #arr\.plan<([^>]*)>", fn_text)
    if not m:
        raise ToolError("no arr.plan attribute on the entry:\n" + fn_text[:400])
    return {k: int(v) for k, v in re.findall(r"(\w+) = (-?\d+)", m.group(1))}


def entry_attrs(fn_text):
    """The `attributes {arr.batch = ..., arr.in_axes = [...], arr.out_axes = [...]}`
    text of an export, and the parsed values."""
    header = fn_text.splitlines()[0]
    m = re.search(r"attributes \{(arr\.batch = (\d+) : i64, arr\.in_axes = \[([^\]]*)\], "
                  r"arr\.out_axes = \[([^\]]*)\])\}", header)
    if not m:
        raise ToolError("not an export (no arr.batch/in_axes/out_axes):\n" + header)

    def axes(text):
        return [None if a.strip() == "unit" else int(a.split(":")[0])
                for a in text.split(",") if a.strip()]

    return m.group(1), int(m.group(2)), axes(m.group(3)), axes(m.group(4))


def signature_shapes(fn_text):
    """(argument shapes, result shapes) of a function header, as lists of dims."""
    header = fn_text.splitlines()[0]
    args, results = header.split(") -> ", 1)

    def shapes(text):
        out = []
        for t in re.findall(r"tensor<([^>]*)>", text):
            dims = t.split("x")[:-1]
            out.append([int(d) for d in dims])
        return out

    return shapes(args), shapes(results.split(" attributes ")[0])


def as_entry(hand_ir, entry, vm_attrs_text, batch, in_axes, out_axes):
    """The twin's imported IR with its unmapped export given the vmapped entry's
    batch attributes; checks the twin is vmap-free and its shapes carry B."""
    fns = functions(hand_ir)
    if entry not in fns:
        raise ToolError(f"the hand-batched program has no export '{entry}'")
    for name, text in fns.items():
        calls = re.findall(r"arr\.vmap_call @[\w$.]+\([^)]*\) \{([^}]*)\}", text)
        if name != entry and calls:
            raise ToolError(f"hand-batched function '{name}' uses vmap")
        for attrs in calls:
            if re.search(r"in_axes = \[[^\]]*\d", attrs) or re.search(r"out_axes = \[[^\]]*\d", attrs):
                raise ToolError(f"the export '{entry}' of the hand-batched program maps an operand: {attrs}")
    text = fns[entry]
    own_attrs, own_batch, own_in, own_out = entry_attrs(text)
    if any(a is not None for a in own_in + own_out) or own_batch != 1:
        raise ToolError(f"expected '{entry}' = vmap(..., in_axes=none, out_axes=none, batch=1)")
    arg_shapes, result_shapes = signature_shapes(text)
    for kind, shapes, axes in (("argument", arg_shapes, in_axes), ("result", result_shapes, out_axes)):
        if len(shapes) != len(axes):
            raise ToolError(f"'{entry}': {len(shapes)} {kind}s, the vmapped entry has {len(axes)}")
        for i, (shape, axis) in enumerate(zip(shapes, axes)):
            if axis is not None and (axis >= len(shape) or shape[axis] != batch):
                raise ToolError(f"'{entry}': {kind} {i} has shape {shape}, not {batch} on axis {axis}")
    new_header = text.splitlines()[0].replace(own_attrs, vm_attrs_text)
    return hand_ir.replace(text.splitlines()[0], new_header, 1)


def figures(opt, source, entry, suffix):
    """(linalg op names, plan dict, linalg IR of the entry) of `source` (.arr or .mlir)."""
    linalg_ir = run_tool([opt, source, "--arr-to-linalg-pipeline"])
    planned_ir = run_tool([opt, source, "--arr-to-linalg-pipeline", "--arr-bufferize-pipeline"])
    lf, pf = functions(linalg_ir), functions(planned_ir)
    if entry not in lf or entry not in pf:
        raise ToolError(f"{source}: no function '{entry}' after the pipelines")
    aliases = [line for line in linalg_ir.splitlines() if line.startswith("#")]
    return linalg_ops(lf[entry]), plan_attr(pf[entry]), "\n".join(aliases + [lf[entry]])


def no_header(ir):
    return [line for line in ir.splitlines() if not line.lstrip().startswith("func.func")]


def op_summary(ops):
    counts = {}
    for o in ops:
        counts[o] = counts.get(o, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def compare_pair(args, name, vmapped, hand, entry, work):
    vm_path, hb_path = os.path.join(REPO, vmapped), os.path.join(REPO, hand)
    vm_ops, vm_plan, vm_ir = figures(args.opt, vm_path, entry, "vmapped")
    # Cross-check the planner's attribute with the driver's JSON.
    json_path = os.path.join(work, f"{name}.plan.json")
    run_tool([args.vmapc, "plan", vm_path, "--entry", entry, "--json", json_path])
    with open(json_path) as f:
        driver = json.load(f)[0]
    if driver["arena_bytes"] != vm_plan["arena_bytes"]:
        raise ToolError(f"{vmapped}: vmapc plan says {driver['arena_bytes']} arena bytes, "
                        f"vmapc-opt's arr.plan {vm_plan['arena_bytes']}")

    vm_attrs_text, batch, in_axes, out_axes = entry_attrs(functions(run_tool([args.opt, vm_path]))[entry])
    hand_ir = run_tool([args.opt, hb_path])
    entry_ir = as_entry(hand_ir, entry, vm_attrs_text, batch, in_axes, out_axes)
    entry_path = os.path.join(work, f"{name}.hand_entry.mlir")
    with open(entry_path, "w") as f:
        f.write(entry_ir)
    hb_ops, hb_plan, hb_ir = figures(args.opt, entry_path, entry, "hand")

    # The twin as written: an unmapped export, so no staging slots.
    json_path = os.path.join(work, f"{name}.hand.plan.json")
    run_tool([args.vmapc, "plan", hb_path, "--entry", entry, "--json", json_path])
    with open(json_path) as f:
        as_written = json.load(f)[0]

    equal = vm_plan["arena_bytes"] == hb_plan["arena_bytes"] and len(vm_ops) == len(hb_ops)
    return {
        "name": name, "batch": batch, "equal": equal,
        "vm_arena": vm_plan["arena_bytes"], "hb_arena": hb_plan["arena_bytes"],
        "vm_ops": vm_ops, "hb_ops": hb_ops, "vm_ir": vm_ir, "hb_ir": hb_ir,
        "vm_plan": vm_plan, "hb_plan": hb_plan, "as_written": as_written,
        "staging": sum(b["bytes"] for b in driver["buffers"] if b["kind"] == "staging"),
    }


def write_ir_diff(ir_dir, row):
    os.makedirs(ir_dir, exist_ok=True)
    base = os.path.join(ir_dir, row["name"])
    for kind in ("vm", "hb"):
        with open(f"{base}.{'vmapped' if kind == 'vm' else 'hand'}.linalg.mlir", "w") as f:
            f.write(row[f"{kind}_ir"] + "\n")
    diff = difflib.unified_diff(row["vm_ir"].splitlines(), row["hb_ir"].splitlines(),
                                "vmapped", "hand-batched", lineterm="")
    with open(f"{base}.diff", "w") as f:
        f.write("\n".join(diff) + "\n")
    return base


# --------------------------------------------------------------------------
# Values: both versions through `vmapc run` on the digits.


def load_digits():
    import numpy as np

    with gzip.open(DATA, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.shape != (NUM_ROWS, 65):
        raise ToolError(f"{DATA}: expected {NUM_ROWS} rows of 65 values, got {table.shape}")
    return table[:, :64].astype(np.float32), table[:, 64]


def train_mlp(x, labels, hidden=32, steps=400, seed=0):
    """A 64-32-10 tanh MLP, full-batch gradient descent with momentum on
    softmax cross-entropy (float64). The pixel scale 1/16 is folded into w1."""
    import numpy as np

    rng = np.random.default_rng(seed)
    xs = x.astype(np.float64) / 16.0
    y = np.eye(10)[labels]
    w1 = rng.normal(0, 1 / 8, (64, hidden))
    b1 = np.zeros(hidden)
    w2 = rng.normal(0, 1 / np.sqrt(hidden), (hidden, 10))
    b2 = np.zeros(10)
    params = [w1, b1, w2, b2]
    velocity = [np.zeros_like(p) for p in params]
    for _ in range(steps):
        h = np.tanh(xs @ w1 + b1)
        z = h @ w2 + b2
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        dz = (p - y) / len(xs)
        dh = (dz @ w2.T) * (1 - h * h)
        grads = [xs.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)]
        for v, g, prm in zip(velocity, grads, params):
            v *= 0.9
            v -= 0.5 * g
            prm += v
    return [(w1 / 16.0).astype(np.float32), b1.astype(np.float32),
            w2.astype(np.float32), b2.astype(np.float32)]


def check_values(args, name, vmapped, hand, entry, kind, batch, work, pixels, labels):
    import numpy as np

    def save(stem, array):
        path = os.path.join(work, f"{name}.{stem}.npy")
        np.save(path, array)
        return path

    queries = pixels[NUM_REFS:]
    n = len(queries)
    if kind == "knn":
        shared = [save("refs", pixels[:NUM_REFS])]
        qi = queries.astype(np.int64)
        ri = pixels[:NUM_REFS].astype(np.int64)
        d = (qi * qi).sum(1)[:, None] - 2 * (qi @ ri.T) + (ri * ri).sum(1)[None, :]
        reference = d.argmin(1)
        reference_name = "exact 1-NN (int64)"

        def predicted(answers):  # the label of the nearest reference
            return labels[:NUM_REFS][answers]
        chunk_shape = (batch, 1, 64)
    else:
        weights = train_mlp(pixels[:NUM_REFS], labels[:NUM_REFS])
        shared = [save(f"w{i}", w) for i, w in enumerate(weights)]
        w1, b1, w2, b2 = weights
        reference = (np.tanh(queries @ w1 + b1) @ w2 + b2).argmax(1)
        reference_name = "numpy float32"

        def predicted(answers):
            return answers
        chunk_shape = (batch, 64)

    # The vmapped program: all queries in one `vmapc run`; the runtime chunks.
    vm_art = os.path.join(work, f"{name}.vmapped.vmapc")
    hb_art = os.path.join(work, f"{name}.hand.vmapc")
    run_tool([args.vmapc, "compile", os.path.join(REPO, vmapped), "-o", vm_art])
    run_tool([args.vmapc, "compile", os.path.join(REPO, hand), "-o", hb_art])
    out = os.path.join(work, f"{name}.vmapped.out.npy")
    run_tool([args.vmapc, "run", vm_art, "--input", save("queries", queries)]
             + [a for p in shared for a in ("--input", p)] + ["--output", out])
    vm_answers = np.load(out)

    # The twin: one launch per chunk of B queries (the last one padded by
    # repeating the last query, as the runtime does).
    def launch(c):
        chunk = queries[c * batch:(c + 1) * batch]
        if len(chunk) < batch:
            chunk = np.concatenate([chunk, np.repeat(chunk[-1:], batch - len(chunk), 0)])
        q_path = save(f"chunk{c}", chunk.reshape(chunk_shape))
        o_path = os.path.join(work, f"{name}.chunk{c}.out.npy")
        run_tool([args.vmapc, "run", hb_art, "--num-examples", "1", "--input", q_path]
                 + [a for p in shared for a in ("--input", p)] + ["--output", o_path])
        return np.load(o_path).reshape(-1)

    chunks = (n + batch - 1) // batch
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        hb_answers = np.concatenate(list(pool.map(launch, range(chunks))))[:n]

    return {
        "n": n, "launches": chunks,
        "equal": vm_answers.shape == hb_answers.shape and bool((vm_answers == hb_answers).all()),
        "differ": int((vm_answers != hb_answers).sum()) if vm_answers.shape == hb_answers.shape else n,
        "reference_name": reference_name,
        "vm_reference": int((vm_answers == reference).sum()),
        "hb_reference": int((hb_answers == reference).sum()),
        "correct": int((predicted(vm_answers) == labels[NUM_REFS:]).sum()),
    }


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(REPO, "build", "bin"),
                    help="directory of vmapc and vmapc-opt (default: build/bin)")
    ap.add_argument("--tools-on-path", action="store_true",
                    help="take vmapc and vmapc-opt from PATH (lit)")
    ap.add_argument("--program", action="append", choices=[p[0] for p in PAIRS],
                    help="compare only this pair (repeatable; default: all)")
    ap.add_argument("--no-values", action="store_true",
                    help="compare the figures only; do not run the programs (no numpy needed)")
    ap.add_argument("--ir-dir", default=None,
                    help="write both linalg IRs and their diff here for every pair "
                         "(default: only for pairs that differ, under the temporary dir, kept)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel `vmapc run`s of the twin")
    args = ap.parse_args()

    if args.tools_on_path:
        args.vmapc, args.opt = shutil.which("vmapc"), shutil.which("vmapc-opt")
    else:
        args.vmapc = os.path.join(args.bin, "vmapc")
        args.opt = os.path.join(args.bin, "vmapc-opt")
    for tool in (args.vmapc, args.opt):
        if not tool or not os.access(tool, os.X_OK):
            print(f"hand_batched.py: {tool or 'vmapc/vmapc-opt'} not found; build with "
                  "`flock /tmp/vmapc-build.lock ninja -C build -j2 vmapc vmapc-opt`", file=sys.stderr)
            return 2

    pairs = [p for p in PAIRS if not args.program or p[0] in args.program]
    work = tempfile.mkdtemp(prefix="vmapc-hand-batched-")
    keep = False
    rows = []
    try:
        for name, vmapped, hand, entry, kind in pairs:
            rows.append(compare_pair(args, name, vmapped, hand, entry, work))

        values = {}
        if not args.no_values:
            try:
                pixels, labels = load_digits()
            except ImportError:
                print("hand_batched.py: numpy is needed to check values (or pass --no-values)",
                      file=sys.stderr)
                return 2
            for (name, vmapped, hand, entry, kind), row in zip(pairs, rows):
                values[name] = check_values(args, name, vmapped, hand, entry, kind,
                                            row["batch"], work, pixels, labels)
    except ToolError as e:
        print(f"hand_batched.py: error: {e}", file=sys.stderr)
        return 2
    finally:
        for row in rows:
            if args.ir_dir or not row["equal"]:
                keep = keep or not args.ir_dir
                write_ir_diff(args.ir_dir or os.path.join(work, "ir"), row)
        if not keep:
            shutil.rmtree(work, ignore_errors=True)

    header = ("program", "vmapped arena bytes", "hand-batched arena bytes",
              "vmapped linalg ops after fusion", "hand-batched linalg ops after fusion", "equal?")
    table = [header] + [(r["name"], str(r["vm_arena"]), str(r["hb_arena"]), str(len(r["vm_ops"])),
                         str(len(r["hb_ops"])), "yes" if r["equal"] else "NO") for r in rows]
    widths = [max(len(t[i]) for t in table) for i in range(len(header))]
    for k, t in enumerate(table):
        print("| " + " | ".join(c.ljust(w) for c, w in zip(t, widths)) + " |")
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    failed = False
    for r in rows:
        print(f"{r['name']}: linalg ops vmapped [{op_summary(r['vm_ops'])}], "
              f"hand-batched [{op_summary(r['hb_ops'])}]; "
              f"lower bound {r['vm_plan']['lower_bound']} / {r['hb_plan']['lower_bound']}, "
              f"in place {r['vm_plan']['in_place']} / {r['hb_plan']['in_place']}")
        print(f"  hand-batched as written (unmapped export, no staging slots): arena "
              f"{r['as_written']['arena_bytes']} bytes; the vmapped entry's staging slots "
              f"take {r['staging']} bytes")
        vm_lines, hb_lines = (no_header(r["vm_ir"]), no_header(r["hb_ir"]))
        if vm_lines == hb_lines:
            print("  linalg IR: identical but for the function header")
        else:
            body_diff = sum(1 for line in difflib.unified_diff(vm_lines, hb_lines, lineterm="", n=0)
                            if line[:1] in "+-" and not line.startswith(("+++", "---")))
            print(f"  linalg IR: {body_diff} differing line(s) besides the function header"
                  + (f" (see {os.path.join(args.ir_dir or os.path.join(work, 'ir'), r['name'])}.diff)"
                     if args.ir_dir or not r["equal"] else "; --ir-dir DIR writes the diff"))
        failed |= not r["equal"]
        v = values.get(r["name"])
        if v:
            print(f"  values: {v['n']} queries, vmapped (1 vmapc run) vs hand-batched "
                  f"({v['launches']} vmapc runs of {r['batch']}): "
                  + ("equal" if v["equal"] else f"DIFFER in {v['differ']}")
                  + f"; vs {v['reference_name']}: {v['vm_reference']} / {v['hb_reference']}"
                  f"; labels correct {v['correct']}/{v['n']}")
            failed |= not v["equal"]
    print()
    if failed:
        print("FAIL: the vmapped and hand-batched versions differ")
    elif args.no_values:
        print("OK: every pair has the same arena bytes and linalg op count (values not run: --no-values)")
    else:
        print("OK: every pair has the same arena bytes, linalg op count and values")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
