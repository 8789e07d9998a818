"""The package's API: zero-copy inputs and outputs, out=, every error path,
threads, save/load, and agreement with the vmapc CLI on the same artifact."""

import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import vmapc
from conftest import P, compiled, knn_inputs, knn_reference

SUM3 = """fn f(x: f32[3], y: i32) -> f32 {
  return sum(x) * f32(y);
}
export g = vmap(f, in_axes=(0, 0), batch=4);
"""


# ----------------------------------------------------------------------------
# Arrays in and out


def test_entries_signature_and_doc(knn):
    assert knn.entries == ["classify"]
    assert knn.classify is knn["classify"] is knn.entry("classify")
    assert knn.classify.signature == \
        "classify(q: float32[N, 64], refs: float32[1000, 64]) -> int32[N]"
    assert knn.classify.batch_size == 256
    assert knn.classify.inputs[1] == {"name": "refs", "dtype": "float32",
                                      "shape": (1000, 64),
                                      "mapped_axis": None,
                                      "donated_from": None}
    assert "refs: float32, shape (1000, 64), shared by every example" in \
        knn.classify.__doc__
    assert "TypeError" in knn.classify.__doc__


def test_numpy_inputs_reach_the_runtime_by_pointer(knn):
    q, refs = knn_inputs(300)
    idx = knn.classify(q, refs)
    np.testing.assert_array_equal(idx, knn_reference(q, refs))
    assert knn.classify._last_input_pointers() == [q.ctypes.data,
                                                   refs.ctypes.data]
    # The output is the array the runtime wrote, returned as it is.
    assert knn.classify._last_output_pointers() == [idx.ctypes.data]
    assert idx.flags.owndata and idx.flags.c_contiguous


def test_memoryview_and_dlpack_only_inputs_by_pointer(knn):
    q, refs = knn_inputs(20, seed=1)

    class DlpackOnly:
        """An array known only through DLPack, as a PyTorch tensor is."""

        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    idx = knn.classify(DlpackOnly(q), memoryview(refs))
    np.testing.assert_array_equal(idx, knn_reference(q, refs))
    assert knn.classify._last_input_pointers() == [q.ctypes.data,
                                                   refs.ctypes.data]


def test_jax_inputs_by_pointer(knn):
    jax = pytest.importorskip("jax")
    q, refs = knn_inputs(40, seed=2)
    jq, jr = jax.device_put(q), jax.device_put(refs)
    idx = knn.classify(jq, jr)
    np.testing.assert_array_equal(idx, knn_reference(q, refs))
    assert knn.classify._last_input_pointers() == [
        jq.unsafe_buffer_pointer(), jr.unsafe_buffer_pointer()]


def test_torch_inputs_by_pointer(knn):
    torch = pytest.importorskip("torch")
    q, refs = knn_inputs(40, seed=3)
    tq, tr = torch.from_numpy(q.copy()), torch.from_numpy(refs.copy())
    idx = knn.classify(tq, tr)
    np.testing.assert_array_equal(idx, knn_reference(q, refs))
    assert knn.classify._last_input_pointers() == [tq.data_ptr(),
                                                   tr.data_ptr()]


def test_other_inputs_are_converted_once(knn):
    q, refs = knn_inputs(33, seed=4)
    want = knn_reference(q, refs)
    # float64 (same_kind to float32), a strided view, a list of lists.
    q64 = q.astype(np.float64)
    np.testing.assert_array_equal(knn.classify(q64, refs), want)
    assert knn.classify._last_input_pointers()[0] != q64.ctypes.data
    wide = np.zeros((33, 128), np.float32)
    wide[:, ::2] = q
    np.testing.assert_array_equal(knn.classify(wide[:, ::2], refs), want)
    np.testing.assert_array_equal(knn.classify(q.tolist(), refs), want)


def test_out_writes_the_callers_arrays(knn):
    q, refs = knn_inputs(300, seed=5)
    out = np.full(300, -1, np.int32)
    r = knn.classify(q, refs, out=(out,))
    assert r is out
    np.testing.assert_array_equal(out, knn_reference(q, refs))
    assert knn.classify._last_output_pointers() == [out.ctypes.data]
    out2 = np.full(300, -1, np.int32)
    assert knn.classify(q, refs, out=out2) is out2  # one output: no tuple
    np.testing.assert_array_equal(out2, out)


