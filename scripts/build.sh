#!/usr/bin/env bash
# Configures (once) and builds vmapc in ./build (or $BUILD_DIR) with Ninja.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
if [[ ! -f "$build/build.ninja" ]]; then
  mkdir -p "$build"
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >"$build/cmake.log" 2>&1 ||
    { cat "$build/cmake.log"; exit 1; }
fi
ninja -C "$build" -j"$jobs"
