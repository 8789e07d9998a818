#!/usr/bin/env bash
# The one script for the GPU machine (docs/gpu.md). That machine has CUDA,
# CMake, Ninja, g++ and Python with JAX and numpy, but no LLVM/MLIR: the
# artifacts come compiled from test/gpu/prepare.sh (build/gpu-artifacts).
# In order, each step under a timeout, all logged:
#
#   facts     the machine, the GPU, the tools, what prepare.sh compiled
#   ptx       the PTX checks (lit tests under test/gpu/: ptxas -arch=sm_90)
#             where a build tree with LLVM exists; skipped on the GPU machine
#   runtime   the runtime alone (cmake -S runtime), installed as a package
#   hosts     test/gpu/host (vmapc-gpu-check, vmapc-gpu-bench) against it
#   tests     every line of test/gpu/checks.txt on cuda:0 against the CPU
#             (fresh random data, poisoned outputs, per-op tolerances), with
#             host arrays and with device arrays
#   copy      device-to-device copy bandwidth (1 GiB, median of 20)
#   bench     bench/gpu_bench.py: vmapc and JAX on the bench programs, at
#             their bench N and at a large N
#
# Without a GPU (a development machine, CI) it runs the CPU path: the same
# builds, the tests on `cpu` against `cpu:isa=x86-64` (the artifacts load
# and run, the host compares), the bench table's script on the CPU at small
# N; it says "no GPU: skipped the device runs" and exits 0 when all that
# passes. Exit status: 0 when every step passed, 1 otherwise (the summary
# names the failed steps).
#
#   bash test/gpu/check.sh [--no-bench]
#
# Environment: ARTIFACTS (default <repo>/build/gpu-artifacts), WORK
# (default <repo>/build-gpu: the builds), RESULTS (default $OUT when set,
# else $WORK/results: check.log, tests.txt, copy.json, bench.md,
# bench.json), JOBS (default nproc), BUILD and LLVM_ROOT (the LLVM build
# tree for the PTX step: <repo>/build, /usr/lib/llvm-22), CUDA_HOME
# (/usr/local/cuda), and T_RUNTIME, T_HOSTS, T_TESTS, T_COPY, T_BENCH
# (each step's timeout in seconds).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export ROOT
export ARTIFACTS=${ARTIFACTS:-$ROOT/build/gpu-artifacts}
export WORK=${WORK:-$ROOT/build-gpu}
export RESULTS=${RESULTS:-${OUT:-$WORK/results}}
export JOBS=${JOBS:-$(nproc)}
export BUILD=${BUILD:-$ROOT/build}
export LLVM_ROOT=${LLVM_ROOT:-/usr/lib/llvm-22}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONUNBUFFERED=1
BENCH=1
for arg in "$@"; do
  case $arg in
    --no-bench) BENCH=0 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "check.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

mkdir -p "$WORK" "$RESULTS"
rm -f "$RESULTS"/{tests.txt,copy.json,bench.md,bench.json}
LOG=$RESULTS/check.log
: >"$LOG"
exec > >(tee -a "$LOG") 2>&1

HOST_DIR=$WORK/host
export GPU=0 # set by the probe
summary=()
failed=()

# step NAME SECONDS FUNCTION: runs FUNCTION in a fresh bash under a timeout.
step() {
  local name=$1 secs=$2 fn=$3 t0 rc
  echo
  echo "== $name (timeout ${secs} s)"
  t0=$(date +%s)
  set +e
  timeout -k 10 "$secs" bash -c "set -euo pipefail; $fn"
  rc=$?
  set -e
  local dt=$(($(date +%s) - t0))
  if ((rc == 0)); then
    summary+=("$(printf '%-8s ok       %4d s' "$name" "$dt")")
  elif ((rc == 124 || rc == 137)); then
    summary+=("$(printf '%-8s TIMEOUT  %4d s (limit %d s)' "$name" "$dt" "$secs")")
    failed+=("$name")
  else
    summary+=("$(printf '%-8s FAILED   %4d s (exit %d)' "$name" "$dt" "$rc")")
    failed+=("$name")
  fi
  return 0
}
skip() {
  echo
  echo "== $1: skipped: $2"
  summary+=("$(printf '%-8s skipped  (%s)' "$1" "$2")")
}