def test_several_outputs_and_out():
    prog = P.by_name("dpsgd_step")
    m = compiled(P.arr_path(prog))
    xs = prog.inputs(np.random.default_rng(7), 37)
    got = m.per_example_grads(*xs)
    assert isinstance(got, tuple) and len(got) == 3
    outs = tuple(np.empty_like(g) for g in got)
    r = m.per_example_grads(*xs, out=outs)
    assert r == outs and all(a is b for a, b in zip(r, outs))
    for g, o in zip(got, outs):
        np.testing.assert_array_equal(g, o)


def test_n_keyword_and_empty_batches(knn):
    q, refs = knn_inputs(0)
    idx = knn.classify(q, refs)
    assert idx.shape == (0,) and idx.dtype == np.int32
    q, refs = knn_inputs(5)
    np.testing.assert_array_equal(knn.classify(q, refs, n=5),
                                  knn_reference(q, refs))
    with pytest.raises(ValueError, match="n=4 disagrees with N = 5"):
        knn.classify(q, refs, n=4)
    with pytest.raises(ValueError, match="n must be at least 0"):
        knn.classify(q, refs, n=-1)


def test_an_entry_that_maps_no_input_takes_n():
    m = vmapc.compile(source="fn f(a: f32[2]) -> f32 {\n  return sum(a);\n}\n"
                      "export g = vmap(f, in_axes=none, out_axes=0, "
                      "batch=4);\n", cpu_isa="host")
    a = np.array([1.5, 2.0], np.float32)
    with pytest.raises(TypeError, match="maps no input.*give n=N"):
        m.g(a)
    np.testing.assert_array_equal(m.g(a, n=6), np.full((6,), 3.5, np.float32))


def test_stats(knn):
    k = compiled(P.KNN_ARR)
    b = k.classify.batch_size

    def launches(n):
        before = k.stats
        q, refs = knn_inputs(n, seed=6)
        k.classify(q, refs)
        after = k.stats
        assert after["calls"] == before["calls"] + 1
        assert after["examples"] == before["examples"] + n
        return after["launches"] - before["launches"]

    # One chunk (N = B) launches the program's two dispatches. Each further
    # chunk launches those that run per chunk: both, or the distances alone
    # where the references' packing runs once per call (it reads only
    # `refs`, which every chunk shares).
    one, two, three = launches(b), launches(b + 44), launches(2 * b + 1)
    assert one == 2
    assert two - one == three - two in (1, 2)
    stats = k.stats
    assert stats["allocations"] == 1
    assert stats["arena_bytes"] >= k.plan("classify")["arena_bytes"]


# ----------------------------------------------------------------------------
# Errors


