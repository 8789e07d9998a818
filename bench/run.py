#!/usr/bin/env python3
"""vmapc against numpy and jax.jit(jax.vmap(f)), side by side in one run.

    python3 bench/run.py [--build-dir build] [--programs a,b,...] [--runs 20]
                         [--rounds 2] [--budget 5] [--no-jax]
                         [--write-results [--label TEXT]] [--keep]
    python3 bench/run.py --smoke [--bin-dir DIR] [--work-dir DIR]

For every program of bench/programs.py (the .arr files of bench/programs/ and
examples/knn_digits.arr) it compiles the program and its batch=1 twin with
`vmapc compile` (timed), writes one set of inputs as .npy, and times, with
the variants interleaved round by round:

  default threads   vmapc (build/bin/vmapc-bench --device cpu), vmapc py
                    (the same artifact called from Python through the vmapc
                    package, python/), vmapc B=1, numpy's best form,
                    jax.jit(jax.vmap(f)) on the CPU;
  one thread        vmapc --device cpu:threads=1, numpy with
                    OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=OMP_NUM_THREADS=1,
                    JAX with its process bound to one CPU (see README.md).

Every variant's outputs are checked against a float64 (kNN: exact int64)
reference; a row whose outputs differ says WRONG. Markdown tables go to
stdout, progress to stderr. bench/README.md explains the columns and the
method; nothing here asserts a time.
"""

import argparse
import datetime
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs as P  # noqa: E402

REPO_ROOT = P.REPO_ROOT
ISA_LEVELS = ("x86-64", "x86-64-v3", "x86-64-v4")
JAX_ONE_CPU_FLAGS = "--xla_cpu_multi_thread_eigen=false"
ONE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                  "OMP_NUM_THREADS": "1"}

# (key, label, table): the columns, in table order.
VARIANTS = [
    ("vmapc", "vmapc", "default"),
    ("vmapc_py", "vmapc py", "default"),
    ("vmapc_b1", "vmapc B=1", "default"),
    ("numpy", "numpy", "default"),
    ("jax", "jax", "default"),
    ("vmapc_1t", "vmapc 1t", "one"),
    ("numpy_1t", "numpy 1t", "one"),
    ("jax_1t", "jax 1 CPU", "one"),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


# ----------------------------------------------------------------------------
# Tools and the batch=1 twins.

BATCH_RE = re.compile(r"\bbatch\s*=\s*(\d+)")


def export_batch(arr_text, path):
    """B of the file's one `batch=B`; an error for none or several."""
    found = BATCH_RE.findall(arr_text)
    if len(found) != 1:
        sys.exit(f"{path}: expected exactly one 'batch=B' in the export, "
                 f"found {len(found)}")
    return int(found[0])


def write_b1_twin(arr, out_path):
    """The same program exported with batch=1 (the one textual change)."""
    with open(arr) as f:
        text = f.read()
    export_batch(text, arr)
    with open(out_path, "w") as f:
        f.write(BATCH_RE.sub("batch=1", text))


def run_quiet(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


class Tools:
    def __init__(self, bin_dir):
        self.vmapc = os.path.join(bin_dir, "vmapc")
        self.bench_path = os.path.join(bin_dir, "vmapc-bench")
        for t in (self.vmapc, self.bench_path):
            if not os.access(t, os.X_OK):
                sys.exit(f"{t}: not built; run: ninja -C build -j2 vmapc "
                         "vmapc-bench")
        help_text = run_quiet([self.vmapc, "compile", "--help"]).stdout
        self.has_cpu_isa = "cpu-isa" in help_text
        self.has_timing = "mlir-output-format" in help_text

    def compile(self, arr, out, extra=()):
        t0 = time.perf_counter()
        r = run_quiet([self.vmapc, "compile", arr, "-o", out, *extra])
        t = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"vmapc compile {arr} failed:\n{r.stderr}")
        return t

    def compile_report(self, arr, out, extra=()):
        """`vmapc compile` with `--mlir-timing --mlir-output-format=json`:
        the timing report (a list of {name, user, wall, passes} records,
        MLIR's JSON output strategy) and the compile's wall clock."""
        t0 = time.perf_counter()
        r = run_quiet([self.vmapc, "compile", arr, "-o", out, *extra,
                       "--mlir-timing", "--mlir-output-format=json"])
        t = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit(f"vmapc compile {arr} failed:\n{r.stderr}")
        start = r.stderr.find("[")
        return json.loads(r.stderr[start:]), t

    def plan(self, arr, out):
        """`vmapc plan ARR --json OUT`: the plan report of each entry (a
        list of JSON objects, report/PlanReport.h)."""
        r = run_quiet([self.vmapc, "plan", arr, "--json", out])
        if r.returncode != 0:
            sys.exit(f"vmapc plan {arr} failed:\n{r.stderr}")
        with open(out) as f:
            return json.load(f)

    def bench(self, args):
        """Runs vmapc-bench; returns (rc, json or None, stderr)."""
        r = run_quiet([self.bench_path, *args])
        data = None
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
        if lines:
            data = json.loads(lines[-1])
        return r.returncode, data, r.stderr.strip()


def compile_all(tools, progs, work):
    """Compiles each distinct .arr and its batch=1 twin once (the artifacts
    the rows run; their compile times are measured later, by
    time_compiles). Returns {arr path: info}."""
    done = {}
    for p in progs:
        arr = P.arr_path(p)
        if arr in done:
            continue
        base = os.path.splitext(os.path.basename(arr))[0]
        with open(arr) as f:
            batch = export_batch(f.read(), arr)
        art = os.path.join(work, base + ".vmapc")
        twin = os.path.join(work, base + "_b1.arr")
        twin_art = os.path.join(work, base + "_b1.vmapc")
        write_b1_twin(arr, twin)
        log(f"compile {os.path.relpath(arr, REPO_ROOT)} and its batch=1 twin")
        tools.compile(arr, art)
        tools.compile(twin, twin_art)
        done[arr] = {"arr": arr, "base": base, "batch": batch,
                     "artifact": art, "twin": twin, "twin_artifact": twin_art,
                     "artifact_bytes": os.path.getsize(art), "per_isa": {},
                     "plan": tools.plan(arr, os.path.join(work, base + ".plan.json"))}
    return done


def host_isa():
    """The ISA level whose code the runtime runs on this CPU: the vmapc
    package's host_cpu_isa() where it is installed, else the x86-64 levels'
    defining flags in /proc/cpuinfo (v3: AVX2, BMI1/2, FMA, F16C, LZCNT,
    MOVBE; v4: AVX-512 F, BW, CD, DQ, VL)."""
    try:
        import vmapc

        return vmapc.host_cpu_isa()
    except Exception:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^flags\s*:(.*)$", f.read(), re.M)
        flags = set(m.group(1).split()) if m else set()
    except OSError:
        return None
    if {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= flags:
        return "x86-64-v4"
    if {"avx2", "bmi1", "bmi2", "fma", "f16c", "abm", "movbe"} <= flags:
        return "x86-64-v3"
    return "x86-64"


# The phases of a compile in `vmapc compile --mlir-timing`'s report: the
# top-level timers, and those of each ISA level (codegen/Compile.h).
PARSE_TIMERS = ("Parse .arr", "Plan (arr to planned buffers)")
LLVM_TIMERS = {"Translate to LLVM IR": "translate", "LLVM optimization": "opt",
               "LLVM code generation": "codegen", "Link (ld)": "link"}


def timing_breakdown(report, process_s):
    """Seconds by phase from one `--mlir-timing --mlir-output-format=json`
    report of a compile that took `process_s` of wall clock: "outside" (the
    process around the report: exec, the dynamic loader, static
    constructors, exit), "parse_plan" and "cpu" (wall), and
    CPU-seconds over every compile thread of each level's MLIR half (with
    what else runs under the level's timer), LLVM's translation,
    optimization and code generation, and the link."""
    top = {r["name"]: r for r in report if r.get("name")}
    wall = lambda r: r["wall"]["duration"]
    user = lambda r: r["user"]["duration"]
    out = {"process": process_s, "outside": process_s - wall(top["Total"]),
           "parse_plan": sum(wall(top[n]) for n in PARSE_TIMERS if n in top),
           "cpu": wall(top["CPU code objects"]), "mlir": 0.0}
    out.update({key: 0.0 for key in LLVM_TIMERS.values()})
    for level in top["CPU code objects"].get("passes", []):
        if not level.get("name"):
            continue
        llvm = 0.0
        for child in level.get("passes", []):
            key = LLVM_TIMERS.get(child.get("name"))
            if key:
                out[key] += user(child)
                llvm += user(child)
        out["mlir"] += user(level) - llvm
    return out


def time_compiles(tools, comp, jax_worker, runs, work, vmapc_worker=None,
                  host=None):
    """Compile times of one program, side by side in `runs` interleaved
    rounds (forward, then backward): `vmapc compile` with all three ISA
    levels, each level alone (--cpu-isa), the batch=1 twin (all levels),
    the host's level in-process (vmapc.compile in `vmapc_worker`, when
    given), and JAX's jit(vmap(f)).lower(...).compile() at batch B, fresh
    each time, in the default JAX worker (which has the row's program
    loaded). Medians go into `comp`."""
    arr, twin, base = comp["arr"], comp["twin"], comp["base"]
    tmp = os.path.join(work, base + "_ctime.vmapc")
    steps = [("all", lambda: tools.compile(arr, tmp))]
    if tools.has_cpu_isa:
        steps += [(lvl, lambda lvl=lvl: tools.compile(
            arr, tmp, [f"--cpu-isa={lvl}"])) for lvl in ISA_LEVELS]
    steps.append(("b1", lambda: tools.compile(twin, tmp)))
    inproc_error = None
    if vmapc_worker is not None and host and "skipped" not in \
            vmapc_worker.info:
        def inproc_step():
            reply = vmapc_worker.ask({"op": "compile_time", "arr": arr,
                                      "cpu_isa": host})
            if "compile_s" not in reply:
                raise RuntimeError(reply.get("error") or reply.get("skipped"))
            return reply["compile_s"]
        steps.append(("inproc", inproc_step))
    jax_error = None
    if jax_worker is not None:
        def jax_step():
            reply = jax_worker.ask({"op": "compile_time",
                                    "batch": comp["batch"]})
            if "compile_s" not in reply:
                raise RuntimeError(reply.get("error") or reply.get("skipped"))
            return reply["compile_s"]
        steps.append(("jax", jax_step))
    times = {key: [] for key, _ in steps}
    log(f"   compile times of {os.path.relpath(arr, REPO_ROOT)}: {runs} "
        "interleaved rounds")
    for rnd in range(runs):
        for key, step in (steps if rnd % 2 == 0 else steps[::-1]):
            if (key == "jax" and jax_error) or (key == "inproc" and
                                                inproc_error):
                continue
            try:
                times[key].append(step())
            except RuntimeError as e:
                if key == "jax":
                    jax_error = f"JAX compile failed: {e}"
                elif key == "inproc":
                    inproc_error = f"vmapc.compile failed: {e}"
                else:
                    raise
    if os.path.exists(tmp):
        os.remove(tmp)
    comp["compile_times"] = times
    comp["compile_s"] = median(times["all"])
    comp["twin_compile_s"] = median(times["b1"])
    comp["per_isa"] = {lvl: median(times[lvl]) for lvl in ISA_LEVELS
                       if times.get(lvl)}
    comp["inproc_compile_s"] = (median(times["inproc"])
                                if times.get("inproc") else None)
    comp["inproc_compile_note"] = inproc_error
    comp["jax_compile_s"] = median(times["jax"]) if times.get("jax") else None
    comp["jax_compile_note"] = jax_error
    # Where the host level's time goes: `runs` more compiles with the
    # timing report (not among the rounds above, whose figures it would
    # perturb), the median of each phase.
    if host and tools.has_cpu_isa and tools.has_timing:
        phases = [timing_breakdown(*tools.compile_report(
            arr, tmp, [f"--cpu-isa={host}"])) for _ in range(runs)]
        comp["host_phases"] = {key: median([p[key] for p in phases])
                               for key in phases[0]}
        if os.path.exists(tmp):
            os.remove(tmp)


# ----------------------------------------------------------------------------
# numpy / JAX worker processes (bench/worker.py).


class WorkerProc:
    def __init__(self, kind, env_extra, cpu=None):
        env = dict(os.environ)
        env.update(env_extra)
        env.setdefault("JAX_PLATFORMS", "cpu")
        preexec = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "worker.py"), kind],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            preexec_fn=preexec)
        self.info = self.ask({"op": "hello"})

    def ask(self, req):
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return {"error": "the worker process exited"}
        line = self.proc.stdout.readline()
        if not line:
            return {"error": "the worker process exited"}
        return json.loads(line)

    def close(self):
        try:
            self.ask({"op": "quit"})
        except (BrokenPipeError, OSError, ValueError):
            pass
        self.proc.wait(timeout=30)


