#!/usr/bin/env python3
"""1-NN on the UCI digits: vmapc's runtime against numpy and JAX, side by side.

    python3 bench/knn_digits.py [--build-dir build] [--runs 20]

References are rows 0-999 of examples/data/digits.csv.gz, queries rows
1000-1796 (797 queries); the answer for a query is the index of the reference
at the least squared Euclidean distance, the lowest index on ties. Every
variant runs in its own subprocess, so the peak RSS reported for it
(ru_maxrss, printed by the child itself) is that variant's alone:

  (a) vmapc B=256  build/bin/vmapc-knn-bench build/bench/knn_digits.vmapc
  (b) vmapc B=1    build/bin/vmapc-knn-bench build/bench/knn_digits_b1.vmapc
  (c) numpy broadcasting  ((q[:,None,:]-r[None,:,:])**2).sum(-1).argmin(1)
  (d) numpy matmul identity  |q|^2 - 2 q r^T + |r|^2, argmin
  (e) jax.jit(jax.vmap(nearest, in_axes=(0, None))) on the CPU, if jax imports

Each variant: the median and min of --runs timed runs over all 797 queries
(after one untimed warm-up run, which for JAX includes compiling), the labels
it gets right, how many answers agree with the exact 1-NN index, and its peak
RSS. The vmapc binary checks its answers against a plain C++ loop on every run
and refuses to report a time for wrong answers. Nothing here asserts a time.
"""

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import time

NUM_REFS = 1000
NUM_ROWS = 1797
NUM_QUERIES = NUM_ROWS - NUM_REFS  # 797
RESULT_PREFIX = "RESULT-JSON "

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.join(REPO_ROOT, "examples", "data", "digits.csv.gz")


def load_digits(path):
    import numpy as np

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.shape != (NUM_ROWS, 65):
        sys.exit(f"{path}: expected {NUM_ROWS} rows of 65 values, got {table.shape}")
    pixels, labels = table[:, :64], table[:, 64]
    return pixels[:NUM_REFS], pixels[NUM_REFS:], labels[:NUM_REFS], labels[NUM_REFS:]


def exact_nearest(q, r):
    """Exact 1-NN indices: int64 arithmetic (pixels are integers 0-16), numpy's
    argmin returns the first (lowest) index on ties."""
    import numpy as np

    q = q.astype(np.int64)
    r = r.astype(np.int64)
    d = (q * q).sum(1)[:, None] - 2 * (q @ r.T) + (r * r).sum(1)[None, :]
    return d.argmin(1)


def peak_rss_mib():
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


# --------------------------------------------------------------------------
# Children: one Python variant each, printing one RESULT-JSON line.


def child(variant, data, runs):
    if variant == "jax":
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        try:
            import jax
            import jax.numpy as jnp
        except Exception as e:  # ImportError, or a broken install
            print(RESULT_PREFIX + json.dumps({"skipped": f"import jax failed: {e}"}))
            return 0
    import numpy as np

    r_i, q_i, _, _ = load_digits(data)
    q = q_i.astype(np.float32)
    r = r_i.astype(np.float32)

    if variant == "numpy-broadcast":

        def compute():
            return ((q[:, None, :] - r[None, :, :]) ** 2).sum(-1).argmin(1)

    elif variant == "numpy-matmul":

        def compute():
            d = (q * q).sum(1)[:, None] - 2 * (q @ r.T) + (r * r).sum(1)[None, :]
            return d.argmin(1)

    elif variant == "jax":

        def sqdist(a, b):
            d = a - b
            return jnp.sum(d * d)

        def nearest(qq, refs):
            return jnp.argmin(jax.vmap(sqdist, in_axes=(None, 0))(qq, refs))

        classify = jax.jit(jax.vmap(nearest, in_axes=(0, None)))
        qj = jax.device_put(q)
        rj = jax.device_put(r)

        def compute():
            return classify(qj, rj).block_until_ready()

    else:
        sys.exit(f"unknown variant {variant}")

    base = peak_rss_mib()
    out = np.asarray(compute())  # warm-up (JAX: tracing and compiling)
    seconds = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = compute()
        seconds.append(time.perf_counter() - t0)
    out = np.asarray(out)
    result = {
        "median_s": median(seconds),
        "min_s": min(seconds),
        "answers": [int(x) for x in out],
        "peak_rss_mib": peak_rss_mib(),
        "base_rss_mib": base,
    }
    if variant == "jax":
        result["note"] = f"jax {jax.__version__}, {jax.devices()[0]}"
    print(RESULT_PREFIX + json.dumps(result))
    return 0


