#!/usr/bin/env python3
"""The GPU bench table: vmapc and jax.jit(jax.vmap(f)) on one GPU, timed alike.

    python3 bench/gpu_bench.py --host build-gpu/host/vmapc-gpu-bench
        [--artifacts build/gpu-artifacts] [--device cuda:0]
        [--programs a,b,...] [--large-n 65536] [--no-large]
        [--runs 20] [--warmup 3] [--copy-bytes BYTES | --copy-json FILE]
        [--vmapc-only] [--json FILE] [--markdown FILE] [--work DIR]

For each program of bench/programs.py, at its bench N and at a large N
(65536 examples, fewer where the inputs would pass ~1 GiB: LARGE_N), with
the artifacts that test/gpu/prepare.sh compiled (`--target=cpu,cuda`):

  vmapc   test/gpu/host/GpuBench.cpp: inputs copied to the device once,
          `Executable::run` with device arrays on the host's stream, the
          wall clock of each call and a stream synchronize, and the time
          between CUDA events recorded around it on that stream ("kernel");
  JAX     bench/gpu_jax_worker.py: the program's per-example function as
          written, jax.jit(jax.vmap(f, in_axes)) under
          jax.default_matmul_precision("float32"), inputs device_put first,
          the wall clock of each call and block_until_ready().

Both: W warm-up calls (3), then the median of K >= 20 timed calls. Achieved
GB/s = bytes of all inputs and outputs / vmapc's median wall time, and its
fraction of the device-to-device copy bandwidth measured in the same run
(cuMemcpyDtoD of 1 GiB, read + write counted: the host's --copy-bytes).
Peak device memory: vmapc = inputs + outputs + the runtime's arena (its one
device allocation); JAX = the allocator's peak_bytes_in_use with
XLA_PYTHON_CLIENT_PREALLOCATE=false (inputs, outputs, temporaries).

Checks: at the bench N, vmapc's (and JAX's) outputs against the float64
reference of programs.py (FLOAT_TOLERANCE of the largest |reference|; the
kNN exactly); at the large N, vmapc's against JAX's (the same bound).

Goals (the GPU backend's targets): memory-bound rows whose inputs and outputs are at
least 4x the L2 cache >= 85% of the copy bandwidth; kNN and MLPs at the
large N >= 1.0x JAX's throughput; peak device memory <= JAX's.

--vmapc-only prints the vmapc side alone (no JAX process). --device cpu
runs the same table on the CPU (test/gpu/check.sh's CPU path: no kernel
time, no copy bandwidth, JAX on its CPU backend). Markdown on stdout,
progress on stderr; exit status 1 if an output is WRONG or a run failed.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs as P  # noqa: E402

REPO_ROOT = P.REPO_ROOT
DEFAULT_LARGE_N = 65536
# Programs whose inputs at 65536 examples would be several GiB (attention:
# three 65536 x 128 x 64 f32 arrays, 6 GiB): 8192 is already 1 GiB in all.
LARGE_N = {"attention_128x64": 8192}
COPY_BYTES = 1 << 30
# Goal rows.
THROUGHPUT_GOAL_ROWS = ("knn_digits", "mlp_64_32_10", "mlp_256_256_10",
                        "mlp_784_512_512_10")
COPY_FRACTION_GOAL = 0.85
L2_MULTIPLE = 4


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def artifact_for(prog, artifacts, device):
    """ARTIFACTS/NAME.vmapc; on a CPU device ARTIFACTS/cpu/NAME.vmapc where
    test/gpu/prepare.sh had to compile the CPU code apart."""
    stem = os.path.splitext(os.path.basename(P.arr_path(prog)))[0]
    cpu = os.path.join(artifacts, "cpu", stem + ".vmapc")
    if device.startswith("cpu") and os.path.exists(cpu):
        return cpu
    return os.path.join(artifacts, stem + ".vmapc")


def run_json(cmd, env=None):
    """(returncode, last JSON line or None, stderr)."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    return r.returncode, (json.loads(lines[-1]) if lines else None), \
        r.stderr.strip()