def start_workers(use_jax):
    """The four library variants' processes. JAX on one CPU: the process's
    affinity set to its first allowed CPU (what `taskset -c CPU` does) --
    XLA sizes its thread pools from the affinity mask; --xla_cpu_multi_
    thread_eigen=false alone still leaves several busy threads."""
    first_cpu = min(os.sched_getaffinity(0))
    workers = {
        "vmapc_py": WorkerProc("vmapc", {}),
        "numpy": WorkerProc("numpy", {}),
        "numpy_1t": WorkerProc("numpy", ONE_THREAD_ENV),
    }
    if use_jax:
        workers["jax"] = WorkerProc("jax", {})
        workers["jax_1t"] = WorkerProc("jax", {"XLA_FLAGS": JAX_ONE_CPU_FLAGS},
                                       cpu=first_cpu)
    return workers


# ----------------------------------------------------------------------------
# One row: inputs, interleaved timing, checks.


class Result:
    """A variant's measurements pooled over rounds."""

    def __init__(self):
        self.times = []
        self.na = None  # reason it has no figure
        self.error = None
        self.done = False
        self.capped = False
        self.cpu = 0.0
        self.ticks = []  # per-thread CPU ticks, largest first, pooled
        self.threads = 0  # most threads the process had
        self.memcpy = []  # per-round {"one_thread":..., "all_threads":...}
        self.json = None  # last vmapc-bench JSON
        self.check = None  # (ok, text)

    @property
    def median(self):
        return median(self.times) if self.times else None

    def add(self, reply):
        self.times += reply["times_s"]
        self.cpu += reply.get("cpu_s", 0)
        self.capped = self.capped or reply.get("capped", False)
        t = reply.get("thread_ticks") or []
        self.ticks = [a + b for a, b in zip(self.ticks + [0] * len(t),
                                            t + [0] * len(self.ticks))]
        self.threads = max(self.threads, reply.get("threads", 0))
        if "memcpy" in reply:
            self.memcpy.append(reply["memcpy"])

    @property
    def busy(self):
        """Threads with >= 10% of the CPU ticks of the timed calls (pooled
        over rounds, the i-th busiest with the i-th busiest); None under 20
        ticks (0.2 s at 100 ticks/s): too few to tell."""
        total = sum(self.ticks)
        if total < 20:
            return None
        return sum(1 for d in self.ticks if d * 10 >= total)

    @property
    def cpu_per_wall(self):
        wall = sum(self.times)
        return self.cpu / wall if wall else None

    def memcpy_gbps(self, which):
        vals = [m[which]["median_gbps"] for m in self.memcpy]
        return median(vals) if vals else None


def check_output(prog, path, ref):
    """(ok, text): exact for the kNN and integer outputs (the histogram),
    FLOAT_TOLERANCE * max|ref| otherwise."""
    import numpy as np

    try:
        out = np.load(path)
    except (OSError, ValueError) as e:
        return False, f"unreadable output: {e}"
    if out.shape != ref.shape:
        return False, f"shape {list(out.shape)}, expected {list(ref.shape)}"
    if prog.kind == "knn" or ref.dtype.kind in "iu":
        bad = int((out.astype(np.int64) != ref.astype(np.int64)).sum())
        return bad == 0, ("exact" if bad == 0 else f"{bad} of {ref.size} differ")
    out = out.astype(np.float64)
    if not np.isfinite(out).all():
        return False, f"{int((~np.isfinite(out)).sum())} non-finite"
    scale = float(np.abs(ref).max()) or 1.0
    err = float(np.abs(out - ref).max()) / scale
    return err <= P.FLOAT_TOLERANCE, f"{err:.1e}"


