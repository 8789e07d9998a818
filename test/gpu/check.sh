#!/usr/bin/env bash
# The one script for GPU machines (docs/design.md, "Testing"): builds vmapc-opt if
# needed, runs the GPU lit tests (the kNN program to PTX, ptxas to a cubin for
# sm_90, the host-side launches) and prints what ptxas reports per kernel.
#
# Device runs do not exist yet: the runtime has only the `cpu` device, no CUDA
# backend, so on a GPU machine nothing runs on the GPU. This script says so
# rather than pretend.
#
# Environment: BUILD (default <repo>/build), JOBS, LLVM_ROOT (default
# /usr/lib/llvm-22), CUDA_HOME (default /usr/local/cuda; the lit config reads
# ptxas from /usr/local/cuda).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
LLVM_ROOT=${LLVM_ROOT:-/usr/lib/llvm-22}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
PTXAS=$CUDA_HOME/bin/ptxas

[ -x "$PTXAS" ] || { echo "check.sh: no ptxas at $PTXAS (set CUDA_HOME)" >&2; exit 1; }
[ -d "$LLVM_ROOT/lib/cmake/mlir" ] ||
  { echo "check.sh: no MLIR under $LLVM_ROOT (see docs/toolchain.md: libmlir-22-dev)" >&2; exit 1; }

# JOBS: build jobs; 2 where a build dir already exists (a shared development
# machine), all cores for a fresh build.
if [ ! -f "$BUILD/build.ninja" ]; then
  JOBS=${JOBS:-$(nproc)}
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_ROOT/lib/cmake/mlir" -DLLVM_EXTERNAL_LIT="$LLVM_ROOT/bin/lit"
fi
# The build dir may be shared with other builds on a development machine.
LOCK=()
command -v flock >/dev/null && LOCK=(flock /tmp/vmapc-build.lock)
"${LOCK[@]}" ninja -C "$BUILD" -j"${JOBS:-2}" vmapc-opt

# CI=true: a missing ptxas fails the tests instead of marking them unsupported.
CI=true "$LLVM_ROOT/bin/lit" -v "$BUILD/test" --filter 'gpu/'

echo
echo "ptxas -arch=sm_90 -v, kNN kernels (launch order):"
for ptx in "$BUILD"/test/gpu/Output/knn-ptx.arr.tmp.{fill,dist,inf,zero,argmin}.ptx; do
  printf '  %-8s %s\n' "$(basename "$ptx" .ptx | sed 's/.*\.//')" \
    "$("$PTXAS" -arch=sm_90 -v -o /dev/null "$ptx" 2>&1 | grep -o 'Used [0-9]* registers.*' || echo '?')"
done

echo
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  nvidia-smi -L
  echo "GPU found, but device runs are not implemented yet: the runtime has"
  echo "only the 'cpu' device (no CUDA backend). Only the PTX/cubin checks ran."
else
  echo "no GPU: skipping device runs (only the PTX/cubin checks ran)"
fi
