#!/usr/bin/env python3
"""vmapc-mpi-run on 1, 2 and 3 ranks against `vmapc run` in one process.

    mpi_run_test.py --vmapc BIN --tool BIN --work-dir DIR
                    [--mpirun mpirun] [--fake-cuda LIB]

Runs on loopback (`mpirun --allow-run-as-root --oversubscribe -np K --mca btl
self,vader`, OMPI_MCA_btl_vader_single_copy_mechanism=none as in containers)
and checks:

- results: every output of the tool is byte-identical (`cmp`) to `vmapc run`'s
  on the same artifact and inputs, for N = 0, N < K, N not a multiple of K x B
  and larger N, on the programs of programs.arr (inputs mapped on axis 0, on
  axis 1 of a matrix, on the middle axis of a 3-d array; outputs mapped on
  axes 0, 1, 2, of f32, i32 and bool, and unmapped; an entry that maps no
  input) and examples/knn_digits.arr; on 1 rank, 2, 3, and on 2 with
  --mpi-max-count 7, which makes the tool split every count above 7 into
  nested datatypes as it splits those above INT_MAX (the path that moves
  arrays of 2^31 bytes and more), on arrays of a few bytes;
- the split: 11 examples over 3 ranks are [0, 4), [4, 8), [8, 11);
- devices: `cpu` ranks divide the CPUs of their node (with --bind-to none,
  each gets half), an explicit cpu:threads=K or VMAPC_CPU_THREADS wins;
- failures: a bad input on rank 0, a device one rank cannot open
  (VMAPC_CPU_ISA on that rank alone, through an MPMD launch), an artifact one
  rank cannot load, ranks that run different entries, and bad arguments on
  every rank: the job ends (never hangs: each launch has a timeout), every
  rank exits non-zero, and the failing rank's message with its status is
  printed once, naming the rank;
- with --fake-cuda (the runtime's fake driver, libvmapc_fake_cuda.so: one
  GPU) and ptxas: `--device cuda` puts rank 0 on cuda:0 and rank 1 on
  cuda:1, which that driver does not have; cuda:0 on both runs.

With VMAPC_MPI_TEST_LARGE=1 it also runs an output of more than 2^32 bytes
(16385 examples of 256 KiB, of which each rank's share is 2^31 bytes or
more, so that the default limit splits it; about 7 GiB of memory and 9 GiB
of disk) on 2 ranks and compares it with `vmapc run`'s.

Exit status 0 when every check passes, 77 (skipped, with a message) when
mpirun is not installed, 1 otherwise. Uses the Python standard library only.
"""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_S = 300  # per launch: a hang fails the test instead of CI

failures = []


def check(condition, what, detail=""):
    if condition:
        print("ok:", what)
    else:
        print("FAIL:", what)
        if detail:
            print("  " + detail.replace("\n", "\n  "))
        failures.append(what)


def write_npy(path, dtype, shape, values):
    """A .npy file (format 1.0): dtype 'f4' or 'i4', C order."""
    descr = {"f4": "<f4", "i4": "<i4"}[dtype]
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    pack = "<%d%s" % (len(values), "f" if dtype == "f4" else "i")
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack(pack, *values))


def random_f32(rng, count, scale=4.0):
    return [rng.uniform(-scale, scale) for _ in range(count)]


