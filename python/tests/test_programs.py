"""Every example and bench program through vmapc.compile, against its
float64 (or exact) reference and against jax.vmap of the per-example
function, at N = 0, 1 and a count that is not a multiple of the batch B."""

import re

import numpy as np
import pytest

from conftest import P, compiled

N_NAMES = ("zero", "one", "ragged")


def batch_of(arr):
    with open(arr) as f:
        return int(re.search(r"\bbatch\s*=\s*(\d+)", f.read()).group(1))


def counts(arr):
    b = batch_of(arr)
    return {"zero": 0, "one": 1, "ragged": b + b // 2 + 1}


# One row per .arr file (chain_4096 has two rows in the bench, one file).
ROWS = list({P.arr_path(p): p for p in P.PROGRAMS}.values())


def close(out, ref, prog, what):
    out = np.asarray(out)
    ref = np.asarray(ref)
    assert out.shape == ref.shape, f"{what}: shape {out.shape} != {ref.shape}"
    if ref.size == 0:
        return
    if prog.kind == "knn" or ref.dtype.kind in "iub":
        np.testing.assert_array_equal(out.astype(np.int64),
                                      ref.astype(np.int64), err_msg=what)
        return
    scale = float(np.abs(ref).max()) or 1.0
    err = float(np.abs(out.astype(np.float64) - ref).max()) / scale
    assert np.isfinite(out).all(), f"{what}: non-finite outputs"
    assert err <= P.FLOAT_TOLERANCE, f"{what}: error {err:.2e} of max |ref|"


@pytest.mark.parametrize("which", N_NAMES)
@pytest.mark.parametrize("prog", ROWS, ids=[p.name for p in ROWS])
def test_program_against_references(prog, which):
    arr = P.arr_path(prog)
    m = compiled(arr)
    assert len(m.entries) == 1
    entry = m[m.entries[0]]
    n = counts(arr)[which]
    xs = prog.inputs(np.random.default_rng(20261201 + n), n)
    outs = entry(*xs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    if n == 0 and prog.name == "histogram":
        # Its reference stacks per-example counts, of which there are none.
        refs = [np.zeros((0, 32), np.int32)]
    else:
        refs = prog.reference(xs)
    assert len(outs) == len(refs)
    for i, (out, ref) in enumerate(zip(outs, refs)):
        assert isinstance(out, np.ndarray)
        assert out.dtype == np.dtype(entry.outputs[i]["dtype"])
        close(out, ref, prog, f"{prog.name} N={n} output {i} vs float64")

    jax = pytest.importorskip("jax")
    fn = jax.jit(jax.vmap(prog.jax_fn, in_axes=prog.in_axes))
    jouts = fn(*xs)
    jouts = list(jouts) if isinstance(jouts, (tuple, list)) else [jouts]
    for i, (out, jout) in enumerate(zip(outs, jouts)):
        jout = np.asarray(jout)
        if jout.dtype.kind == "f":
            jout = jout.astype(np.float64)
        close(out, jout, prog, f"{prog.name} N={n} output {i} vs jax.vmap")
