#!/usr/bin/env python3
"""One step's per-example gradients of examples/dpsgd_digits.arr against numpy
and jax.vmap(jax.grad(loss)).

Compiles the program with `vmapc compile`, runs one batch (B = 256 examples)
through `vmapc run` on random W, b and real digits, and compares the three
outputs (the clipped gradients of W and b, and the loss) with

  numpy   the closed form in float64: p = softmax(W x + b), g = p - onehot(y),
          dW = g x^T, db = g, both scaled by 1 / max(1, |(dW, db)|);
  JAX     jax.vmap(jax.grad(loss, argnums=(0, 1)), in_axes=(None, None, 0, 0))
          of loss = logsumexp(W x + b) - (W x + b)[y], in float32, clipped
          the same way (the clip is DP-SGD's, not part of the loss).

Two cases: the digits as given (pixels 0-16: every gradient's norm is far
above C = 1, so every one is scaled down) and the same digits divided by 1000
(logits close to b, so the norms are close to |p - onehot(y)|, 0.8 to 1.1
here: about half are left alone by the clip, half scaled down), so that both branches of
the clip are checked. Exit 0 pass, 1 fail, 77 (CTest: skipped) with a
message when numpy is missing, or after the numpy comparison passes when JAX
is missing.

  dpsgd_digits_check.py [--vmapc build/bin/vmapc] [--work-dir DIR]
"""

import argparse
import gzip
import os
import subprocess
import sys
import tempfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(HERE)
ARR = os.path.join(HERE, "dpsgd_digits.arr")
DIGITS = os.path.join(HERE, "data", "digits.csv.gz")
ENTRY = "per_example_grads"
BATCH = 256
CLIP = 1.0

# Tolerance: max |vmapc - other| / max |other| per output, against the
# float64 numpy and the float32 JAX alike. vmapc computes in float32: the
# 64-term logit dot products (pixels up to 16, |W x| ~ 3), exp within 1 ulp
# (docs/math.md), the 650-term norm sum, sqrt and the divisions each add
# round-off of a few float32 ulps (eps = 1.2e-7) of the values they produce,
# so the largest error is ~1e-6 of the largest value (measured: under 5e-7;
# JAX's own float32 error against float64 is the same size). 1e-5 leaves
# 10x and more of headroom and still fails the mistakes a gradient can
# plausibly make: a clip that leaves b out of the norm moves every clipped
# gradient by 1 / (2 |x|^2) >= 1.6e-4 relative on these digits (|x|^2 is at
# most ~3100); softmax without the -1 at y, or the wrong label, is O(1).
TOLERANCE = 1e-5


def log(msg):
    print(msg, flush=True)