def check_outputs(prog, paths, refs):
    """(ok, text) over every output: each checked as check_output does; the
    text names the outputs when there are several ("0: 2.1e-07, 1: ...")."""
    results = [check_output(prog, path, ref) for path, ref in zip(paths, refs)]
    ok = all(r[0] for r in results)
    if len(results) == 1:
        return results[0]
    return ok, ", ".join(f"{i}: {text}" for i, (_, text) in enumerate(results))


def run_row(prog, comp, tools, workers, args, work):
    import numpy as np

    log(f"== {prog.title}: N = {prog.n}")
    row_dir = os.path.join(work, prog.name)
    os.makedirs(row_dir, exist_ok=True)
    rng = np.random.default_rng(20261201)
    xs = prog.inputs(rng, prog.n)
    in_paths = []
    for i, x in enumerate(xs):
        path = os.path.join(row_dir, f"in{i}.npy")
        np.save(path, x)
        in_paths.append(path)
    refs = prog.reference(xs)
    # The outputs as vmapc writes them (f32 / i32: 4 bytes), for the bytes
    # a memory row moves; broadcast views, nothing allocated.
    outs_like = [np.broadcast_to(np.float32(0), r.shape) for r in refs]
    traffic = prog.traffic_bytes(xs, outs_like)

    results = {key: Result() for key, _, _ in VARIANTS}
    for key, w in workers.items():
        reply = w.ask({"op": "load", "program": prog.name, "inputs": in_paths,
                       "artifact": comp["artifact"]})
        if "skipped" in reply:
            results[key].na = reply["skipped"]
        elif "error" in reply:
            results[key].error = reply["error"]
    for key in ("jax", "jax_1t"):
        if key not in workers:
            results[key].na = "JAX not used (--no-jax or not installed)"

    memcpy_args = []
    if prog.kind == "memory":
        memcpy_args = ["--memcpy-bytes", str(traffic // 2),
                       "--memcpy-repeats", "10"]

    def measure(key, runs, budget, outputs):
        r = results[key]
        if key.startswith("vmapc") and key != "vmapc_py":
            art = comp["twin_artifact"] if key == "vmapc_b1" else comp["artifact"]
            device = "cpu:threads=1" if key == "vmapc_1t" else "cpu"
            a = [art, "--device", device, "--runs", str(runs), "--warmup",
                 str(args.warmup), "--warmup-seconds",
                 f"{args.warmup_seconds:.3f}", "--max-seconds",
                 f"{budget:.3f}", "--min-runs", "1"]
            for path in in_paths:
                a += ["--input", path]
            for path in outputs or []:
                a += ["--output", path]
            if key != "vmapc_b1":
                a += memcpy_args
            rc, data, err = tools.bench(a)
            if rc == 2:
                r.na = f"device '{device}' refused: " + (
                    data or {}).get("device_refused", err)
                return
            if rc != 0 or data is None:
                r.error = f"vmapc-bench exited {rc}: {err}"
                return
            r.json = data
            r.add(data)
        else:
            reply = workers[key].ask({
                "op": "time", "runs": runs, "warmup": args.warmup,
                "warmup_seconds": args.warmup_seconds,
                "max_seconds": budget, "min_runs": 1, "outputs": outputs})
            if "error" in reply:
                r.error = reply["error"]
                return
            if "skipped" in reply:
                r.na = reply["skipped"]
                return
            r.add(reply)
        if r.capped:
            r.done = True  # its budget is spent: no further rounds

    # ABBA: forward on even rounds, backward on odd ones, so that a drift of
    # the machine's load over the row weighs on every variant alike.
    keys = [k for k, _, _ in VARIANTS]
    for rnd in range(args.rounds):
        order = keys if rnd % 2 == 0 else keys[::-1]
        for key in order:
            r = results[key]
            if r.na or r.error or r.done:
                continue
            left = args.rounds - rnd
            runs = max(1, math.ceil((args.runs - len(r.times)) / left))
            if len(r.times) >= args.runs:
                continue
            outputs = [os.path.join(row_dir, f"out_{key}_{i}.npy")
                       for i in range(len(refs))] if rnd == 0 else None
            measure(key, runs, args.budget / args.rounds, outputs)
            if rnd == 0 and not (r.na or r.error):
                r.check = check_outputs(prog, outputs, refs)
        log("   round %d: %s" % (rnd + 1, ", ".join(
            f"{k} {results[k].median:.4g}s x{len(results[k].times)}" for k in keys
            if results[k].times)))

    # Today's runtime refuses "cpu:threads=1" but runs on one thread: then
    # the default measurement is the one-thread figure (marked).
    one, dflt = results["vmapc_1t"], results["vmapc"]
    one_note = None
    if one.na and dflt.times and (dflt.threads == 1 or dflt.busy == 1):
        one_note = one.na
        results["vmapc_1t"] = dflt

    memory = None
    jax_ok = "jax" in workers and not results["jax"].na \
        and not results["jax"].error
    if jax_ok:
        memory = workers["jax"].ask({"op": "memory", "batch": comp["batch"]})
    if "compile_s" not in comp:
        time_compiles(tools, comp, workers["jax"] if jax_ok else None,
                      args.compile_runs, work, workers.get("vmapc_py"),
                      args.host_isa)
    if not args.keep:
        shutil.rmtree(row_dir, ignore_errors=True)
    return {"program": prog, "results": results, "traffic": traffic,
            "memory": memory, "comp": comp, "vmapc_1t_note": one_note}


# ----------------------------------------------------------------------------
# What a call through Python costs over one through the C++ host.

TINY_ARR = """fn twice(x: f32[4]) -> f32[4] {
  return x * 2.0;
}
export twice_batch = vmap(twice, batch=8);
"""


def python_overhead(tools, work, comps, runs, rounds):
    """Per-call time of one example (N = 1) through vmapc-bench (the runtime
    from C++) and through the Python package (the same artifact, vmapc.load,
    outputs passed with out=), interleaved over `rounds` rounds of `runs`
    calls each, on a 4-float program whose kernel takes nanoseconds and on
    the kNN (two inputs, one a shared 1000 x 64 array). Returns the markdown
    section, or None when the package is not installed."""
    import numpy as np

    os.makedirs(work, exist_ok=True)
    tiny = os.path.join(work, "twice.arr")
    with open(tiny, "w") as f:
        f.write(TINY_ARR)
    tiny_art = os.path.join(work, "twice.vmapc")
    tools.compile(tiny, tiny_art)
    cases = [("4-float elementwise (twice.arr)", "tiny", tiny_art,
              [np.linspace(-1, 1, 4, dtype=np.float32)[None, :]])]
    knn = P.by_name("knn_digits")
    if P.arr_path(knn) in comps:
        cases.append(("kNN digits", knn.name,
                      comps[P.arr_path(knn)]["artifact"],
                      knn.inputs(np.random.default_rng(1), 1)))
    worker = WorkerProc("vmapc", {})
    if "skipped" in worker.info:
        worker.close()
        log(f"python overhead: {worker.info['skipped']}")
        return None
    body = []
    try:
        for title, name, art, xs in cases:
            paths = []
            for i, x in enumerate(xs):
                paths.append(os.path.join(work, f"overhead_{name}_in{i}.npy"))
                np.save(paths[-1], x)
            reply = worker.ask({"op": "load", "program": "knn_digits",
                                "inputs": paths, "artifact": art})
            if "error" in reply:
                sys.exit(f"python overhead: {reply['error']}")
            c_times, py_times = [], []
            for rnd in range(rounds):
                for which in (("c", "py") if rnd % 2 == 0 else ("py", "c")):
                    if which == "c":
                        a = [art, "--runs", str(runs), "--warmup", "100"]
                        for path in paths:
                            a += ["--input", path]
                        rc, data, err = tools.bench(a)
                        if rc != 0 or not data:
                            sys.exit(f"python overhead: vmapc-bench: {err}")
                        c_times += data["times_s"]
                    else:
                        r = worker.ask({"op": "time", "runs": runs,
                                        "warmup": 100})
                        if "error" in r:
                            sys.exit(f"python overhead: {r['error']}")
                        py_times += r["times_s"]
            c, py = median(c_times), median(py_times)
            over = py - c
            body.append([title, 1, f"{c * 1e6:.2f} µs", f"{py * 1e6:.2f} µs",
                         f"{over * 1e6:+.2f} µs",
                         "met" if over < 5e-6 else
                         f"missed by {(over - 5e-6) * 1e6:.2f} µs"])
            log(f"   python overhead, {title}: C {c * 1e6:.2f} µs, Python "
                f"{py * 1e6:.2f} µs")
    finally:
        worker.close()
    return ("### Python call overhead: one call of N = 1 through the vmapc "
            "package against the C++ host (vmapc-bench)\n\n" +
            md_table(["program", "N", "C++ host per call",
                      "Python per call", "overhead", "goal (< 5 µs)"], body) +
            f"\n\nMedians of {rounds} x {runs} calls each, interleaved "
            "(C++, Python, Python, C++, ...), after 100 warm-up calls; "
            "default device; the Python call passes numpy inputs by pointer "
            "and its outputs with out=, as vmapc-bench does, so the "
            "difference is the binding: argument checks, the GIL released "
            "and taken back, the module's lock.")


# ----------------------------------------------------------------------------
# Resident memory across many calls of varying N (issue 18, point 6).

RSS_CALLS = 10000
RSS_PROGRAM = "softmax_1000"
RSS_FLAT_BYTES = 1 << 20


def rss_check(tools, work, comps, calls=RSS_CALLS):
    """VmRSS of a fresh process (bench/worker.py rss) before and after
    `calls` calls of the softmax row's artifact through the Python package,
    N = i % (4B + 1). Returns the markdown section, or None when the
    package is not installed."""
    prog = P.by_name(RSS_PROGRAM)
    arr = P.arr_path(prog)
    if arr not in comps:
        comps = dict(comps)
        comps.update(compile_all(tools, [prog], work))
    comp = comps[arr]
    log(f"resident memory: {calls} calls of {prog.name}")
    r = run_quiet([sys.executable, os.path.join(HERE, "worker.py"), "rss",
                   comp["artifact"], str(comp["batch"]), str(calls)])
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        if "import vmapc" in r.stderr or "No module named 'vmapc'" in r.stderr:
            log("resident memory: the vmapc package is not installed")
            return None
        sys.exit(f"resident memory check failed (exit {r.returncode}):\n"
                 f"{r.stderr}")
    d = json.loads(lines[-1])
    before, after = d["rss_before_kib"] * 1024, d["rss_after_kib"] * 1024
    growth = after - before
    sb, sa = d["stats_before"], d["stats_after"]
    goal = ("met" if growth <= RSS_FLAT_BYTES and d["last_output_ok"] else
            "missed" + ("" if d["last_output_ok"] else " (wrong output)"))
    row = [prog.title, d["batch"], f"0..{d['max_n']}", d["calls"],
           f"{before / 2**20:.1f} MiB", f"{after / 2**20:.1f} MiB",
           f"{growth / 1024:+.0f} KiB", f"{growth / d['calls']:+.1f} B",
           f"{sb['allocations']} -> {sa['allocations']}",
           f"{d['wall_s']:.1f} s", goal]
    return ("### Resident memory: 10^4 calls with N varying from 0 to 4B "
            "through the Python package\n\n" +
            md_table(["program", "B", "N", "calls", "VmRSS before",
                      "VmRSS after", "growth", "per call",
                      "runtime allocations", "calls took", "goal (flat)"],
                     [row]) +
            "\n\nA fresh process (`bench/worker.py rss`) loads the artifact "
            "with `vmapc.load`, allocates one input of 4B examples and its "
            "output once, makes one call of 4B examples (the arena and the "
            "thread pool exist from then on: \"before\"), then "
            f"{d['calls']} calls with N = i % (4B + 1), each on the first N "
            "rows (views, passed with out=), and reads VmRSS from "
            "/proc/self/status again (\"after\"). runtime allocations: the "
            "module's `stats['allocations']` before and after. goal: growth "
            f"under {RSS_FLAT_BYTES // 1024} KiB (about 100 bytes a call) "
            f"and the last call's rows summing to 1. The process held "
            f"{d['rss_start_kib'] / 1024:.1f} MiB after its imports.")


# ----------------------------------------------------------------------------
# The machine: FMA peak, what else runs.


def fma_peak(tools):
    rc, data, err = tools.bench(["--fma-peak"])
    if rc != 0 or not data:
        sys.exit(f"vmapc-bench --fma-peak failed: {err}")
    return data["fma"]


def machine_facts():
    facts = {"date": datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")}
    lscpu = run_quiet(["lscpu"]).stdout if shutil.which("lscpu") else ""
    for key, label in (("Model name", "model"), ("CPU(s)", "cpus"),
                       ("Thread(s) per core", "threads_per_core"),
                       ("Core(s) per socket", "cores_per_socket"),
                       ("Socket(s)", "sockets"), ("L2 cache", "l2"),
                       ("L3 cache", "l3")):
        m = re.search(rf"^{re.escape(key)}:\s*(.+)$", lscpu, re.M)
        facts[label] = m.group(1).strip() if m else "?"
    facts["affinity_cpus"] = len(os.sched_getaffinity(0))
    git = run_quiet(["git", "-C", REPO_ROOT, "describe", "--always", "--dirty"])
    facts["commit"] = git.stdout.strip() or "?"
    return facts


def what_else_runs():
    """`uptime` and the three busiest processes other than this run's."""
    uptime = run_quiet(["uptime"]).stdout.strip() if shutil.which("uptime") else ""
    mine = {os.getpid()}
    top = []
    if shutil.which("top"):
        text = run_quiet(["top", "-b", "-n", "2", "-d", "1", "-o", "%CPU",
                          "-w", "200"]).stdout
        blocks = text.split("\ntop - ")
        lines = blocks[-1].splitlines()
        start = next((i for i, ln in enumerate(lines) if ln.strip().startswith("PID")), None)
        for ln in lines[start + 1:] if start is not None else []:
            f = ln.split(None, 11)
            if len(f) < 12 or not f[0].isdigit() or int(f[0]) in mine:
                continue
            if f[11].strip() == "top":
                continue
            top.append(f"{f[11].strip()} {f[8]}%")
            if len(top) == 3:
                break
    return {"uptime": uptime, "top3": top}


# ----------------------------------------------------------------------------
# Tables.


def fmt_s(r, want_runs):
    if r.error:
        return "ERROR"
    if r.na or not r.times:
        return "n/a"
    s = f"{r.median:.4g}"
    if len(r.times) < want_runs:
        s += f" ({len(r.times)})"
    return s


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(x):
    return "n/a" if x is None else f"{x:.3g}"


def pct(x):
    return "n/a" if x is None else f"{100 * x:.3g}%"


def rate_fraction(row, key, peaks):
    """% FMA peak (arithmetic rows) or fraction of memcpy (memory rows)."""
    prog, r = row["program"], row["results"][key]
    if not r.times:
        return None
    t = r.median
    one = key.endswith("_1t")
    if prog.kind == "memory":
        # Both memcpy rates come from the default vmapc-bench process.
        gbps = row["results"]["vmapc"].memcpy_gbps(
            "one_thread" if one else "all_threads")
        if gbps is None:
            return None
        return row["traffic"] / t / 1e9 / gbps
    if prog.flops is None:
        return None
    peak = peaks["one_thread" if one else "all_threads"]
    return prog.flops(prog.n) / t / 1e9 / peak


def goal_text(row, table):
    """The row's goal (bench/README.md), met or by how much it is missed."""
    prog, res = row["program"], row["results"]
    v = res["vmapc_1t" if table == "one" else "vmapc"].median
    np_t = res["numpy_1t" if table == "one" else "numpy"].median
    jx_t = res["jax_1t" if table == "one" else "jax"].median
    if v is None:
        return "n/a"
    parts = []  # (ratio, bound, label)
    if prog.goals:
        for against, bound in prog.goals:
            if against == "memcpy":
                frac = rate_fraction(
                    row, "vmapc_1t" if table == "one" else "vmapc",
                    row["peaks"])
                if frac is not None:
                    parts.append((bound / frac, 1.0, "memcpy"))
            else:
                parts.append((ratio(v, {"numpy": np_t, "jax": jx_t}[against]),
                              bound, against))
    elif prog.kind == "knn":
        parts = [(ratio(v, np_t), 0.5, "numpy"), (ratio(v, jx_t), 0.25, "jax")]
    elif prog.kind == "contraction":
        best = min([t for t in (np_t, jx_t) if t is not None], default=None)
        parts = [(ratio(v, best), 1.2, "best")]
    else:
        parts = [(ratio(v, np_t), 0.8, "numpy"), (ratio(v, jx_t), 0.8, "jax")]
    if prog.name == "chain_4096_n8192":
        frac = rate_fraction(row, "vmapc_1t" if table == "one" else "vmapc",
                             row["peaks"])
        if frac is not None:
            parts.append((0.6 / frac, 1.0, "memcpy"))
    missing = [f"{label} x{r / bound:.3g}" for r, bound, label in parts
               if r is not None and r > bound]
    known = [p for p in parts if p[0] is not None]
    if not known:
        return "n/a"
    return "met" if not missing else "missed: " + ", ".join(missing)


def goal_legend():
    return ("Times: median seconds of one call over all N examples (in "
            "parentheses: the number of timed calls when under --runs). "
            "Ratios: vmapc's time / that column's time (below 1: vmapc is "
            "faster). check: every output against the float64 reference "
            f"(max error / max|reference| <= {P.FLOAT_TOLERANCE:g}; kNN: "
            "indices equal to the exact int64 1-NN). "
            "goal: kNN <= 0.5x numpy and <= 0.25x JAX; MLPs, attention <= 1.2x "
            "the faster of numpy and JAX; embedding lookup, histogram, DP-SGD "
            "<= 1.0x JAX; the rest <= 0.8x numpy and <= 0.8x JAX; chain "
            "N=8192 and embedding lookup >= 60% of memcpy, the linear-model "
            "gradient >= 70% of memcpy. "
            "\"missed: numpy x3.2\" = "
            "vmapc's time must shrink 3.2x to meet the bound against numpy.")


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def check_cell(row, keys):
    res = row["results"]
    bad = [k for k in keys if res[k].check and not res[k].check[0]]
    errs = [k for k in keys if res[k].error]
    if bad:
        return "WRONG: " + ", ".join(f"{k} ({res[k].check[1]})" for k in bad)
    if errs:
        return "ERROR: " + ", ".join(errs)
    return "ok"


def tables(rows, comps, peaks, args):
    out = []
    want = args.runs
    out.append("### Default threads\n")
    hdr = ["program", "N", "vmapc s", "vmapc py s", "vmapc B=1 s", "numpy s",
           "jax s", "py - C per call", "vmapc/B=1", "vmapc/numpy",
           "vmapc/jax", "check", "goal"]
    body = []
    for row in rows:
        p, res = row["program"], row["results"]
        v = res["vmapc"].median
        py = res["vmapc_py"].median
        body.append([p.title, p.n] + [fmt_s(res[k], want) for k in
                                      ("vmapc", "vmapc_py", "vmapc_b1",
                                       "numpy", "jax")] +
                    [f"{(py - v) * 1e6:+.1f} µs" if py and v else "n/a"] +
                    [fmt_ratio(ratio(v, res[k].median)) for k in
                     ("vmapc_b1", "numpy", "jax")] +
                    [check_cell(row, ["vmapc", "vmapc_py", "vmapc_b1", "numpy",
                                      "jax"]),
                     goal_text(row, "default")])
    out.append(md_table(hdr, body))
    out.append("\n### One thread\n")
    hdr = ["program", "N", "vmapc 1t s", "numpy 1t s", "jax 1 CPU s",
           "vmapc/numpy", "vmapc/jax", "check", "goal"]
    body = []
    for row in rows:
        p, res = row["program"], row["results"]
        v = res["vmapc_1t"].median
        cell = fmt_s(res["vmapc_1t"], want)
        if row["vmapc_1t_note"] and res["vmapc_1t"].times:
            cell += " †"
        body.append([p.title, p.n, cell, fmt_s(res["numpy_1t"], want),
                     fmt_s(res["jax_1t"], want),
                     fmt_ratio(ratio(v, res["numpy_1t"].median)),
                     fmt_ratio(ratio(v, res["jax_1t"].median)),
                     check_cell(row, ["vmapc_1t", "numpy_1t", "jax_1t"]),
                     goal_text(row, "one")])
    out.append(md_table(hdr, body))
    notes = sorted({row["vmapc_1t_note"] for row in rows
                    if row["vmapc_1t_note"]})
    if notes:
        out.append("\n† " + "; ".join(notes) + ": the default device ran "
                   "on one busy thread, so its default-threads figure is "
                   "shown.")
    labels = {k: label for k, label, _ in VARIANTS}
    nas = sorted({f"{labels[k]}: {r.na}" for row in rows
                  for k, r in row["results"].items() if r.na})
    errors = sorted({f"{labels[k]} ({row['program'].name}): {r.error}"
                     for row in rows for k, r in row["results"].items()
                     if r.error})
    if nas:
        out.append("\nn/a: " + "; ".join(nas))
    if errors:
        out.append("\nERROR: " + "; ".join(errors))
    out.append("\n" + goal_legend())

    out.append("\n### Rates: % of the FMA peak (kNN, MLPs, attention, loop, "
               "DP-SGD, cosine) or fraction of memcpy (softmax, layer norm, "
               "cross-entropy, chain, embedding lookup, linear-model "
               "gradient)\n")
    keys = [k for k, _, _ in VARIANTS]
    hdr = ["program", "measure"] + [label for _, label, _ in VARIANTS]
    body = []
    for row in rows:
        p = row["program"]
        what = "of memcpy" if p.kind == "memory" else "% FMA peak"
        body.append([p.title, what] + [pct(rate_fraction(row, k, peaks))
                                       for k in keys])
    out.append(md_table(hdr, body))
    out.append(
        f"\nFMA peak ({peaks['isa']}, {peaks['lanes']} f32 lanes, best of the "
        f"start and end of the run): {peaks['one_thread']:.1f} GFLOP/s on one "
        f"thread, {peaks['all_threads']:.1f} GFLOP/s on "
        f"{peaks['threads']} threads at once; default-thread columns divide by "
        "the latter, one-thread columns by the former. FLOPs as the program "
        "is written (2 per multiply-add; kNN: 3 per pixel pair: subtract, "
        "multiply, add; cosine: a . b per pair, the norms once per "
        "vector); the histogram counts none (n/a). memcpy: a copy of "
        "half the row's traffic (input + output bytes; embedding lookup: ids "
        "+ gathered rows read + rows written), so read + write equal it, "
        "measured in the "
        "vmapc-bench process of the same round; 1 thread for the one-thread "
        "columns, all threads otherwise.")
    mc = []
    for row in rows:
        if row["program"].kind == "memory":
            r = row["results"]["vmapc"]
            one, allt = r.memcpy_gbps("one_thread"), r.memcpy_gbps("all_threads")
            if one:
                mc.append(f"{row['program'].title}: {row['traffic'] / 1e6:.1f} MB "
                          f"traffic, memcpy {one:.1f} GB/s (1 thread), "
                          f"{allt:.1f} GB/s (all)")
    if mc:
        out.append("\n" + "; ".join(mc) + ".")

    out.append("\n### Threads: busy of alive / CPU seconds per wall second "
               "(busy: >= 10% of the process's CPU time in the timed calls)\n")
    hdr = ["program"] + [label for _, label, _ in VARIANTS]
    body = []
    for row in rows:
        cells = []
        for k in keys:
            r = row["results"][k]
            if not r.times:
                cells.append("n/a")
                continue
            busy = "?" if r.busy is None else str(r.busy)
            cpw = r.cpu_per_wall
            cells.append(f"{busy} of {r.threads} / {cpw:.2f}"
                         if cpw is not None else busy)
        body.append([row["program"].title] + cells)
    out.append(md_table(hdr, body))
    out.append("\n\"?\": under 20 ticks (0.2 s) of CPU in the timed calls, "
               "too few to count busy threads. CPU per wall second below 1 "
               "for one busy thread means the process waited for a CPU: "
               "other work was running.")

    out.append("\n### Memory: vmapc's arena (one chunk of B) against XLA's "
               "buffer assignment (temp bytes)\n")
    hdr = ["program", "B", "vmapc arena", "of which staging",
           "of which once per call", "lower bound",
           "vmapc B=1 arena", "XLA temp at B", "XLA temp at N",
           "(arena - staging - once per call) / XLA temp at B"]
    body = []
    for row in rows:
        res, comp = row["results"], row["comp"]
        j = res["vmapc"].json or {}
        j1 = res["vmapc_b1"].json or {}
        plan = j.get("plan", {})
        mem = row["memory"] or {}
        xb = (mem.get("at_batch") or {}).get("temp_bytes")
        xn = (mem.get("at_n") or {}).get("temp_bytes")
        arena = plan.get("arena_bytes")
        staging = plan.get("staging_bytes")
        # Buffers written once per call (packed weights, the kNN's
        # transposed references): constants of the call, on their own.
        per_call = sum(b["bytes"] for e in comp.get("plan", [])
                       if e.get("entry") == j.get("entry")
                       for b in e["buffers"] if b.get("role") == "once per call")
        core = (arena - staging - per_call
                if arena is not None and staging is not None else None)
        body.append([row["program"].title, comp["batch"],
                     arena if arena is not None else "n/a",
                     staging if staging is not None else "n/a",
                     per_call,
                     plan.get("lower_bound_bytes", "n/a"),
                     j1.get("plan", {}).get("arena_bytes", "n/a"),
                     xb if xb is not None else "n/a",
                     xn if xn is not None else "n/a",
                     (fmt_ratio(ratio(core, xb)) if xb
                      else "n/a" if xb is None or core is None
                      else "both 0" if core == 0 else f"+{core} B")])
    out.append(md_table(hdr, body))
    out.append("\nBytes. vmapc's arena holds every intermediate of one chunk "
               "of B examples and the staging slots (a copy of B examples of "
               "each mapped input and output, used for a chunk that cannot "
               "be passed in place); XLA's temp excludes arguments and "
               "outputs, so the last column compares the arena without its "
               "staging slots and without what dispatches that run once per "
               "call write (`vmapc plan`'s role \"once per call\": packed "
               "weights, the kNN's transposed references; constants of the "
               "call, which XLA folds or keeps outside its temp).")

    out.append(compile_table(comps, args))
    return "\n".join(out)


def compile_only(tools, progs, args):
    """The compile-time table alone (run.py --compile-only): each program's
    JAX function loaded in a JAX worker on inputs of B examples, then
    time_compiles as in a full run. Returns the markdown."""
    import numpy as np

    comps = compile_all(tools, progs, args.work_dir)
    vmapc_worker = WorkerProc("vmapc", {})
    if "skipped" in vmapc_worker.info:
        log(f"vmapc package: {vmapc_worker.info['skipped']}; in-process "
            "column skipped")
    worker = None
    if not args.no_jax:
        worker = WorkerProc("jax", {})
        if "skipped" in worker.info:
            log(f"jax: {worker.info['skipped']}; JAX column skipped")
            worker.close()
            worker = None
    try:
        for prog in progs:
            comp = comps[P.arr_path(prog)]
            if "compile_s" in comp:
                continue
            loaded = None
            if worker is not None:
                row_dir = os.path.join(args.work_dir, prog.name)
                os.makedirs(row_dir, exist_ok=True)
                xs = prog.inputs(np.random.default_rng(20261201), comp["batch"])
                paths = []
                for i, x in enumerate(xs):
                    paths.append(os.path.join(row_dir, f"in{i}.npy"))
                    np.save(paths[-1], x)
                reply = worker.ask({"op": "load", "program": prog.name,
                                    "inputs": paths,
                                    "artifact": comp["artifact"]})
                shutil.rmtree(row_dir, ignore_errors=True)
                if "error" in reply:
                    log(f"jax load of {prog.name}: {reply['error']}")
                else:
                    loaded = worker
            time_compiles(tools, comp, loaded, args.compile_runs,
                          args.work_dir, vmapc_worker, args.host_isa)
    finally:
        vmapc_worker.close()
        if worker is not None:
            worker.close()
    return compile_table(comps, args).lstrip("\n")


def compile_goal(c, host):
    """Issue 18's compile-time goals: all three ISA levels under 1 s, the
    host's level alone <= 3x JAX's time, B=256 within 1.5x of B=1."""
    parts = [(c["compile_s"], 1.0, "3 levels < 1 s"),
             (ratio(c["compile_s"], c["twin_compile_s"]), 1.5, "B/B=1")]
    if host in c["per_isa"]:
        parts.append((ratio(c["per_isa"][host], c.get("jax_compile_s")), 3.0,
                      "host/JAX"))
    missing = [f"{label} x{r / bound:.3g}" for r, bound, label in parts
               if r is not None and r > bound]
    return "met" if not missing else "missed: " + ", ".join(missing)


def phase_table(timed, host, runs):
    """Where the host level's compile time goes, from time_compiles'
    `host_phases` (empty when no row has them)."""
    rows = [(arr, c["host_phases"]) for arr, c in timed.items()
            if c.get("host_phases")]
    if not rows:
        return ""
    hdr = ["program", "process s", "outside the report s", "parse + plan s",
           "CPU code objects s", "MLIR half CPU-s", "LLVM IR CPU-s",
           "LLVM opt CPU-s", "LLVM codegen CPU-s", "link CPU-s"]
    keys = ["process", "outside", "parse_plan", "cpu", "mlir", "translate",
            "opt", "codegen", "link"]
    body = [[os.path.relpath(arr, REPO_ROOT)] +
            [f"{p[k]:.3g}" for k in keys] for arr, p in rows]
    return (
        f"\n### Where the host level's compile time goes (`vmapc compile "
        f"--cpu-isa={host} --mlir-timing --mlir-output-format=json`, median "
        f"of {runs} runs)\n\n" + md_table(hdr, body) + "\n\nprocess: the "
        "compile's wall clock in these runs; outside the report: that less "
        "the report's total, the process around the compiler (exec, the "
        "dynamic loader, static constructors, exit; the driver links LLVM "
        "and MLIR statically), which the in-process column does not pay; "
        "parse + plan and CPU code objects: wall clock of those phases. The "
        "CPU-s columns add up the compile threads' time in each step of the "
        "level (its parts run at once on the cores, so they add up to more "
        "than the CPU code objects' wall clock): MLIR half: the level's "
        "passes and the work between them (splitting, reading kernels, "
        "verifying); LLVM IR: translation to LLVM IR; LLVM opt and codegen: "
        "codegen/CpuObject.cpp's pipeline and the x86 code generator; link: "
        "`ld`.\n")


def compile_table(comps, args):
    """The compile-time table: vmapc (all levels, each level alone, the
    B=1 twin) beside JAX's lower + compile, from time_compiles."""
    timed = {arr: c for arr, c in comps.items() if "compile_s" in c}
    if not timed:
        return ""
    host = getattr(args, "host_isa", None)
    has_isa = any(c["per_isa"] for c in timed.values())
    out = ["\n### Compile time: `vmapc compile` beside JAX's "
           "`jit(vmap(f)).lower(...).compile()` (wall clock, median of "
           f"{args.compile_runs} interleaved rounds)\n"]
    hdr = ["program", "B", "vmapc 3 levels s"]
    if has_isa:
        hdr += [f"{lvl}{' (host)' if lvl == host else ''} s"
                for lvl in ISA_LEVELS]
    has_inproc = any(c.get("inproc_compile_s") for c in timed.values())
    hdr += ["vmapc B=1 s"]
    if has_inproc:
        hdr.append("host level in-process s")
    hdr.append("JAX s")
    if has_isa and host:
        hdr.append("host level / JAX")
    if has_inproc:
        hdr.append("in-process / JAX")
    hdr += ["B / B=1", "artifact bytes", "goal"]
    body = []
    for arr, c in timed.items():
        jx = c.get("jax_compile_s")
        cells = [os.path.relpath(arr, REPO_ROOT), c["batch"],
                 f"{c['compile_s']:.3g}"]
        if has_isa:
            cells += [f"{c['per_isa'][lvl]:.3g}" if lvl in c["per_isa"]
                      else "n/a" for lvl in ISA_LEVELS]
        inproc = c.get("inproc_compile_s")
        cells.append(f"{c['twin_compile_s']:.3g}")
        if has_inproc:
            cells.append(f"{inproc:.3g}" if inproc is not None else "n/a")
        cells.append(f"{jx:.3g}" if jx is not None else "n/a")
        if has_isa and host:
            cells.append(fmt_ratio(ratio(c["per_isa"].get(host), jx)))
        if has_inproc:
            cells.append(fmt_ratio(ratio(inproc, jx)))
        cells += [fmt_ratio(ratio(c["compile_s"], c["twin_compile_s"])),
                  c["artifact_bytes"], compile_goal(c, host)]
        body.append(cells)
    out.append(md_table(hdr, body))
    notes = sorted({c[key] for c in timed.values()
                    for key in ("jax_compile_note", "inproc_compile_note")
                    if c.get(key)})
    legend = (
        "Seconds of wall clock per compile, from the start of the process to "
        "the artifact on disk for vmapc (`vmapc compile`, default `-j`: a thread "
        "per core; tasks: each ISA level's MLIR half, then the LLVM half of "
        "each part of its kernels, up to 4); \"vmapc 3 levels\" is the default "
        "artifact (x86-64, x86-64-v3, x86-64-v4), a level's column "
        "`--cpu-isa=LEVEL` alone, \"vmapc B=1\" the batch=1 twin (all "
        "levels). JAX: `jax.jit(jax.vmap(f, in_axes)).lower(*specs)"
        ".compile()` of the row's JAX function at batch B (the shape vmapc "
        "compiles for), in the default JAX worker after `jax.clear_caches()` "
        "and with a new function object each time (tracing counted, imports "
        "not). Rounds interleave all columns, forward then backward. "
        f"host level: {host or 'unknown'} (the code the runtime runs here). "
        "host level / JAX: that level's time over JAX's. B / B=1: the "
        "default artifact's time over the twin's. host level in-process: "
        "`vmapc.compile(path, cpu_isa=host level)` in the Python package's "
        "worker process, the artifact built in memory and loaded (the "
        "compiler as a library: libMLIR and libLLVM loaded and relocated "
        "once, at `import vmapc`, as JAX's column has jax imported; the "
        "difference from the host level's column is the process around "
        "the compile: exec, loading, static constructors, exit). "
        "in-process / JAX: that time over JAX's, the "
        "like-for-like ratio, shown beside the goal, which stays on the "
        "`vmapc compile` column. goal (issue 18): 3 levels "
        "under 1 s, host level <= 3x JAX, B <= 1.5x B=1; \"missed: host/JAX "
        "x1.4\" = the time must shrink 1.4x.")
    if not has_isa:
        legend += (" This `vmapc compile` has no `--cpu-isa=LEVEL`: no "
                   "per-level figures.")
    out.append("\n" + legend)
    if notes:
        out.append("\nn/a: " + "; ".join(notes))
    out.append(phase_table(timed, host, args.compile_runs))
    return "\n".join(out)


def header(facts, w, args, start, end, wall):
    lines = [
        f"- Date: {facts['date']}; commit {facts['commit']}",
        f"- Machine: `lscpu` model name `{facts['model']}`, {facts['cpus']} CPU(s) "
        f"({facts['sockets']} socket(s) x {facts['cores_per_socket']} core(s) x "
        f"{facts['threads_per_core']} thread(s)), L2 {facts['l2']}, L3 {facts['l3']}; "
        f"this process may use {facts['affinity_cpus']} CPU(s)",
        f"- Software: numpy {w.get('numpy', '?')}, jax {w.get('jax', 'not used')} "
        f"({w.get('jax_device', '')}), Python {sys.version.split()[0]}",
        f"- Command: `python3 bench/run.py {shlex.join(args.argv)}` "
        f"({args.runs} timed calls wanted per variant in {args.rounds} "
        f"interleaved rounds, {args.warmup} warm-up calls per round and more "
        f"until they took {args.warmup_seconds:g} s, at most "
        f"{args.budget:g} s of timed calls per variant and row); took "
        f"{wall:.0f} s",
        f"- What else ran: at the start `{start['uptime']}`, busiest others: "
        f"{', '.join(start['top3']) or '?'}; at the end `{end['uptime']}`, "
        f"{', '.join(end['top3']) or '?'}",
    ]
    return "\n".join(lines)


def write_results(path, label, body):
    begin = f"<!-- run.py: {label} -->"
    finish = f"<!-- end run.py: {label} -->"
    section = f"{begin}\n## {label}\n\n{body}\n{finish}\n"
    text = open(path).read() if os.path.exists(path) else "# bench/ results\n\n"
    if begin in text and finish in text:
        i, j = text.index(begin), text.index(finish) + len(finish)
        text = text[:i] + section.rstrip("\n") + text[j:]
    else:
        anchor = "<!-- run.py sections end -->"
        if anchor in text:
            text = text.replace(anchor, section + "\n" + anchor)
        else:
            text = text.rstrip("\n") + "\n\n" + section
    with open(path, "w") as f:
        f.write(text)


# ----------------------------------------------------------------------------
# The smoke test (CTest): correctness only, in seconds.


def smoke(args):
    """Compiles four small bench programs (the histogram's counts checked
    exactly, the DP-SGD step's three outputs each) and a batch=1 twin, runs
    vmapc-bench on inputs written here (N not a multiple of B: a padded last
    chunk), and checks the outputs and numpy's twins against the references;
    also that a refused device exits 2, that --fma-peak/--memcpy-bytes
    give numbers, and that `vmapc compile --mlir-timing`'s report has every
    phase the compile-time breakdown reads.
    Exit 0 pass, 1 fail, 77 (CTest: skipped) without numpy."""
    try:
        import numpy as np
    except ImportError:
        print("bench smoke: numpy is not installed, skipped")
        return 77
    tools = Tools(args.bin_dir)
    work = args.work_dir
    os.makedirs(work, exist_ok=True)
    failures = []
    cases = [("chain_4096_n256", 259, False), ("mlp_64_32_10", 300, False),
             ("histogram", 259, False), ("dpsgd_step", 300, False),
             ("mlp_64_32_10", 5, True)]
    for name, n, twin in cases:
        prog = P.by_name(name)
        arr = P.arr_path(prog)
        base = os.path.splitext(os.path.basename(arr))[0] + ("_b1" if twin else "")
        art = os.path.join(work, base + ".vmapc")
        if twin:
            src = os.path.join(work, base + ".arr")
            write_b1_twin(arr, src)
            arr = src
        tools.compile(arr, art)
        xs = prog.inputs(np.random.default_rng(1), n)
        cmd = [art, "--runs", "2", "--warmup", "1"]
        for i, x in enumerate(xs):
            path = os.path.join(work, f"{base}_in{i}.npy")
            np.save(path, x)
            cmd += ["--input", path]
        refs = prog.reference(xs)
        outs = [os.path.join(work, f"{base}_out{i}.npy")
                for i in range(len(refs))]
        for out in outs:
            cmd += ["--output", out]
        rc, data, err = tools.bench(cmd)
        label = f"{base} N={n}"
        if rc != 0 or not data:
            failures.append(f"{label}: vmapc-bench exited {rc}: {err}")
            continue
        ok, text = check_outputs(prog, outs, refs)
        print(f"{label}: vmapc-bench {text} (runs {data['runs']}, "
              f"batch {data['batch']}, {data['launches_per_call']:g} launches)")
        if not ok:
            failures.append(f"{label}: vmapc output {text}")
        if data["num_examples"] != n or data["runs"] != 2 or len(data["times_s"]) != 2:
            failures.append(f"{label}: JSON says N={data['num_examples']}, "
                            f"runs={data['runs']}")
        for out, value in zip(outs, prog.numpy(xs)):
            np.save(out, value)
        ok, text = check_outputs(prog, outs, refs)
        print(f"{label}: numpy twin {text}")
        if not ok:
            failures.append(f"{label}: numpy twin {text}")
    rc, data, err = tools.bench([art, "--num-examples", "3", "--device",
                                 "nosuchdevice"])
    print(f"refused device: exit {rc}, {err}")
    if rc != 2 or not data or "device_refused" not in data:
        failures.append(f"--device nosuchdevice: exit {rc}, JSON {data}")
    rc, data, err = tools.bench(["--fma-peak", "--fma-seconds", "0.02",
                                 "--memcpy-bytes", "1048576"])
    if rc != 0 or not data or not data["fma"]["one_thread"]["best_gflops"] > 0 \
            or not data["memcpy"]["one_thread"]["median_gbps"] > 0:
        failures.append(f"--fma-peak --memcpy-bytes: exit {rc}, {data}, {err}")
    else:
        print(f"fma peak {data['fma']['isa']}, memcpy measured")
    # The compile-time breakdown reads the timing report of a compile with
    # two levels: every phase found, the report within the process.
    arr = P.arr_path(P.by_name("mlp_64_32_10"))
    phases = timing_breakdown(*tools.compile_report(
        arr, os.path.join(work, "timed.vmapc"),
        ["--cpu-isa=x86-64", "--cpu-isa=x86-64-v3"]))
    print("compile phases: " + ", ".join(f"{k} {v:.3g} s"
                                         for k, v in phases.items()))
    if not (phases["outside"] >= 0 and phases["parse_plan"] > 0 and
            phases["process"] > phases["cpu"] > 0 and
            all(phases[k] > 0 for k in
                ("mlir", *LLVM_TIMERS.values()))):
        failures.append(f"--mlir-timing breakdown: {phases}")
    for f in failures:
        print("FAIL: " + f)
    print("bench smoke: " + ("FAILED" if failures else "ok"))
    return 1 if failures else 0


# ----------------------------------------------------------------------------


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(REPO_ROOT, "build"))
    ap.add_argument("--overhead-only", action="store_true",
                    help="only the Python call overhead table")
    ap.add_argument("--compile-only", action="store_true",
                    help="only the compile-time table (vmapc beside JAX), "
                    "for --programs or all")
    ap.add_argument("--rss-only", action="store_true",
                    help="only the resident-memory check (10^4 calls of "
                    "the softmax row through the Python package)")
    ap.add_argument("--bin-dir", help="default: BUILD_DIR/bin")
    ap.add_argument("--work-dir", help="default: BUILD_DIR/bench/run")
    ap.add_argument("--programs", help="comma-separated names (default all: "
                    + ", ".join(p.name for p in P.PROGRAMS) + ")")
    ap.add_argument("--runs", type=int, default=20,
                    help="timed calls wanted per variant (default 20)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="interleaved rounds the calls are split over")
    ap.add_argument("--warmup", type=int, default=2,
                    help="untimed calls before each round's timed calls")
    ap.add_argument("--warmup-seconds", type=float, default=0.2,
                    help="and untimed calls until they took this long (a "
                    "2 ms call runs 1.5-2.5x slower for its first ~50 calls "
                    "on a 2-core EPYC)")
    ap.add_argument("--budget", type=float, default=5.0,
                    help="seconds of timed calls per variant and row; a "
                    "slower variant gets fewer calls (at least 1 per round)")
    ap.add_argument("--compile-runs", type=int, default=3)
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--keep", action="store_true",
                    help="keep the .npy inputs and outputs")
    ap.add_argument("--write-results", action="store_true",
                    help="put the tables in bench/RESULTS.md under --label")
    ap.add_argument("--label", default="bench/run.py")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    args.argv = argv
    args.bin_dir = args.bin_dir or os.path.join(args.build_dir, "bin")
    args.work_dir = args.work_dir or os.path.join(args.build_dir, "bench", "run")
    if args.smoke:
        return smoke(args)
    if args.runs < 1 or args.rounds < 1 or args.budget <= 0:
        sys.exit("--runs and --rounds must be >= 1, --budget > 0")
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.exit("bench/run.py needs numpy: pip install numpy (and jax)")

    t_start = time.time()
    tools = Tools(args.bin_dir)
    if args.overhead_only:
        os.makedirs(args.work_dir, exist_ok=True)
        comps = compile_all(tools, [P.by_name("knn_digits")], args.work_dir)
        text = python_overhead(tools, args.work_dir, comps, 5000, 4)
        print(text or "the vmapc package is not installed "
              "(python3 -m pip install ./python)")
        return 0 if text else 1
    if args.rss_only:
        os.makedirs(args.work_dir, exist_ok=True)
        text = rss_check(tools, args.work_dir, {})
        print(text or "the vmapc package is not installed "
              "(python3 -m pip install ./python)")
        return 0 if text else 1
    progs = ([P.by_name(n) for n in args.programs.split(",")] if args.programs
             else P.PROGRAMS)
    os.makedirs(args.work_dir, exist_ok=True)
    args.host_isa = host_isa()
    if args.compile_only:
        start = what_else_runs()
        text = compile_only(tools, progs, args)
        end = what_else_runs()
        print(f"- Command: `python3 bench/run.py {shlex.join(args.argv)}`; "
              f"took {time.time() - t_start:.0f} s\n- What else ran: at the "
              f"start `{start['uptime']}`, busiest others: "
              f"{', '.join(start['top3']) or '?'}; at the end "
              f"`{end['uptime']}`, {', '.join(end['top3']) or '?'}\n\n"
              + text)
        return 0
    facts = machine_facts()
    start = what_else_runs()
    comps = compile_all(tools, progs, args.work_dir)
    log("FMA peak (start)")
    f0 = fma_peak(tools)

    use_jax = not args.no_jax
    workers = start_workers(use_jax)
    env = {"numpy": workers["numpy"].info.get("numpy")}
    if use_jax:
        info = workers["jax"].info
        if "skipped" in info:
            log(f"jax: {info['skipped']}; JAX columns skipped")
            for k in ("jax", "jax_1t"):
                workers.pop(k).close()
        else:
            env["jax"] = info.get("jax")
            env["jax_device"] = info.get("device")
            aff = workers["jax_1t"].info.get("affinity")
            log(f"jax {env['jax']} on {env['jax_device']}; one-CPU worker "
                f"affinity {aff}, XLA_FLAGS={JAX_ONE_CPU_FLAGS}")
    rows = []
    try:
        for p in progs:
            row = run_row(p, comps[P.arr_path(p)], tools, workers, args,
                          args.work_dir)
            rows.append(row)
    finally:
        for w in workers.values():
            w.close()
    log("FMA peak (end)")
    f1 = fma_peak(tools)
    peaks = {"isa": f0["isa"], "lanes": f0["lanes"],
             "one_thread": max(f0["one_thread"]["best_gflops"],
                               f1["one_thread"]["best_gflops"]),
             "all_threads": max(f0["all_threads"]["best_gflops"],
                                f1["all_threads"]["best_gflops"]),
             "threads": f0["all_threads"]["threads"]}
    for row in rows:
        row["peaks"] = peaks
    end = what_else_runs()
    wall = time.time() - t_start
    text = header(facts, env, args, start, end, wall) + "\n\n" + tables(
        rows, comps, peaks, args)
    overhead = python_overhead(tools, args.work_dir, comps, 5000, 4)
    if overhead:
        text += "\n\n" + overhead
    rss = rss_check(tools, args.work_dir, comps)
    if rss:
        text += "\n\n" + rss
    print(text)
    if args.write_results:
        write_results(os.path.join(HERE, "RESULTS.md"), args.label, text)
        log(f"wrote section '{args.label}' of bench/RESULTS.md")
    wrong = any("WRONG" in check_cell(r, [k for k, _, _ in VARIANTS])
                for r in rows)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