def make_inputs(prog, n, rng):
    """The program's inputs for n examples (programs.py); the kNN's queries
    are the 797 digit queries repeated when n is larger."""
    import numpy as np

    if prog.kind == "knn" and n > prog.n:
        q, refs = prog.inputs(rng, prog.n)
        reps = -(-n // q.shape[0])
        return [np.ascontiguousarray(np.tile(q, (reps, 1))[:n]), refs]
    return prog.inputs(rng, n)


def compare(prog, out, ref):
    """(ok, text): kNN exactly, else FLOAT_TOLERANCE x max|ref|."""
    import numpy as np

    if out.shape != ref.shape:
        return False, f"shape {list(out.shape)}, expected {list(ref.shape)}"
    if prog.kind == "knn":
        bad = int((out.astype(np.int64) != ref.astype(np.int64)).sum())
        return bad == 0, ("exact" if bad == 0 else f"{bad} of {ref.size} differ")
    out = out.astype(np.float64)
    if not np.isfinite(out).all():
        return False, f"{int((~np.isfinite(out)).sum())} non-finite"
    scale = float(np.abs(ref).max()) or 1.0
    err = float(np.abs(out - ref.astype(np.float64)).max()) / scale
    return err <= P.FLOAT_TOLERANCE, f"{err:.1e}"


class Row:
    def __init__(self, prog, n):
        self.prog = prog
        self.n = n
        self.large = n != prog.n
        self.traffic = None
        self.vmapc = None     # the host's JSON
        self.jax = None       # the worker's JSON
        self.errors = []
        self.check = []       # (who, ok, text)
        self.reference = None  # float64 outputs, at the bench N
        self.dir = None

    @property
    def label(self):
        return self.prog.title if not self.large else \
            f"{self.prog.title.split(',')[0]}, large"


def bench_group(progs, args, work):
    """All rows of one .arr file (its bench N rows and its large N), vmapc
    first, then one JAX process for them all."""
    import numpy as np

    rows = []
    seen = set()
    for prog in progs:
        for n in (prog.n, None if args.no_large else
                  LARGE_N.get(prog.name, args.large_n)):
            if n is None or (P.arr_path(prog), n) in seen or n < prog.n:
                continue
            seen.add((P.arr_path(prog), n))
            rows.append(Row(prog, n))
    rows.sort(key=lambda r: r.n)
    art = artifact_for(progs[0], args.artifacts, args.device)
    if not os.path.exists(art):
        for r in rows:
            r.errors.append(f"no artifact {art} (run test/gpu/prepare.sh)")
        return rows

    rng = np.random.default_rng(20261201)
    jax_cases = []
    for r in rows:
        d = r.dir = os.path.join(work, f"{r.prog.name}_{r.n}")
        os.makedirs(d, exist_ok=True)
        log(f"== {r.label}: N = {r.n}")
        t0 = time.perf_counter()
        xs = make_inputs(r.prog, r.n, rng)
        ins = []
        for i, x in enumerate(xs):
            path = os.path.join(d, f"in{i}.npy")
            np.save(path, x)
            ins.append(path)
        in_bytes = sum(x.nbytes for x in xs)
        log(f"   inputs: {in_bytes / 2**20:.1f} MiB in "
            f"{time.perf_counter() - t0:.1f} s")
        r.vmapc_out = os.path.join(d, "out_vmapc.npy")
        r.jax_out = os.path.join(d, "out_jax.npy")
        cmd = [args.host, art, "--device", args.device, "--runs",
               str(args.runs), "--warmup", str(args.warmup),
               "--output", r.vmapc_out]
        for p in ins:
            cmd += ["--input", p]
        rc, data, err = run_json(cmd)
        if rc != 0 or data is None or "median_s" not in data:
            r.errors.append(f"vmapc-gpu-bench exited {rc}: {err}")
        else:
            r.vmapc = data
            r.traffic = data["input_bytes"] + data["output_bytes"]
            log(f"   vmapc: {data['median_s'] * 1e3:.3f} ms")
        # The bench N: both against the float64 reference.
        if not r.large:
            r.reference = r.prog.reference(xs)[0]
            if r.vmapc:
                r.check.append(("vmapc",) + compare(
                    r.prog, np.load(r.vmapc_out), r.reference))
        del xs
        jax_cases.append({"n": r.n, "inputs": ins, "output": r.jax_out})

    if not args.vmapc_only:
        spec = {"program": rows[0].prog.name, "runs": args.runs,
                "warmup": args.warmup,
                "platform": "cpu" if args.device.startswith("cpu") else "gpu",
                "cases": jax_cases}
        spec_path = os.path.join(rows[0].dir, "jax_spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
        if args.device.startswith("cpu"):
            env["JAX_PLATFORMS"] = "cpu"
        log(f"   JAX ({len(jax_cases)} case(s))")
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "gpu_jax_worker.py"),
                            spec_path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env)
        replies = [json.loads(ln) for ln in r.stdout.splitlines()
                   if ln.startswith("{")]
        by_n = {rep.get("n"): rep for rep in replies}
        for row in rows:
            rep = by_n.get(row.n)
            if rep is None:
                # The exception's last line; the whole of it on stderr.
                last = (r.stderr.strip().splitlines() or ["no output"])[-1]
                row.errors.append(f"JAX worker exited {r.returncode}: "
                                  + last[-300:])
                if row is rows[0]:
                    log(r.stderr.strip()[-3000:])
            elif "error" in rep:
                row.errors.append("JAX: " + rep["error"])
            else:
                row.jax = rep
                log(f"   JAX N={row.n}: {rep['median_s'] * 1e3:.3f} ms")
                jout = np.load(row.jax_out)
                if not row.large:
                    row.check.append(("jax",) + compare(row.prog, jout,
                                                        row.reference))
                elif row.vmapc:
                    row.check.append(("vmapc vs jax",) + compare(
                        row.prog, np.load(row.vmapc_out), jout))
    for row in rows:
        row.reference = None
        if not args.keep:
            shutil.rmtree(row.dir, ignore_errors=True)
    return rows