# --------------------------------------------------------------------------
# The parent: run every variant in its own process, print one table.


# On Linux, ru_maxrss survives execve: a child exec'd straight from this
# Python process (vfork or fork) would report at least this process's own peak.
# So every child is started by a small shell that forks it: the shell's peak,
# a few MiB, is what a fresh process inherits, and the child's ru_maxrss is its
# own (the `; exit $?` keeps the shell from exec'ing the command in place).
def spawn(argv):
    return subprocess.run(["sh", "-c", '"$@"; exit $?', "sh"] + argv,
                          capture_output=True, text=True)


def run_vmapc(binary, artifact, data, runs):
    if not os.path.exists(binary) or not os.path.exists(artifact):
        return {"skipped": f"not built ({binary if not os.path.exists(binary) else artifact}); "
                "run: ninja -C BUILD vmapc-knn-bench"}
    p = spawn([binary, artifact, str(runs), "--data", data])
    if p.returncode != 0:
        return {"failed": (p.stderr.strip() or p.stdout.strip() or f"exit {p.returncode}")}
    fields = {}
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            for kv in line.split()[1:]:
                k, v = kv.split("=", 1)
                fields[k] = v
    if not fields:
        return {"failed": "no RESULT line in:\n" + p.stdout}
    return {
        "median_s": float(fields["median_s"]),
        "min_s": float(fields["min_s"]),
        # The binary exits non-zero unless every answer of every run agrees
        # with its plain 1-NN loop (the same definition as exact_nearest).
        "agree": int(fields["agree"]),
        "correct": int(fields["correct"]),
        "peak_rss_mib": float(fields["peak_rss_mib"]),
        "base_rss_mib": float(fields["base_rss_mib"]),
        "plan": fields,
    }