class Runner:
    def __init__(self, args):
        self.args = args
        self.work = args.work_dir
        self.vmapc_env = dict(os.environ)
        self.env = dict(os.environ)
        self.env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
        # Under ASan (scripts/test-sanitized.sh): Open MPI keeps what
        # MPI_Init allocates past MPI_Finalize. lsan.supp names its
        # libraries, which LeakSanitizer sees in the allocations' stacks
        # with the slow unwinder.
        lsan = self.env.get("LSAN_OPTIONS", "")
        self.env["LSAN_OPTIONS"] = (lsan + ":" if lsan else "") + \
            "suppressions=" + os.path.join(HERE, "lsan.supp")
        if self.env.get("ASAN_OPTIONS"):
            self.env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
        # mpirun's own notes ("N processes returned a non-zero exit code")
        # stay; the tool's messages are checked by pattern.
        self.mpirun = [args.mpirun, "--allow-run-as-root", "--oversubscribe",
                       "--mca", "btl", "self,vader"]

    def path(self, name):
        return os.path.join(self.work, name)

    def run(self, cmd, env=None):
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               env=env or self.env, timeout=TIMEOUT_S)
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            out = e.stdout or ""
            if isinstance(out, bytes):
                out = out.decode(errors="replace")
            return "timeout", out

    def vmapc(self, *args):
        return self.run([self.args.vmapc] + list(args), self.vmapc_env)

    def tool(self, ranks, args, extra_mpirun=(), env=None):
        cmd = self.mpirun + list(extra_mpirun) + ["-np", str(ranks),
                                                  self.args.tool] + list(args)
        return self.run(cmd, env)

    def mpmd(self, contexts, extra_mpirun=()):
        """One rank per context: (env prefix list, tool arguments)."""
        cmd = self.mpirun + list(extra_mpirun)
        for i, (prefix, args) in enumerate(contexts):
            if i:
                cmd.append(":")
            cmd += ["-np", "1"] + list(prefix) + [self.args.tool] + list(args)
        return self.run(cmd)


def run_args(artifact, entry, inputs, outputs, extra=()):
    args = [artifact, "--entry", entry]
    for i in inputs:
        args += ["--input", i]
    for o in outputs:
        args += ["--output", o]
    return args + list(extra)


def same_files(a_list, b_list):
    for a, b in zip(a_list, b_list):
        if subprocess.run(["cmp", "-s", a, b]).returncode != 0:
            return False, "%s and %s differ" % (a, b)
    return True, ""


def compare_case(r, name, artifact, entry, inputs, noutputs, extra=(),
                 configs=None):
    """`vmapc run` once, then the tool in each configuration; cmp."""
    ref = [r.path("%s.ref%d.npy" % (name, i)) for i in range(noutputs)]
    rc, out = r.vmapc("run", *run_args(artifact, entry, inputs, ref, extra))
    if rc != 0:
        check(False, "%s: vmapc run" % name, out)
        return
    for label, ranks, options in configs:
        got = [r.path("%s.%s.out%d.npy" % (name, label, i))
               for i in range(noutputs)]
        for g in got:
            if os.path.exists(g):
                os.remove(g)
        rc, out = r.tool(ranks, run_args(artifact, entry, inputs, got,
                                         list(extra) + list(options)))
        if rc != 0:
            check(False, "%s on %s: exit status %s" % (name, label, rc), out)
            continue
        same, why = same_files(ref, got)
        check(same, "%s on %s: %d output(s) identical to vmapc run" %
              (name, label, noutputs), why)


CONFIGS = [("1 rank", 1, []),
           ("2 ranks", 2, []),
           ("3 ranks", 3, []),
           ("2 ranks --mpi-max-count 7", 2, ["--mpi-max-count", "7"])]


