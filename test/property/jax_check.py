#!/usr/bin/env python3
"""The second oracle of the property tests: jax.vmap.

Runs the property driver (PropertyTools.DISABLED_DumpForJax) with VMAPC_PROPERTY_DUMP=DIR,
which writes, per program, its JAX twin (program.py, defining the vmapped
export with the same in/out axes), its inputs (in<i>.npy) and vmapc's outputs
(out<i>.npy) at a random N. Then evaluates each export with JAX on CPU and
compares: f32 within 1e-6 + 1e-5 * |jax| (NaN equals NaN), i32 and bool
exactly, same shapes and dtypes.

Exits 77 (CTest's skip code) with a message when `import jax` fails.

  jax_check.py --driver build/test/property/vmapc-property-tests \
               --dir /tmp/jax-dump --programs 300 [--seed 1]
  jax_check.py --dir /tmp/jax-dump          # check an existing dump only
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

SKIP = 77


def compare(name, want, got):
    """None if `got` (vmapc) matches `want` (JAX), else why not."""
    import numpy as np

    want = np.asarray(want)
    if want.shape != got.shape:
        return f"{name}: shape {got.shape}, JAX has {want.shape}"
    if want.dtype != got.dtype:
        return f"{name}: dtype {got.dtype}, JAX has {want.dtype}"
    if want.dtype == np.float32:
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        both_nan = np.isnan(w) & np.isnan(g)
        ok = both_nan | (np.abs(w - g) <= 1e-6 + 1e-5 * np.abs(w))
        if not ok.all():
            i = np.unravel_index(np.argmin(ok), ok.shape)
            return (f"{name}: at {tuple(int(k) for k in i)} vmapc {g[i]!r}, "
                    f"JAX {w[i]!r} ({int((~ok).sum())} of {ok.size} differ)")
        return None
    if not np.array_equal(want, got):
        bad = want != got
        i = np.unravel_index(np.argmax(bad), bad.shape)
        return (f"{name}: at {tuple(int(k) for k in i)} vmapc {got[i]!r}, "
                f"JAX {want[i]!r}")
    return None


def check_dir(path):
    """(ok, message) for one dumped program."""
    import numpy as np

    with open(os.path.join(path, "meta.json")) as f:
        meta = json.load(f)
    with open(os.path.join(path, "program.py")) as f:
        source = f.read()
    inputs = [np.load(os.path.join(path, f"in{i}.npy"))
              for i in range(meta["inputs"])]
    outputs = [np.load(os.path.join(path, f"out{i}.npy"))
               for i in range(meta["outputs"])]
    namespace = {}
    try:
        exec(compile(source, os.path.join(path, "program.py"), "exec"),
             namespace)
        result = namespace[meta["export"]](*inputs)
    except Exception as e:  # a JAX error is a disagreement too
        return False, f"JAX raised {type(e).__name__}: {e}"
    if not isinstance(result, (tuple, list)):
        result = (result,)
    if len(result) != len(outputs):
        return False, f"{len(outputs)} outputs, JAX has {len(result)}"
    for i, (want, got) in enumerate(zip(result, outputs)):
        why = compare(f"output {i}", want, got)
        if why:
            return False, why
    return True, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--driver", help="vmapc-property-tests; omit to check "
                    "an existing dump")
    ap.add_argument("--dir", required=True, help="dump directory")
    ap.add_argument("--programs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    try:
        import jax  # noqa: F401
        import numpy  # noqa: F401
    except Exception as e:
        print(f"SKIPPED: the JAX oracle needs JAX ('import jax' failed: {e}); "
              "install it with: pip install jax")
        return SKIP

    t0 = time.time()
    if args.driver:
        shutil.rmtree(args.dir, ignore_errors=True)
        os.makedirs(args.dir)
        env = dict(os.environ, VMAPC_PROPERTY_DUMP=args.dir,
                   VMAPC_PROPERTY_PROGRAMS=str(args.programs),
                   VMAPC_PROPERTY_SEED=str(args.seed))
        run = subprocess.run([args.driver, "--gtest_also_run_disabled_tests",
                              "--gtest_filter=PropertyTools.DISABLED_DumpForJax"],
                             env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        driver_failed = run.returncode != 0
        if driver_failed:
            # Programs vmapc got wrong (or could not compile) are not dumped;
            # the property shards report them. JAX checks the others.
            summary = [l for l in run.stdout.splitlines()
                       if l.startswith("dump:")]
            print("jax_check: warning: the driver failed on some programs "
                  f"({summary[0] if summary else 'see its output'}); "
                  "they are reported by the property shards, not checked here")
    t1 = time.time()

    dirs = sorted((d for d in os.listdir(args.dir)
                   if os.path.isfile(os.path.join(args.dir, d, "meta.json"))),
                  key=lambda d: int(d) if d.isdigit() else d)
    if not dirs:
        print(f"jax_check: no program in {args.dir}")
        return 1
    failures = 0
    for d in dirs:
        path = os.path.join(args.dir, d)
        ok, why = check_dir(path)
        if not ok:
            failures += 1
            if failures <= 10:
                with open(os.path.join(path, "program.arr")) as f:
                    arr = f.read()
                with open(os.path.join(path, "meta.json")) as f:
                    meta = json.load(f)
                print(f"FAIL program seed {d} (N = {meta['n']}): {why}\n"
                      f"---- program.arr ----\n{arr}---- JAX: {path}/program.py")
    print(f"jax_check: {len(dirs) - failures} of {len(dirs)} programs agree "
          f"with jax.vmap (JAX {jax.__version__}); driver {t1 - t0:.1f} s, "
          f"JAX {time.time() - t1:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