facts() {
  echo "date:    $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "machine: $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem \
      --format=csv,noheader 2>&1 | sed 's/^/gpu:     /' || true
  else
    echo "gpu:     no nvidia-smi"
  fi
  echo "cmake:   $(cmake --version | head -1)"
  echo "c++:     $(c++ --version | head -1)"
  if [[ -x $CUDA_HOME/bin/nvcc ]]; then
    echo "nvcc:    $("$CUDA_HOME/bin/nvcc" --version | tail -1)"
  else
    echo "nvcc:    none at $CUDA_HOME"
  fi
  python3 - <<'PY' || true
import importlib
for name in ("numpy", "jax", "jaxlib"):
    try:
        print(f"{name + ':':8} {importlib.import_module(name).__version__}")
    except Exception as e:
        print(f"{name + ':':8} not importable ({type(e).__name__})")
PY
  if [[ -f $ARTIFACTS/prepared.txt ]]; then
    echo "artifacts ($ARTIFACTS):"
    sed 's/^/  /' "$ARTIFACTS/prepared.txt"
    local head
    head=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true)
    if [[ -n $head ]] && ! grep -q "^commit: *$head" "$ARTIFACTS/prepared.txt"; then
      echo "note: the artifacts were compiled at another commit than HEAD ($head)"
    fi
  else
    echo "no $ARTIFACTS/prepared.txt: run test/gpu/prepare.sh where vmapc builds" \
         "and copy build/gpu-artifacts with the checkout (docs/gpu.md)"
    return 1
  fi
}

ptx() {
  local lock=()
  command -v flock >/dev/null && lock=(flock /tmp/vmapc-build.lock)
  "${lock[@]}" ninja -C "$BUILD" -j"$JOBS" vmapc-opt vmapc
  # CI=true: a missing ptxas fails the tests instead of marking them
  # unsupported.
  CI=true "$LLVM_ROOT/bin/lit" -v "$BUILD/test" --filter 'gpu/'
  echo
  echo "ptxas -arch=sm_90 -v, kNN kernels:"
  local f="$BUILD/test/gpu/Output/knn-ptx.arr.tmp.ptx"
  [[ -f $f ]] && "$CUDA_HOME/bin/ptxas" -arch=sm_90 -v -o /dev/null "$f" 2>&1 |
    grep -E "Compiling entry|Used [0-9]* registers" | sed 's/^ptxas info *: */  /'
  true
}

runtime() {
  # The CUDA backend is built wherever cuda.h is; required where it is here.
  local cuda=(-DCUDAToolkit_ROOT="$CUDA_HOME")
  [[ -f $CUDA_HOME/include/cuda.h ]] && cuda+=(-DVMAPC_CUDA=ON)
  cmake -G Ninja -S "$ROOT/runtime" -B "$WORK/runtime" -DCMAKE_BUILD_TYPE=Release \
    -DVMAPC_RUNTIME_BUILD_TESTS=OFF "${cuda[@]}" >"$WORK/runtime-cmake.log" 2>&1 ||
    { cat "$WORK/runtime-cmake.log"; return 1; }
  grep -E 'CUDA backend|cuda\.h' "$WORK/runtime-cmake.log" || true
  ninja -C "$WORK/runtime" -j"$JOBS"
  cmake --install "$WORK/runtime" --prefix "$WORK/prefix" >/dev/null
}

hosts() {
  cmake -G Ninja -S "$ROOT/test/gpu/host" -B "$HOST_DIR" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$WORK/prefix" -DCUDAToolkit_ROOT="$CUDA_HOME" \
    >"$WORK/host-cmake.log" 2>&1 || { cat "$WORK/host-cmake.log"; return 1; }
  ninja -C "$HOST_DIR" -j"$JOBS"
}

tests() {
  local device=cpu reference=cpu:isa=x86-64
  if ((GPU)); then
    device=cuda:0
    reference=cpu
    grep -q '^targets: .*cuda' "$ARTIFACTS/prepared.txt" || {
      echo "the artifacts have no CUDA code ($(grep '^targets' "$ARTIFACTS/prepared.txt")):"
      echo "prepare.sh must run with a vmapc whose compile has --target=cpu,cuda"
      return 1
    }
  fi
  [[ $(uname -m) == x86_64 ]] || {
    echo "the CPU reference needs x86-64 (the artifacts' CPU code); this is $(uname -m)"
    return 1
  }
  "$HOST_DIR/vmapc-gpu-check" --checks "$ROOT/test/gpu/checks.txt" \
    --artifacts "$ARTIFACTS" --device "$device" --reference "$reference" |
    tee "$RESULTS/tests.txt"
}