def test_results(r, prog, knn):
    rng = random.Random(7)
    w = r.path("w.npy")
    b = r.path("b.npy")
    write_npy(w, "f4", [3, 2], random_f32(rng, 6))
    write_npy(b, "f4", [2], random_f32(rng, 2))
    t = r.path("t.npy")
    w3 = r.path("w3.npy")
    write_npy(t, "f4", [], [0.75])
    write_npy(w3, "f4", [3], random_f32(rng, 3))
    # B = 2 (affine), 4 (mixed, fill): K x B = 4, 6, 8; 7 and 11 are
    # multiples of none.
    for n in [0, 1, 7, 13]:
        x = r.path("x0_%d.npy" % n)
        write_npy(x, "f4", [n, 3], random_f32(rng, 3 * n))
        compare_case(r, "affine0 N=%d" % n, prog, "affine0", [x, w, b], 1,
                     configs=CONFIGS)
    for n in [0, 1, 7]:
        x = r.path("x1_%d.npy" % n)
        write_npy(x, "f4", [3, n], random_f32(rng, 3 * n))
        compare_case(r, "affine1 N=%d" % n, prog, "affine1", [x, w, b], 1,
                     configs=CONFIGS)
    for n in [0, 1, 7, 11]:
        x = r.path("xm_%d.npy" % n)
        write_npy(x, "f4", [4, n, 3], random_f32(rng, 12 * n))
        compare_case(r, "mixed_e N=%d" % n, prog, "mixed_e", [x, t, w3], 5,
                     configs=CONFIGS)
    for n in [0, 1, 7]:
        compare_case(r, "fill_e N=%d" % n, prog, "fill_e", [t], 1,
                     extra=["--num-examples", str(n)], configs=CONFIGS)
    # The kNN example: B = 256, 1000 shared references of 64 pixels.
    refs = r.path("refs.npy")
    write_npy(refs, "f4", [1000, 64],
              [float(rng.randrange(17)) for _ in range(64000)])
    for n in [0, 1, 797]:
        q = r.path("q_%d.npy" % n)
        write_npy(q, "f4", [n, 64], [float(rng.randrange(17))
                                     for _ in range(64 * n)])
        compare_case(r, "knn N=%d" % n, knn, "classify", [q, refs], 1,
                     configs=CONFIGS)


def test_verbose(r, prog):
    x = r.path("xm_11.npy")
    ins = [x, r.path("t.npy"), r.path("w3.npy")]
    outs = [r.path("v%d.npy" % i) for i in range(5)]
    rc, out = r.tool(3, run_args(prog, "mixed_e", ins, outs,
                                 ["--verbose", "--mpi-max-count", "7"]))
    spans = re.findall(r"rank (\d) of 3 .*examples \[(\d+), (\d+)\) of 11",
                       out)
    check(rc == 0 and spans == [("0", "0", "4"), ("1", "4", "8"),
                                ("2", "8", "11")],
          "11 examples over 3 ranks: [0, 4), [4, 8), [8, 11)", out)
    check(re.search(r"scatter input 'x' \(axis 1\), rank 1: examples \[4, 8\),"
                    r" 4 blocks of 48 bytes 132 bytes apart \(\d+ counts? over"
                    r" the limit split into nested types\)", out) is not None,
          "the axis-1 input moves as 4 blocks per rank, counts over "
          "--mpi-max-count split", out)
    rc, out = r.tool(2, run_args(prog, "mixed_e", ins, outs[:], ["--verbose"]))
    check(rc == 0 and "split into nested types" not in out,
          "nothing is split under the default limit (INT_MAX)", out)


