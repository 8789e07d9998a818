#!/usr/bin/env python3
"""A numpy, JAX or vmapc-from-Python timing process for bench/run.py.

    python3 bench/worker.py numpy|jax|vmapc
    python3 bench/worker.py rss ARTIFACT B CALLS

("vmapc": the artifact through the Python package, python/, with its
outputs allocated once and passed as out=, as vmapc-bench does in C++.)

run.py starts one worker per (library, thread setting) with the environment
that sets its threads (OPENBLAS_NUM_THREADS=1 ...; CPU affinity for JAX) and
keeps it for the whole run, so that imports, JAX compilation and thread pools
are paid once and variants can be interleaved cheaply. It reads one JSON
request per line on stdin and answers one JSON line on stdout:

  {"op": "hello"}                      -> versions, device, threads, affinity
  {"op": "load", "program": NAME, "inputs": [.npy paths],
   "artifact": PATH}                   -> loads the inputs (JAX: device_put,
                                          jit(vmap(f)) built and compiled by
                                          one call; vmapc: vmapc.load of the
                                          artifact, outputs allocated)
  {"op": "time", "runs": K, "warmup": W, "warmup_seconds": S,
   "max_seconds": T, "min_runs": M,
   "outputs": [PATH, ...] or null}     -> W warm-up calls (and more until
                                          they took S seconds), K timed calls (fewer if
                                          they would take longer than T by
                                          the fastest warm-up, at least M),
                                          the outputs of the last call saved
                                          (one path per output; "output": PATH
                                          saves the first)
  {"op": "memory", "batch": B}         -> JAX only: XLA's memory analysis of
                                          jit(vmap(f)) at batch B and at N
  {"op": "compile_time", "batch": B}   -> JAX: seconds of one
                                          jit(vmap(f)).lower(specs at B)
                                          .compile() of the loaded program,
                                          fresh (caches cleared, a new
                                          function object)
  {"op": "compile_time", "arr": PATH,
   "cpu_isa": LEVEL}                   -> vmapc: seconds of one in-process
                                          vmapc.compile(PATH, cpu_isa=LEVEL)
                                          (no load needed first)
  {"op": "quit"}

Replies carry "error" on failure; a JAX (vmapc) worker whose `import jax`
(`import vmapc`) fails answers every request with {"skipped": reason}.

    python3 bench/worker.py rss ARTIFACT B CALLS

is a one-shot mode instead (run.py's resident-memory check): it loads the
artifact (one entry, one f32 input mapped on axis 0, as the softmax row's)
through the Python package, makes CALLS calls with N = i % (4B + 1), into
out= views of arrays allocated once, and prints one JSON line with VmRSS
(/proc/self/status) before and after the calls and the module's stats.
"""

import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402


def thread_ticks():
    """CPU ticks (user + system) of each thread of this process."""
    ticks = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[tid] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks


def tick_deltas(before, after):
    """Ticks each thread ran between two snapshots, largest first, zeros
    dropped (as vmapc-bench reports them)."""
    deltas = [t - min(t, before.get(tid, 0)) for tid, t in after.items()]
    return sorted((d for d in deltas if d), reverse=True)


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class Worker:
    def __init__(self, kind):
        self.kind = kind
        self.skipped = None
        self.program = None
        self.call = None
        import numpy as np

        self.np = np
        if kind == "jax":
            try:
                import jax

                self.jax = jax
            except Exception as e:  # ImportError, or a broken install
                self.skipped = f"import jax failed: {e}"
        if kind == "vmapc":
            try:
                import vmapc

                self.vmapc = vmapc
            except Exception as e:
                self.skipped = (f"import vmapc failed ({e}); install the "
                                "package: python3 -m pip install ./python")

    def hello(self, _):
        info = {
            "kind": self.kind,
            "numpy": self.np.__version__,
            "affinity": sorted(os.sched_getaffinity(0)),
            "env": {k: os.environ[k] for k in (
                "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS",
                "XLA_FLAGS", "JAX_PLATFORMS") if k in os.environ},
        }
        if self.kind == "jax":
            info["jax"] = self.jax.__version__
            info["device"] = str(self.jax.devices()[0])
        if self.kind == "vmapc":
            info["vmapc"] = self.vmapc.__version__
        return info

    def load(self, req):
        np = self.np
        self.program = programs.by_name(req["program"])
        self.call = None
        xs = [np.load(path) for path in req["inputs"]]
        self.xs = xs
        if self.kind == "numpy":
            p = self.program
            self.call = lambda: p.numpy(xs)
        elif self.kind == "vmapc":
            m = self.vmapc.load(req["artifact"], device=req.get("device", "cpu"))
            (name,) = m.entries
            entry = m[name]
            n = 0
            for x, arg in zip(xs, entry.inputs):
                if arg["mapped_axis"] is not None:
                    n = x.shape[arg["mapped_axis"]]
                    break
            outs = []
            for arg in entry.outputs:
                shape = list(arg["shape"])
                if arg["mapped_axis"] is not None:
                    shape.insert(arg["mapped_axis"], n)
                outs.append(np.empty(shape, arg["dtype"]))
            outs = tuple(outs)
            self.module = m

            def call():
                entry(*xs, out=outs)
                return list(outs)

            self.call = call
        else:
            jax = self.jax
            p = self.program
            self.fn = jax.jit(jax.vmap(p.jax_fn, in_axes=p.in_axes))
            self.args = [jax.device_put(x) for x in xs]
            for a in self.args:
                a.block_until_ready()
            fn, args = self.fn, self.args

            def call():
                out = fn(*args)
                # One array, or a tuple of them (several outputs).
                jax.block_until_ready(out)
                return list(out) if isinstance(out, (tuple, list)) else [out]

            call()  # tracing and compiling, so that warm-up calls are warm
            self.call = call
        return {"program": self.program.name}

    def time(self, req):
        runs, warmup = req["runs"], req["warmup"]
        max_seconds, min_runs = req.get("max_seconds", 0), req.get("min_runs", 1)
        warm_seconds = req.get("warmup_seconds", 0)
        warm = []
        out = None
        while len(warm) < max(warmup, 0) or sum(warm) < warm_seconds:
            t0 = time.perf_counter()
            out = self.call()
            warm.append(time.perf_counter() - t0)
            if max_seconds and warm[-1] > max_seconds / 2:
                break
        capped = False
        if max_seconds and warm and min(warm) * runs > max_seconds:
            n = max(min_runs, int(max_seconds / min(warm)))
            capped = n < runs
            runs = min(runs, n)
        ticks0 = thread_ticks()
        cpu0 = cpu_seconds()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            out = self.call()
            times.append(time.perf_counter() - t0)
        cpu = cpu_seconds() - cpu0
        ticks1 = thread_ticks()
        reply = {
            "times_s": times, "median_s": median(times), "min_s": min(times),
            "runs": len(times), "capped": capped, "warmup_s": warm,
            "cpu_s": cpu, "cpu_per_wall": cpu / sum(times) if sum(times) else 0,
            "thread_ticks": tick_deltas(ticks0, ticks1), "threads": len(ticks1),
        }
        paths = req.get("outputs") or ([req["output"]] if req.get("output")
                                       else [])
        for path, value in zip(paths, out):
            self.np.save(path, self.np.ascontiguousarray(
                self.np.asarray(value)))
        if paths:
            reply["outputs"] = paths
        return reply

    def memory(self, req):
        """XLA's buffer assignment for jit(vmap(f)) at batch B (vmapc's arena
        holds one chunk of B) and at the N being timed."""
        jax = self.jax
        p = self.program
        b = req["batch"]

        def analysis(specs):
            m = jax.jit(jax.vmap(p.jax_fn, in_axes=p.in_axes)).lower(
                *specs).compile().memory_analysis()
            if m is None:
                return None
            return {"temp_bytes": m.temp_size_in_bytes,
                    "argument_bytes": m.argument_size_in_bytes,
                    "output_bytes": m.output_size_in_bytes,
                    "alias_bytes": m.alias_size_in_bytes}

        return {"at_batch": analysis(self.specs_at(b)),
                "at_n": analysis(self.args)}

    def specs_at(self, b):
        """The loaded inputs' shapes and dtypes with B at the mapped axes."""
        specs = []
        for x, axis in zip(self.xs, self.program.in_axes):
            shape = list(x.shape)
            if axis is not None:
                shape[axis] = b
            specs.append(self.jax.ShapeDtypeStruct(tuple(shape), x.dtype))
        return specs

    def compile_time(self, req):
        if self.kind == "vmapc":
            return self.vmapc_compile_time(req)
        if self.kind != "jax":
            raise ValueError("compile_time: a jax or vmapc worker's op")
        return self.jax_compile_time(req)

    def vmapc_compile_time(self, req):
        """Wall seconds of one vmapc.compile(arr, cpu_isa=LEVEL) in this
        process: the compiler as a library, loaded (libMLIR and libLLVM
        relocated) once at `import vmapc`, as JAX's compile_time has jax
        imported, with none of the process `vmapc compile` starts. The
        artifact is built in memory and loaded on the CPU (dlopen of its
        code object), as JAX's compile() returns a loaded executable."""
        t0 = time.perf_counter()
        module = self.vmapc.compile(req["arr"], cpu_isa=req["cpu_isa"])
        seconds = time.perf_counter() - t0
        del module  # unloaded outside the timed window
        return {"compile_s": seconds}

    def jax_compile_time(self, req):
        """Wall seconds of jax.jit(jax.vmap(f)).lower(...).compile() at batch
        B, fresh: every JAX cache cleared (jax.clear_caches; the persistent
        compilation cache off) and a new function object, so nothing of an
        earlier trace or compilation is reused. Tracing the Python function
        (JAX's front end) is counted; imports are not (the worker imported
        jax and jax.numpy, and compiled this program, at load)."""
        jax = self.jax
        p = self.program
        specs = self.specs_at(req["batch"])
        jax.config.update("jax_enable_compilation_cache", False)
        jax.clear_caches()
        fn = jax.jit(jax.vmap(p.jax_fn, in_axes=p.in_axes))
        t0 = time.perf_counter()
        fn.lower(*specs).compile()
        return {"compile_s": time.perf_counter() - t0}