def load_digits(np):
    with gzip.open(DIGITS, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    return table[:, :64].astype(np.float32), table[:, 64].astype(np.int32)


def numpy_grads(np, w, b, x, y):
    """The closed form in float64: (dW [n,10,64], db [n,10], loss [n])."""
    w, b, x = (a.astype(np.float64) for a in (w, b, x))
    logits = x @ w.T + b
    z = logits - logits.max(1, keepdims=True)
    s = np.exp(z).sum(1)
    rows = np.arange(len(y))
    loss = np.log(s) - z[rows, y]
    g = np.exp(z) / s[:, None]
    g[rows, y] -= 1.0
    gw = g[:, :, None] * x[:, None, :]
    norm = np.sqrt((gw * gw).sum((1, 2)) + (g * g).sum(1))
    scale = 1.0 / np.maximum(norm / CLIP, 1.0)
    return gw * scale[:, None, None], g * scale[:, None], loss, norm


def jax_grads(w, b, x, y):
    """jax.vmap(jax.grad(loss)) in float32, clipped as DP-SGD clips."""
    import jax
    import jax.numpy as jnp

    def loss(w, b, x, y):
        logits = w @ x + b
        return jax.nn.logsumexp(logits) - logits[y]

    gw, gb = jax.vmap(jax.grad(loss, argnums=(0, 1)),
                      in_axes=(None, None, 0, 0))(w, b, x, y)
    norm = jnp.sqrt(jnp.sum(gw * gw, axis=(1, 2)) + jnp.sum(gb * gb, axis=1))
    scale = 1.0 / jnp.maximum(norm / CLIP, 1.0)
    losses = jax.vmap(loss, in_axes=(None, None, 0, 0))(w, b, x, y)
    return gw * scale[:, None, None], gb * scale[:, None], losses


def compare(np, name, got, want):
    """(ok, text): max abs error, max relative error (over elements with
    |want| >= 1e-3 max|want|), and the error against max|want|."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return False, f"{name}: shape {got.shape}, expected {want.shape}"
    if not np.isfinite(got).all():
        return False, f"{name}: {int((~np.isfinite(got)).sum())} non-finite"
    err = np.abs(got - want)
    scale = float(np.abs(want).max()) or 1.0
    big = np.abs(want) >= 1e-3 * scale
    rel = float((err[big] / np.abs(want[big])).max()) if big.any() else 0.0
    of_max = float(err.max()) / scale
    ok = of_max <= TOLERANCE
    return ok, (f"{name}: max abs {err.max():.2e}, max rel {rel:.2e}, "
                f"of max|ref| {of_max:.2e} "
                f"({'ok' if ok else 'FAIL'}, tolerance {TOLERANCE:g})")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vmapc", default=os.path.join(REPO_ROOT, "build", "bin",
                                                     "vmapc"))
    ap.add_argument("--work-dir", help="default: a temporary directory")
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args(argv)

    try:
        import numpy as np
    except ImportError:
        log("dpsgd_digits_check: numpy is not installed, skipped "
            "(pip install numpy jax)")
        return SKIP
    try:
        import jax

        jax.config.update("jax_platforms", "cpu")
        have_jax = True
    except Exception as e:  # ImportError, or a broken install
        have_jax = False
        jax_why = f"import jax failed: {e}"

    work = args.work_dir or tempfile.mkdtemp(prefix="dpsgd-check-")
    os.makedirs(work, exist_ok=True)
    art = os.path.join(work, "dpsgd_digits.vmapc")
    r = subprocess.run([args.vmapc, "compile", ARR, "-o", art],
                       capture_output=True, text=True)
    if r.returncode != 0:
        log(f"vmapc compile failed:\n{r.stderr}")
        return 1

    pixels, labels = load_digits(np)
    rng = np.random.default_rng(args.seed)
    rows = rng.choice(1000, BATCH, replace=False)  # training rows
    # W ~ N(0, 0.05^2), b ~ U(-1.5, 1.5): logits W x + b of a few units on
    # these pixels, so the softmax is neither uniform nor one-hot.
    w = (rng.standard_normal((10, 64)) * 0.05).astype(np.float32)
    b = rng.uniform(-1.5, 1.5, 10).astype(np.float32)
    y = labels[rows]

    failures = []
    for case, x in (("digits", pixels[rows]),
                    ("digits / 1000", (pixels[rows] / 1000).astype(np.float32))):
        tag = case.replace(" ", "").replace("/", "_div")
        ins = []
        for i, a in enumerate((w, b, x, y)):
            path = os.path.join(work, f"{tag}_in{i}.npy")
            np.save(path, a)
            ins += ["--input", path]
        outs = [os.path.join(work, f"{tag}_out{i}.npy") for i in range(3)]
        cmd = [args.vmapc, "run", art, "--entry", ENTRY] + ins
        for o in outs:
            cmd += ["--output", o]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            log(f"{case}: vmapc run failed:\n{r.stderr}")
            return 1
        got = [np.load(o) for o in outs]
        dtypes = [str(g.dtype) for g in got]
        if dtypes != ["float32"] * 3:
            failures.append(f"{case}: output dtypes {dtypes}")
        *ref, norm = numpy_grads(np, w, b, x, y)
        clipped = int((norm > CLIP).sum())
        log(f"== {case}: {BATCH} examples, {clipped} clipped (norm "
            f"{norm.min():.3g} to {norm.max():.3g})")
        others = [("numpy float64", ref)]
        if have_jax:
            others.append(("jax.vmap(jax.grad) float32",
                           [np.asarray(a) for a in jax_grads(w, b, x, y)]))
        for who, want in others:
            for name, g, ww in zip(("dW", "db", "loss"), got, want):
                ok, text = compare(np, name, g, ww)
                log(f"  vmapc vs {who}: {text}")
                if not ok:
                    failures.append(f"{case}: vs {who}: {text}")
        # The clipped gradients' norms are C where clipped, else unchanged.
        gnorm = np.sqrt((got[0].astype(np.float64) ** 2).sum((1, 2)) +
                        (got[1].astype(np.float64) ** 2).sum(1))
        want_norm = np.minimum(norm, CLIP)
        err = float(np.abs(gnorm - want_norm).max())
        log(f"  |vmapc's clipped gradient| vs min(|g|, C): max abs {err:.2e}")
        if err > TOLERANCE:
            failures.append(f"{case}: clipped norms off by {err:.2e}")

    for f in failures:
        log("FAIL: " + f)
    if failures:
        return 1
    if not have_jax:
        log(f"dpsgd_digits_check: numpy comparison passed; {jax_why}: the "
            "JAX comparison is skipped (pip install jax)")
        return SKIP
    log("dpsgd_digits_check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