def test_devices(r, prog):
    ins = [r.path("x0_7.npy"), r.path("w.npy"), r.path("b.npy")]
    outs = [r.path("dev.npy")]
    cpus = len(os.sched_getaffinity(0))
    share = max(1, cpus // 2)
    rc, out = r.tool(2, run_args(prog, "affine0", ins, outs, ["--verbose"]),
                     extra_mpirun=["--bind-to", "none"])
    want = "device cpu:threads=%d (cpu: %d thread" % (share, share)
    check(rc == 0 and out.count(want) == 2,
          "cpu: 2 ranks of one node on %d CPUs get %d thread(s) each" %
          (cpus, share), out)
    rc, out = r.tool(2, run_args(prog, "affine0", ins, outs,
                                 ["--verbose", "--device", "cpu:threads=2"]),
                     extra_mpirun=["--bind-to", "none"])
    check(rc == 0 and out.count("device cpu:threads=2 (cpu: 2 threads") == 2,
          "an explicit cpu:threads=2 wins", out)
    env = dict(r.env, VMAPC_CPU_THREADS="2")
    rc, out = r.tool(2, run_args(prog, "affine0", ins, outs, ["--verbose"]),
                     extra_mpirun=["--bind-to", "none"], env=env)
    check(rc == 0 and out.count("device cpu (cpu: 2 threads") == 2,
          "VMAPC_CPU_THREADS=2 wins", out)


def expect_failure(what, rc, out, pattern):
    """Non-zero, the tool's error printed once, matching `pattern`."""
    errors = re.findall(r"^vmapc-mpi-run: error: .*$", out, re.M)
    ok = (rc not in (0, "timeout") and len(errors) == 1 and
          re.search(pattern, errors[0]) is not None)
    check(ok, what, "exit status %s; output:\n%s" % (rc, out))


def test_failures(r, prog):
    w, b = r.path("w.npy"), r.path("b.npy")
    bad = r.path("bad_x.npy")
    write_npy(bad, "f4", [5, 4], [0.0] * 20)
    outs = [r.path("fail.npy")]
    good = run_args(prog, "affine0", [r.path("x0_7.npy"), w, b], outs)

    rc, out = r.tool(2, run_args(prog, "affine0", [bad, w, b], outs))
    expect_failure("a bad input on rank 0", rc, out,
                   r"rank 0 of 2 \(.*\): .*bad_x\.npy: input 'x': expected "
                   r"shape \[N, 3\] \(axis 0 mapped, N = 5\), got \[5, 4\] "
                   r"\[invalid argument\]$")
    rc, out = r.tool(2, run_args(prog, "affine0",
                                 [r.path("missing.npy"), w, b], outs))
    expect_failure("a missing input on rank 0", rc, out,
                   r"rank 0 of 2 \(.*\): .*missing\.npy: cannot open: .* "
                   r"\[not found\]$")
    rc, out = r.mpmd([([], good),
                      (["env", "VMAPC_CPU_ISA=x86-64-v9"], good)])
    expect_failure("a device rank 1 cannot open (VMAPC_CPU_ISA there)", rc,
                   out, r"rank 1 of 2 \(.*\): VMAPC_CPU_ISA: cpu device: isa "
                   r"must be .*got 'x86-64-v9' \[invalid argument\]$")
    missing = [r.path("missing.vmapc")] + good[1:]
    rc, out = r.mpmd([([], good), ([], missing)])
    expect_failure("an artifact rank 1 cannot load", rc, out,
                   r"rank 1 of 2 \(.*\): .*missing\.vmapc: cannot open: .* "
                   r"\[not found\]$")
    other = [prog, "--entry", "affine1"] + good[3:]
    rc, out = r.mpmd([([], good), ([], other)])
    expect_failure("ranks that run different entries", rc, out,
                   r"rank 1 of 2 \(.*\): .*: entry affine1\(x: f32\[3\] axis "
                   r"1, .*differs from rank 0's entry affine0\(x: f32\[3\] "
                   r"axis 0, .*\[invalid argument\]$")
    rc, out = r.tool(2, good + ["--mpi-max-count", "1"])
    expect_failure("bad arguments on every rank, printed once", rc, out,
                   r"ranks 0-1 of 2: --mpi-max-count takes an integer in "
                   r"\[2, 2147483647\], got '1' \[invalid argument\]$")
    rc, out = r.tool(2, run_args(prog, "affine0", [w, b], outs))
    expect_failure("too few --input files", rc, out,
                   r"ranks 0-1 of 2: entry 'affine0' takes 3 inputs, got 2 "
                   r"--input files")
    src = os.path.join(HERE, "programs.arr")
    rc, out = r.tool(2, [src] + good[1:])
    expect_failure(".arr source", rc, out,
                   r"'.*programs\.arr' is \.arr source; this tool runs "
                   r"compiled artifacts")


def test_fake_cuda(r):
    if not r.args.fake_cuda or not os.path.exists(r.args.fake_cuda):
        print("skip: the CUDA device checks (no fake CUDA driver given)")
        return
    art = r.path("prog-cuda.vmapc")
    rc, out = r.vmapc("compile", "--target=cpu,cuda",
                      os.path.join(HERE, "programs.arr"), "-o", art)
    if rc != 0:
        print("skip: the CUDA device checks (vmapc compile --target=cuda "
              "failed: no ptxas?)\n" + out)
        return
    env = dict(r.env, VMAPC_CUDA_DRIVER=r.args.fake_cuda)
    ins = [r.path("x0_7.npy"), r.path("w.npy"), r.path("b.npy")]
    outs = [r.path("cuda.npy")]
    rc, out = r.tool(2, run_args(art, "affine0", ins, outs,
                                 ["--device", "cuda"]), env=env)
    expect_failure("--device cuda: rank 1 gets cuda:1, which a 1-GPU driver "
                   "lacks", rc, out,
                   r"rank 1 of 2 \(.*\): --device cuda gives each rank "
                   r"cuda:<its rank within the node>, here cuda:1 \(2 ranks "
                   r"on this node\): no CUDA device: cuda:1 does not exist "
                   r"\(1 device\) \[not found\]$")
    rc, out = r.tool(2, run_args(art, "affine0", ins, outs,
                                 ["--device", "cuda:0", "--verbose"]), env=env)
    check(rc == 0 and out.count("device cuda:0 (cuda:0") == 2,
          "--device cuda:0 puts both ranks on cuda:0 (fake driver)", out)


def test_large(r, prog):
    if os.environ.get("VMAPC_MPI_TEST_LARGE") != "1":
        print("skip: the output over 2^32 bytes (set VMAPC_MPI_TEST_LARGE=1)")
        return
    n = 16385  # x 256 KiB = 4295229440 bytes; rank 1 gets 2^31 of them
    s = r.path("spread_in.npy")
    write_npy(s, "f4", [n], [float(i % 1000) for i in range(n)])
    ref, got = r.path("spread_ref.npy"), r.path("spread_out.npy")
    try:
        rc, out = r.vmapc("run", *run_args(prog, "spread_e", [s], [ref]))
        check(rc == 0, "large: vmapc run", out)
        rc, out = r.tool(2, run_args(prog, "spread_e", [s], [got],
                                     ["--verbose"]))
        check(rc == 0, "large: 2 ranks", out)
        print(out)
        same, why = same_files([ref], [got])
        check(rc == 0 and same and os.path.getsize(got) > 2**32 and
              "over the limit split" in out,
              "an output of %d bytes identical to vmapc run" %
              (os.path.getsize(got) if os.path.exists(got) else 0), why)
    finally:
        for f in (ref, got):
            if os.path.exists(f):
                os.remove(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--vmapc", required=True)
    p.add_argument("--tool", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--fake-cuda", default="")
    args = p.parse_args()
    if shutil.which(args.mpirun) is None:
        print("skipped: %s not found (install openmpi-bin)" % args.mpirun)
        return 77
    os.makedirs(args.work_dir, exist_ok=True)
    r = Runner(args)
    prog = r.path("prog.vmapc")
    knn = r.path("knn.vmapc")
    for src, art in [(os.path.join(HERE, "programs.arr"), prog),
                     (os.path.join(ROOT, "examples", "knn_digits.arr"), knn)]:
        rc, out = r.vmapc("compile", src, "-o", art)
        if rc != 0:
            print("FAIL: vmapc compile %s\n%s" % (src, out))
            return 1
    test_results(r, prog, knn)
    test_verbose(r, prog)
    test_devices(r, prog)
    test_failures(r, prog)
    test_fake_cuda(r)
    test_large(r, prog)
    if failures:
        print("%d check(s) failed: %s" % (len(failures), "; ".join(failures)))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