def test_compile_error_is_the_clis_text(tmp_path, cli):
    bad = tmp_path / "bad.arr"
    bad.write_text("fn f(x: f32[3]) -> f32 {\n  return sum(y);\n}\n"
                   "export g = vmap(f, batch=4);\n")
    with pytest.raises(vmapc.CompileError) as e:
        vmapc.compile(str(bad), cpu_isa="host")
    text = str(e.value)
    assert text.startswith(f"{bad}:2:14: error: unknown name 'y'")
    assert text.splitlines()[1:] == ["  return sum(y);", "             ^"]
    r = subprocess.run([cli, "compile", str(bad), "-o",
                        str(tmp_path / "bad.vmapc")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.rstrip("\n") == text
    with pytest.raises(vmapc.CompileError, match=r"^<source>:2:14: error"):
        vmapc.compile(source=bad.read_text())
    with pytest.raises(vmapc.CompileError, match=r"^mine.arr:2:14: error"):
        vmapc.compile(source=bad.read_text(), filename="mine.arr")


def test_compile_argument_errors(tmp_path, knn):
    with pytest.raises(TypeError, match="a path or source="):
        vmapc.compile()
    with pytest.raises(TypeError, match="a path or source="):
        vmapc.compile("x.arr", source="fn")
    with pytest.raises(FileNotFoundError):
        vmapc.compile(str(tmp_path / "missing.arr"))
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        vmapc.compile(source=SUM3, target="cpu,tpu")
    with pytest.raises(ValueError, match="unknown ISA level 'x86-64-v9'"):
        vmapc.compile(source=SUM3, cpu_isa="x86-64-v9")
    with pytest.raises(ValueError, match="not an sm_XY"):
        vmapc.compile(source=SUM3, target="cuda", cuda_arch="90")
    with pytest.raises(ValueError, match="threads=0 is not a positive"):
        vmapc.compile(source=SUM3, threads=0)
    with pytest.raises(TypeError, match="threads=1.5 is not an integer"):
        vmapc.compile(source=SUM3, threads=1.5)
    with pytest.raises(TypeError, match="threads=True is not an integer"):
        vmapc.compile(source=SUM3, threads=True)
    art = tmp_path / "knn.vmapc"
    knn.save(art)
    with pytest.raises(vmapc.CompileError, match="is a compiled artifact"):
        vmapc.compile(art)


def test_compile_threads_give_the_same_bytes(tmp_path):
    # threads= is `vmapc compile -j N`: the ISA levels compile on up to N
    # threads, and the artifact is the same for any N. All three levels, so
    # that two threads have two levels to share out.
    saved = []
    for threads in (1, 2, None):
        m = vmapc.compile(P.KNN_ARR, threads=threads)
        art = tmp_path / f"knn-j{threads}.vmapc"
        m.save(art)
        saved.append(art.read_bytes())
    assert saved[0] == saved[1] == saved[2]
    q, refs = knn_inputs(37, seed=5)
    np.testing.assert_array_equal(
        vmapc.load(tmp_path / "knn-j2.vmapc").classify(q, refs),
        knn_reference(q, refs))


def test_runtime_errors_carry_the_status_code(tmp_path, knn):
    with pytest.raises(vmapc.Error) as e:
        vmapc.load(tmp_path / "missing.vmapc")
    assert e.value.code == 5 and e.value.code_name == "not found"
    assert "missing.vmapc" in e.value.message
    art = tmp_path / "knn.vmapc"
    knn.save(art)
    data = bytearray(art.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "corrupt.vmapc"
    bad.write_bytes(bytes(data))
    with pytest.raises(vmapc.Error) as e:
        vmapc.load(bad)
    assert e.value.code == 15 and e.value.code_name == "data loss"
    with pytest.raises(vmapc.Error) as e:
        vmapc.load(art, device="cpu:threads=0")
    assert e.value.code == 3 and "threads" in e.value.message
    with pytest.raises(vmapc.Error) as e:
        vmapc.load(art, device="tpu")
    assert e.value.code == 5 and "unknown device" in e.value.message
    assert isinstance(e.value, RuntimeError)
    assert "[not found, code 5]" in str(e.value)


def test_call_errors_name_the_argument(knn):
    q, refs = knn_inputs(10)
    with pytest.raises(TypeError, match=r"takes 2 input\(s\) \(q, refs\), "
                                        "got 1"):
        knn.classify(q)
    with pytest.raises(TypeError, match="unexpected keyword argument 'outs'"):
        knn.classify(q, refs, outs=None)
    with pytest.raises(TypeError) as e:
        knn.classify(q[:, :63].copy(), refs)
    assert str(e.value) == (
        "classify(): input 'q' (#0) is an ndarray of shape (10, 63) and "
        "dtype float32; expected float32 of shape (N, 64) (N examples "
        "along axis 0): N = 10")
    with pytest.raises(TypeError, match=r"input 'refs' \(#1\) is an ndarray "
                       r"of shape \(999, 64\).*expected float32 of shape "
                       r"\(1000, 64\)$"):
        knn.classify(q, refs[:999])
    with pytest.raises(TypeError, match=r"input 'q' \(#0\) is an ndarray of "
                       r"shape \(10, 64\) and dtype complex64.*does not cast "
                       "complex64 to float32"):
        knn.classify(q.astype(np.complex64), refs)
    with pytest.raises(TypeError, match="input 'q'.*is a str"):
        knn.classify("q", refs)


def test_integer_inputs_refuse_floats():
    prog = P.by_name("embed_lookup")
    m = compiled(P.arr_path(prog))
    table, ids = prog.inputs(np.random.default_rng(8), 3)
    assert ids.dtype == np.int32
    with pytest.raises(TypeError, match=r"input 'ids' \(#1\) is an ndarray "
                       r"of shape \(3, 16\) and dtype float32; expected "
                       r"int32 .*does not cast float32 to int32"):
        m.embed_batch(table, ids.astype(np.float32))


def test_out_errors(knn):
    q, refs = knn_inputs(10)
    with pytest.raises(TypeError, match=r"out= takes 1 array\(s\), got 2"):
        knn.classify(q, refs, out=(np.empty(10, np.int32),) * 2)
    with pytest.raises(TypeError, match=r"out 'out' \(#0\) is an ndarray of "
                       r"shape \(10,\) and dtype int64; expected int32"):
        knn.classify(q, refs, out=(np.empty(10, np.int64),))
    with pytest.raises(TypeError, match=r"shape \(11,\).*expected int32 of "
                       r"shape \(N,\).*N = 10"):
        knn.classify(q, refs, out=(np.empty(11, np.int32),))
    ro = np.empty(10, np.int32)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="writable C-order"):
        knn.classify(q, refs, out=(ro,))
    with pytest.raises(TypeError, match="writable C-order"):
        knn.classify(q, refs, out=(np.empty(20, np.int32)[::2],))


def test_out_may_not_overlap_an_input(chain):
    prog = P.by_name("chain_4096_n256")
    xs = prog.inputs(np.random.default_rng(9), 5)
    with pytest.raises(ValueError, match="out\\[0\\] overlaps input 'x'"):
        chain.chain_batch(*xs, out=(xs[0],))


def test_unknown_entry(knn):
    with pytest.raises(KeyError, match="unknown entry 'nope'; entries are: "
                       "classify"):
        knn.entry("nope")
    with pytest.raises(AttributeError, match="entries: classify"):
        knn.nope


# ----------------------------------------------------------------------------
# Threads


def test_a_call_releases_the_gil(tmp_path, knn):
    # A thread counts in a pure-Python loop while the main thread runs a call
    # of some 0.4 s: with the GIL released it keeps counting during the call.
    art = tmp_path / "knn.vmapc"
    knn.save(art)
    m = vmapc.load(art, device="cpu:threads=1")
    q, refs = knn_inputs(20000, seed=50)
    m.classify(q, refs)
    start = time.perf_counter()
    m.classify(q, refs)
    seconds = time.perf_counter() - start
    n = min(max(int(20000 * 0.4 / max(seconds, 1e-6)), 20000), 400000)
    q, refs = knn_inputs(n, seed=51)

    count, stamps = 0, []
    running, stop = threading.Event(), threading.Event()

    def spin():
        nonlocal count
        running.set()
        while not stop.is_set():
            count += 1
            if count % 1024 == 0:
                stamps.append(time.perf_counter())

    counter = threading.Thread(target=spin)
    counter.start()
    try:
        assert running.wait(30)
        before, t0 = count, time.perf_counter()
        idx = m.classify(q, refs)
        t1, after = time.perf_counter(), count
    finally:
        stop.set()
        counter.join()
    assert after - before > 0, f"the counter stood still during a " \
        f"{t1 - t0:.3f} s call (N = {n}): the GIL was held"
    # Not only in the moments around the call (a GIL switch there could
    # count a little even if the call held the GIL): in its middle third.
    third = (t1 - t0) / 3
    assert any(t0 + third < s < t1 - third for s in stamps), \
        f"the counter did not run in the middle of a {t1 - t0:.3f} s call"
    assert idx.shape == (n,)
    np.testing.assert_array_equal(idx[:200],
                                  knn_reference(q[:200], refs))


def test_two_modules_on_two_threads(tmp_path, knn):
    art = tmp_path / "knn.vmapc"
    knn.save(art)
    modules = [vmapc.load(art, device="cpu:threads=1") for _ in range(2)]
    inputs = [knn_inputs(600, seed=10 + i) for i in range(2)]
    want = [knn_reference(*x) for x in inputs]
    results, errors = [[], []], []

    def work(i):
        try:
            for _ in range(5):
                results[i].append(modules[i].classify(*inputs[i]))
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for i in range(2):
        assert len(results[i]) == 5
        for r in results[i]:
            np.testing.assert_array_equal(r, want[i])


def test_one_module_on_two_threads_runs_one_call_at_a_time(knn):
    # Without the module's lock the runtime refuses a call made while another
    # runs ("this executable is running a call on another thread").
    inputs = [knn_inputs(600, seed=20 + i) for i in range(2)]
    want = [knn_reference(*x) for x in inputs]
    errors, done = [], [0, 0]

    def work(i):
        try:
            for _ in range(8):
                np.testing.assert_array_equal(knn.classify(*inputs[i]),
                                              want[i])
                done[i] += 1
        except Exception as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and done == [8, 8]


# ----------------------------------------------------------------------------
# save / load, the plan, and the CLI


def test_save_and_load(tmp_path, knn):
    art = tmp_path / "knn.vmapc"
    knn.save(art)
    m2 = vmapc.load(str(art), device="cpu:threads=2")
    assert m2.entries == knn.entries
    assert m2.device.startswith("cpu: 2 threads")
    assert m2.code_level == vmapc.host_cpu_isa()
    q, refs = knn_inputs(513, seed=30)
    np.testing.assert_array_equal(m2.classify(q, refs), knn.classify(q, refs))
    plan, loaded = knn.plan("classify"), m2.plan("classify")
    assert loaded["buffers"] is None
    for key in ("arena_bytes", "lower_bound", "naive_sum", "in_place"):
        assert loaded[key] == plan[key]
    assert m2.stats["allocations"] == 1


def test_plan_is_the_clis(tmp_path, cli, knn):
    out, svg = tmp_path / "plan.json", tmp_path / "plan.svg"
    subprocess.run([cli, "plan", P.KNN_ARR, "--json", str(out), "--svg",
                    str(svg)], check=True, capture_output=True)
    (want,) = json.loads(out.read_text())
    got = knn.plan()
    assert isinstance(got, vmapc.Plan) and got["entry"] == "classify"
    assert got == want
    assert got["arena_bytes"] >= got["lower_bound"] > 0
    # The notebook's picture is `vmapc plan --svg`'s.
    assert got._repr_svg_() == svg.read_text()
    assert knn.plan("classify") == got


def test_plan_options_follow_compile(cli, tmp_path):
    arr = P.arr_path(P.by_name("mlp_64_32_10"))
    m = vmapc.compile(arr, cpu_isa="host", arena_alignment=256,
                      buffer_reuse=False)
    out = tmp_path / "plan.json"
    subprocess.run([cli, "plan", arr, "--arena-alignment=256",
                    "--no-buffer-reuse", "--json", str(out)], check=True,
                   capture_output=True)
    (want,) = json.loads(out.read_text())
    got = m.plan()
    assert got == want
    assert got["alignment"] == 256 and got["in_place"] == 0
    assert all(b["offset"] % 256 == 0 for b in got["buffers"])
    with pytest.raises(ValueError, match="arena_alignment=48 is not a power"):
        vmapc.compile(arr, arena_alignment=48)


@pytest.mark.parametrize("name", ["knn_digits", "chain_4096_n256",
                                  "dpsgd_step"])
def test_results_equal_the_clis_on_the_same_artifact(tmp_path, cli, name):
    prog = P.by_name(name)
    m = compiled(P.arr_path(prog))
    art = tmp_path / "prog.vmapc"
    m.save(art)
    xs = prog.inputs(np.random.default_rng(40), 300)
    args = [cli, "run", str(art)]
    for i, x in enumerate(xs):
        np.save(tmp_path / f"in{i}.npy", x)
        args += ["--input", str(tmp_path / f"in{i}.npy")]
    got = m[m.entries[0]](*xs)
    got = list(got) if isinstance(got, tuple) else [got]
    for i in range(len(got)):
        args += ["--output", str(tmp_path / f"out{i}.npy")]
    subprocess.run(args, check=True, capture_output=True)
    for i, g in enumerate(got):
        np.testing.assert_array_equal(np.load(tmp_path / f"out{i}.npy"), g)


def test_version_is_the_repositorys():
    from conftest import REPO_ROOT

    with open(os.path.join(REPO_ROOT, "VERSION")) as f:
        assert vmapc.__version__ == f.read().strip()