def vm_rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def rss_mode(artifact, batch, calls):
    """See the module docstring: resident memory across `calls` calls of
    N = i % (4B + 1) examples."""
    import numpy as np
    import vmapc

    rss_start = vm_rss_kib()
    m = vmapc.load(artifact)
    (name,) = m.entries
    entry = m[name]
    nmax = 4 * batch
    (arg,) = entry.inputs
    x = np.random.default_rng(1).standard_normal(
        (nmax,) + tuple(arg["shape"])).astype(np.float32) * 2
    (oarg,) = entry.outputs
    out = np.empty((nmax,) + tuple(oarg["shape"]), np.float32)
    entry(x, out=(out,))  # the arena and the thread pool exist from here on
    rss_loaded = vm_rss_kib()
    stats_before = dict(m.stats)
    t0 = time.perf_counter()
    for i in range(calls):
        n = i % (nmax + 1)
        entry(x[:n], out=(out[:n],))
    wall = time.perf_counter() - t0
    rss_after = vm_rss_kib()
    # The last call's N: a softmax's rows each sum to 1.
    n_last = (calls - 1) % (nmax + 1)
    row_sums = out[:n_last].astype(np.float64).sum(axis=-1)
    ok = bool(np.all(np.abs(row_sums - 1) < 1e-4)) if n_last else True
    print(json.dumps({
        "calls": calls, "batch": batch, "max_n": nmax, "wall_s": wall,
        "rss_start_kib": rss_start, "rss_before_kib": rss_loaded,
        "rss_after_kib": rss_after, "stats_before": stats_before,
        "stats_after": dict(m.stats), "last_output_ok": ok}))


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else ""
    if kind == "rss":
        if len(sys.argv) != 5:
            sys.exit("usage: worker.py rss ARTIFACT B CALLS")
        rss_mode(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    if kind not in ("numpy", "jax", "vmapc"):
        sys.exit("usage: worker.py numpy|jax|vmapc, or worker.py rss "
                 "ARTIFACT B CALLS")
    worker = Worker(kind)
    for line in sys.stdin:
        req = json.loads(line)
        op = req.get("op")
        if op == "quit":
            break
        if op not in ("hello", "load", "time", "memory", "compile_time"):
            reply = {"error": f"unknown op {op!r}"}
        elif worker.skipped:
            reply = {"skipped": worker.skipped}
        else:
            try:
                reply = getattr(worker, op)(req)
            except Exception as e:  # reported to run.py, which marks the row
                reply = {"error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