def run_python_child(variant, data, runs):
    p = spawn([sys.executable, os.path.abspath(__file__), "--child", variant,
               "--data", data, "--runs", str(runs)])
    for line in p.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    return {"failed": f"exit {p.returncode}: " + (p.stderr.strip()[-2000:] or p.stdout.strip())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default="build",
                    help="the CMake build directory (default: ./build)")
    ap.add_argument("--runs", type=int, default=20,
                    help="timed runs per variant (default: 20)")
    ap.add_argument("--data", default=DEFAULT_DATA,
                    help="digits.csv or digits.csv.gz (default: examples/data/digits.csv.gz)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    data = os.path.abspath(args.data)
    if args.child:
        return child(args.child, data, args.runs)

    import numpy as np

    r, q, r_labels, q_labels = load_digits(data)
    exact = exact_nearest(q, r)
    exact_correct = int((r_labels[exact] == q_labels).sum())

    build = os.path.abspath(args.build_dir)
    binary = os.path.join(build, "bin", "vmapc-knn-bench")
    variants = [
        ("vmapc runtime B=256", "vmapc", os.path.join(build, "bench", "knn_digits.vmapc")),
        ("vmapc runtime B=1", "vmapc", os.path.join(build, "bench", "knn_digits_b1.vmapc")),
        ("numpy broadcasting", "numpy-broadcast", None),
        ("numpy matmul identity", "numpy-matmul", None),
        ("jax.jit(vmap(vmap)) cpu", "jax", None),
    ]

    print(f"1-NN digits: {NUM_QUERIES} queries x {NUM_REFS} references x 64 pixels, "
          f"{args.runs} timed runs per variant (+1 warm-up), each variant in its own process")
    print(f"exact 1-NN (int64): {exact_correct}/{NUM_QUERIES} labels correct")
    results = []
    for name, kind, artifact in variants:
        print(f"  running {name} ...", file=sys.stderr, flush=True)
        if kind == "vmapc":
            res = run_vmapc(binary, artifact, data, args.runs)
        else:
            res = run_python_child(kind, data, args.runs)
            if "answers" in res:
                ans = np.asarray(res.pop("answers"))
                res["agree"] = int((ans == exact).sum())
                res["correct"] = int((r_labels[ans] == q_labels).sum())
        results.append((name, kind, res))

    base = next((res["median_s"] for _, kind, res in results
                 if kind == "vmapc" and "median_s" in res), None)
    header = (f"{'variant':<26} {'median s':>10} {'min s':>10} {'ratio':>8} "
              f"{'correct':>8} {'exact':>8} {'peak RSS':>9} {'base RSS':>9}")
    print()
    print(header)
    print(f"{'':<26} {'':>10} {'':>10} {'/B=256':>8} {'/797':>8} {'/797':>8} "
          f"{'MiB':>9} {'MiB':>9}")
    print("-" * len(header))
    notes = []
    for name, kind, res in results:
        if "median_s" not in res:
            why = res.get("skipped") or res.get("failed")
            if kind == "jax" and "skipped" in res:
                print("jax: not installed, skipped")
                notes.append(f"jax: {why}")
                continue
            status = "SKIPPED" if "skipped" in res else "FAILED"
            print(f"{name:<26} {status}")
            notes.append(f"{name}: {why}")
            continue
        ratio = f"{res['median_s'] / base:8.2f}" if base else f"{'-':>8}"
        print(f"{name:<26} {res['median_s']:10.5f} {res['min_s']:10.5f} {ratio} "
              f"{res['correct']:8d} {res['agree']:8d} {res['peak_rss_mib']:9.1f} "
              f"{res['base_rss_mib']:9.1f}")
        if "note" in res:
            notes.append(f"{name}: {res['note']}")
    print()
    print("correct: labels right (the exact 1-NN gets "
          f"{exact_correct}); exact: answers equal to the exact 1-NN index (lowest index on ties).")
    print("peak RSS: the child's own ru_maxrss (whole process: interpreter, libraries, data); "
          "base RSS: its ru_maxrss just before the first run.")
    for name, kind, res in results:
        if kind == "vmapc" and "plan" in res:
            p = res["plan"]
            arena, lb, naive = (int(p["plan_arena"]), int(p["plan_lower_bound"]),
                                int(p["plan_naive_sum"]))
            print(f"vmapc plan, {name}: arena {arena} bytes, lower bound {lb} bytes "
                  f"({arena / lb:.3f}x), naive sum {naive} bytes, "
                  f"{p['plan_in_place']} in-place; {p['launches_per_run']} launches per run "
                  f"(runtime arena allocation {p['arena_bytes']} bytes)")
    print("the matmul identity can flip near-ties in general; here the pixels are integers "
          "0-16, so every float32 value in it is an exact integer (< 2**24).")
    bcast = NUM_QUERIES * NUM_REFS * 64 * 4
    print(f"for scale: the broadcasting form's q[:,None,:]-r[None,:,:] alone is "
          f"{bcast} bytes ({bcast / 2**20:.0f} MiB) of float32.")
    for n in notes:
        print("note: " + n)
    print(f"Timings are noisy: this machine has {os.cpu_count()} CPU(s), shared with other work. "
          "numpy's BLAS and XLA may use several threads; vmapc's CPU code is plain loops on one "
          "thread, compiled for generic x86-64 (a baseline, not tuned). "
          "No timing is asserted.")
    return 0 if all("failed" not in res for _, _, res in results) else 1


if __name__ == "__main__":
    sys.exit(main())