# ----------------------------------------------------------------------------
# The table.


def fmt_ms(s):
    return "n/a" if s is None else f"{s * 1e3:.3f}"


def fmt_mib(b):
    return "n/a" if b is None else f"{b / 2**20:.1f}"


def goal_text(row, copy, l2):
    """The row's goals: met, missed (why), or '' when none applies."""
    parts = []
    v, j = row.vmapc, row.jax
    if v and row.prog.kind == "memory" and copy and l2 and \
            row.traffic >= L2_MULTIPLE * l2:
        frac = row.traffic / v["median_s"] / 1e9 / copy
        parts.append(f"copy {'met' if frac >= COPY_FRACTION_GOAL else 'missed'}"
                     f" ({frac:.0%})")
    if v and j and row.large and row.prog.name in THROUGHPUT_GOAL_ROWS:
        speed = j["median_s"] / v["median_s"]
        parts.append(f"speed {'met' if speed >= 1.0 else 'missed'} "
                     f"({speed:.2f}x)")
    if v and j and j.get("peak_bytes"):
        ok = v["peak_device_bytes"] <= j["peak_bytes"]
        parts.append(f"memory {'met' if ok else 'missed'}")
    return ", ".join(parts)


def table(rows, args, copy, l2):
    jax_cols = not args.vmapc_only
    head = ["row", "N", "vmapc ms", "kernel ms"]
    if jax_cols:
        head += ["JAX ms", "JAX/vmapc"]
    head += ["GB/s", "% copy", "vmapc MiB"]
    if jax_cols:
        head += ["JAX MiB", "vmapc/JAX mem"]
    head += ["check", "goal"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        v, j = r.vmapc or {}, r.jax or {}
        vt = v.get("median_s")
        gbps = r.traffic / vt / 1e9 if vt and r.traffic else None
        cells = [r.label, str(r.n), fmt_ms(vt), fmt_ms(v.get("kernel_median_s"))]
        if jax_cols:
            jt = j.get("median_s")
            cells += [fmt_ms(jt),
                      f"{jt / vt:.2f}" if jt and vt else "n/a"]
        cells += ["n/a" if gbps is None else f"{gbps:.0f}",
                  f"{gbps / copy:.0%}" if gbps and copy else "n/a",
                  fmt_mib(v.get("peak_device_bytes"))]
        if jax_cols:
            jp = j.get("peak_bytes")
            mark = ""
            if jp and j.get("peak_after_compile") and \
                    j["peak_after_compile"] >= jp:
                mark = " (c)"
            cells += [fmt_mib(jp) + mark,
                      f"{v['peak_device_bytes'] / jp:.2f}"
                      if jp and v.get("peak_device_bytes") else "n/a"]
        if r.errors:
            check = "ERROR: " + "; ".join(r.errors)
        else:
            bad = [f"WRONG: {who} ({text})" for who, ok, text in r.check
                   if not ok]
            check = "; ".join(bad) if bad else \
                ("ok: " + ", ".join(f"{who} {text}" for who, _, text in r.check)
                 if r.check else "not checked")
        cells += [check.replace("|", "/").replace("\n", " "),
                  goal_text(r, copy, l2)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_reports(rows, args, copy_info, started):
    """The table's text; also written to --markdown and --json."""
    copy = (copy_info or {}).get("copy", {}).get("median_gbps")
    l2 = copy_info["gpu"]["l2_bytes"] if copy_info else None
    when = started.strftime("%Y-%m-%d %H:%M UTC")
    gpu = copy_info["gpu"] if copy_info else None
    header = [f"GPU bench, {when}: device {args.device}"
              + (f" ({gpu['name']}, {gpu['sm']}, L2 {gpu['l2_bytes'] / 2**20:.0f}"
                 f" MiB, driver {gpu['driver_version']})" if gpu else ""),
              (f"device-to-device copy: {copy:.0f} GB/s (read + write, "
               f"{copy_info['copy']['bytes'] / 2**30:.2f} GiB x "
               f"{copy_info['copy']['repeats']}, median)") if copy else
              "device-to-device copy: n/a (no GPU)",
              f"median of {args.runs} calls after {args.warmup} warm-up calls"
              + ("; vmapc side only" if args.vmapc_only else
                 "; JAX under default_matmul_precision('float32'), "
                 "XLA_PYTHON_CLIENT_PREALLOCATE=false"),
              "(c): JAX's peak was set while compiling (autotuning), not by "
              "the calls" if not args.vmapc_only else ""]
    text = "\n".join(h for h in header if h) + "\n\n" + \
        table(rows, args, copy, l2)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": when, "device": args.device, "copy": copy_info,
                       "rows": [{"program": r.prog.name, "n": r.n,
                                 "traffic_bytes": r.traffic, "vmapc": r.vmapc,
                                 "jax": r.jax, "errors": r.errors,
                                 "check": r.check} for r in rows]},
                      f, indent=1)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", required=True,
                    help="the vmapc-gpu-bench binary")
    ap.add_argument("--artifacts",
                    default=os.path.join(REPO_ROOT, "build", "gpu-artifacts"))
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--programs", default="",
                    help="comma-separated names (default: all)")
    ap.add_argument("--large-n", type=int, default=DEFAULT_LARGE_N)
    ap.add_argument("--no-large", action="store_true")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--copy-bytes", type=int, default=COPY_BYTES)
    ap.add_argument("--copy-json", help="the host's --copy-bytes JSON, "
                    "measured already (test/gpu/check.sh)")
    ap.add_argument("--vmapc-only", action="store_true")
    ap.add_argument("--json", help="write all figures here")
    ap.add_argument("--markdown", help="write the table here too")
    ap.add_argument("--work", help="folder for the .npy files "
                    "(default: a temporary one)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the .npy files")
    args = ap.parse_args()
    if args.runs < 20 and args.device.startswith("cuda"):
        log(f"note: --runs {args.runs}: the table's method wants >= 20")

    # Every row with one output and inputs at any N (programs.py's
    # gpu_bench: not the DP-SGD step, three outputs of one 256-digit batch).
    progs = [p for p in P.PROGRAMS if p.gpu_bench]
    if args.programs:
        progs = [P.by_name(n) for n in args.programs.split(",")]

    on_gpu = not args.device.startswith("cpu")
    copy_info = None
    if on_gpu:
        if args.copy_json:
            with open(args.copy_json) as f:
                copy_info = json.load(f)
            if "copy" not in copy_info:
                sys.exit(f"gpu_bench.py: {args.copy_json} holds no copy "
                         f"bandwidth: {copy_info}")
        else:
            rc, copy_info, err = run_json(
                [args.host, "--copy-bytes", str(args.copy_bytes),
                 "--device", args.device])
            if rc != 0:
                sys.exit(f"gpu_bench.py: copy bandwidth failed ({rc}): {err}")
    # Rows grouped by .arr file (one JAX process and one set of inputs per
    # N each), in the order of programs.py.
    groups = {}
    for p in progs:
        groups.setdefault(P.arr_path(p), []).append(p)
    work = args.work or tempfile.mkdtemp(prefix="vmapc-gpu-bench-")
    os.makedirs(work, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    rows = []
    try:
        for group in groups.values():
            rows += bench_group(group, args, work)
            # After each program, so that a run stopped by a timeout still
            # leaves the rows done so far.
            write_reports(rows, args, copy_info, started)
    finally:
        if not args.work and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(write_reports(rows, args, copy_info, started))
    bad = any(r.errors or any(not ok for _, ok, _ in r.check) for r in rows)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
