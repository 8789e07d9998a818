#!/usr/bin/env bash
# Configures (once) and builds vmapc with AddressSanitizer + UndefinedBehavior-
# Sanitizer in ./build-asan (or $BUILD_DIR), with clang-22 and lld, at -O1:
# the whole project (runtime, compiler, tools, tests) and the libFuzzer
# harnesses of fuzz/ (-DVMAPC_FUZZ=ON adds libFuzzer's coverage
# instrumentation). libLLVM/libMLIR and the code vmapc generates are not
# instrumented. Needs clang-22, lld-22 and libclang-rt-22-dev
# (scripts/install-sanitizer-deps.sh). Tests: scripts/test-sanitized.sh.
# -O1, not -O0 (measured 2026-12-07, Zen 3, 2 cores): -O0 builds in 501 s
# instead of 805-930 s, but scripts/test-sanitized.sh then takes 1088 s
# instead of 412 s (MLIR's inline headers run unoptimized in our code).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-asan}
jobs=${JOBS:-2}
if [[ ! -f "$build/build.ninja" ]]; then
  mkdir -p "$build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DCMAKE_C_FLAGS_RELEASE=-O1 -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DLLVM_USE_LINKER=lld -DVMAPC_FUZZ=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >"$build/cmake.log" 2>&1 ||
    { cat "$build/cmake.log"; exit 1; }
fi
ninja -C "$build" -j"$jobs"
