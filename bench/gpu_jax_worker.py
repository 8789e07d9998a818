#!/usr/bin/env python3
"""The JAX side of the GPU bench table: one bench program, timed as vmapc is.

    python3 bench/gpu_jax_worker.py SPEC.json

bench/gpu_bench.py starts one such process per bench program, with
XLA_PYTHON_CLIENT_PREALLOCATE=false, so that the device's allocator counts
what this program's calls take and nothing else. SPEC is

    {"program": NAME, "runs": K, "warmup": W, "platform": "gpu" | "cpu",
     "cases": [{"n": N, "inputs": [X.npy, ...], "output": Y.npy}, ...]}

with the cases in increasing N. For each case, `jax.jit(jax.vmap(f,
in_axes))` of the program's per-example function (bench/programs.py) is
compiled under `jax.default_matmul_precision("float32")` (no TF32), the
inputs are put on the device, W warm-up calls, then K timed calls, each
the wall clock of the call and `block_until_ready()` (the output of the
previous call is dropped first, as vmapc's host reuses one set of output
buffers, so that the peak holds one output, not two). The last output is
saved to Y.npy.

Memory: `device.memory_stats()["peak_bytes_in_use"]` after the calls (the
allocator's high-water mark since the process started: inputs, outputs and
temporaries of the calls, plus whatever compiling took: "peak_after_compile"
says what the mark was before the inputs were placed, so that a peak set by
the compiler's autotuning shows), and XLA's own figures for the compiled
program (`memory_analysis()`: argument, output and temp bytes). The cases
run in increasing N and free their arrays before the next one, so the mark
after a case is that case's peak whenever it exceeds the earlier cases'.

Prints one JSON line per case on stdout: {"n", "times_s", "median_s",
"peak_bytes", "peak_after_compile", "bytes_in_use_before", "xla":
{...}}; {"error": "..."} for a case that failed.
"""

import gc
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import programs as P  # noqa: E402


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def memory_stats(device):
    try:
        return device.memory_stats() or {}
    except Exception:  # CPU devices have none on some versions
        return {}


def xla_figures(compiled):
    try:
        m = compiled.memory_analysis()
    except Exception as e:  # not every backend reports it
        return {"error": str(e)}
    if m is None:
        return {}
    keys = ("argument_size_in_bytes", "output_size_in_bytes",
            "temp_size_in_bytes", "alias_size_in_bytes")
    return {k: int(getattr(m, k, 0) or 0) for k in keys}


def run_case(prog, case, runs, warmup, device):
    import jax
    import numpy as np

    xs = [np.load(p) for p in case["inputs"]]
    f = jax.jit(jax.vmap(prog.jax_fn, in_axes=prog.in_axes))
    with jax.default_matmul_precision("float32"):
        compiled = f.lower(*xs).compile()
    gc.collect()
    before = memory_stats(device)
    dev_xs = [jax.device_put(x, device) for x in xs]
    del xs
    for x in dev_xs:
        x.block_until_ready()
    out = None
    for _ in range(warmup):
        out = None
        out = compiled(*dev_xs)
        jax.block_until_ready(out)
    times = []
    for _ in range(runs):
        out = None
        t0 = time.perf_counter()
        out = compiled(*dev_xs)
        jax.block_until_ready(out)
        times.append(time.perf_counter() - t0)
    after = memory_stats(device)
    if case.get("output"):
        np.save(case["output"], np.asarray(out))
    del out, dev_xs
    gc.collect()
    return {"n": case["n"], "times_s": times, "median_s": median(times),
            "peak_bytes": after.get("peak_bytes_in_use"),
            "peak_after_compile": before.get("peak_bytes_in_use"),
            "bytes_in_use_before": before.get("bytes_in_use"),
            "xla": xla_figures(compiled),
            "jax": jax.__version__, "device": str(device)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    import jax

    prog = P.by_name(spec["program"])
    devices = jax.devices(spec.get("platform", "gpu"))
    for case in spec["cases"]:
        try:
            reply = run_case(prog, case, spec["runs"], spec["warmup"],
                             devices[0])
        except Exception as e:  # reported in the table, not a crash
            reply = {"n": case["n"], "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