copy() {
  # copy.json only once measured: the bench measures it again otherwise.
  "$HOST_DIR/vmapc-gpu-bench" --copy-bytes $((1 << 30)) --copy-repeats 20 \
    --device cuda:0 >"$WORK/copy.json"
  mv "$WORK/copy.json" "$RESULTS/copy.json"
  python3 - "$RESULTS/copy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, g = d["copy"], d["gpu"]
gbps = lambda x: "n/a" if x is None else f"{x:.0f}"
print(f"{g['name']} ({g['sm']}, {g['multiprocessors']} SMs, "
      f"{g['memory_bytes'] / 2**30:.0f} GiB, L2 {g['l2_bytes'] / 2**20:.0f} MiB, "
      f"driver {g['driver_version']}): device-to-device copy "
      f"{gbps(c['median_gbps'])} GB/s median (best {gbps(c['best_gbps'])}), "
      f"read + write of {c['bytes'] / 2**30:.2f} GiB x {c['repeats']}")
PY
}

bench() {
  local args=(--host "$HOST_DIR/vmapc-gpu-bench" --artifacts "$ARTIFACTS"
              --json "$RESULTS/bench.json" --markdown "$RESULTS/bench.md"
              --work "$WORK/bench-work")
  if ((GPU)); then
    # The copy step's bandwidth, or the script measures it itself.
    [[ -s $RESULTS/copy.json ]] && args+=(--copy-json "$RESULTS/copy.json")
    python3 "$ROOT/bench/gpu_bench.py" "${args[@]}" --device cuda:0
  else
    # The CPU path: the script, the host and the JAX worker end to end on
    # three small rows (no timing goal means anything here).
    python3 "$ROOT/bench/gpu_bench.py" "${args[@]}" --device cpu --no-large \
      --programs knn_digits,mlp_64_32_10,chain_4096_n256 --runs 3 --warmup 1
  fi
}

export HOST_DIR
export -f facts ptx runtime hosts tests copy bench

step facts 30 facts
if [[ -d $LLVM_ROOT/lib/cmake/mlir && -f $BUILD/build.ninja && -x $CUDA_HOME/bin/ptxas ]]; then
  step ptx "${T_PTX:-900}" ptx
elif [[ -d $LLVM_ROOT/lib/cmake/mlir ]]; then
  skip ptx "no build tree at $BUILD or no ptxas at $CUDA_HOME (bash scripts/build.sh first)"
else
  skip ptx "no LLVM/MLIR here: the PTX checks run where the compiler builds"
fi
step runtime "${T_RUNTIME:-120}" runtime
step hosts "${T_HOSTS:-60}" hosts

probe_rc=0
if [[ -x $HOST_DIR/vmapc-gpu-bench ]]; then
  "$HOST_DIR/vmapc-gpu-bench" --probe >"$RESULTS/probe.json" || probe_rc=$?
  echo
  echo "== probe: $(cat "$RESULTS/probe.json")"
  if ((probe_rc == 0)); then
    GPU=1
  elif command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "nvidia-smi lists a GPU, but the driver could not be used (above)"
    failed+=(probe)
    summary+=("probe    FAILED   (nvidia-smi lists a GPU the driver cannot open)")
  fi
fi
rm -f "$RESULTS/probe.json"

if [[ -x $HOST_DIR/vmapc-gpu-check ]]; then
  step tests "${T_TESTS:-90}" tests
  if ((GPU)); then
    step copy "${T_COPY:-30}" copy
  else
    skip copy "no GPU"
  fi
  if ((BENCH)); then
    step bench "${T_BENCH:-240}" bench
  else
    skip bench "--no-bench"
  fi
else
  skip tests "the hosts did not build"
fi

echo
echo "== summary ($RESULTS)"
printf '  %s\n' "${summary[@]}"
if ((!GPU)); then
  echo "no GPU: skipped the device runs (the tests and the bench ran on the CPU)"
fi
if ((${#failed[@]})); then
  echo "check.sh: FAILED: ${failed[*]}"
  exit 1
fi
echo "check.sh: all steps passed"
