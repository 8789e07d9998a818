#!/usr/bin/env bash
# The runtime as an installed package: builds runtime/ alone (no tests),
# installs it into a temporary prefix, moves the prefix (the package config
# is relocatable), checks what was installed, then builds examples/c_host --
# a C-only CMake project that calls find_package(vmapc) -- against it and runs
# it on the main job's artifact and data from the main build (./build, or
# $BUILD_DIR). Prints what it checks; exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
jobs=${JOBS:-2}
artifact=$build/examples/knn_digits.vmapc
data=$build/examples/digits.csv
for f in "$artifact" "$data"; do
  [[ -f $f ]] || { echo "install-test: $f is missing: run scripts/build.sh first"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake -G Ninja -S "$root/runtime" -B "$tmp/runtime" -DCMAKE_BUILD_TYPE=Release \
  -DVMAPC_RUNTIME_BUILD_TESTS=OFF >"$tmp/runtime.log" 2>&1 ||
  { cat "$tmp/runtime.log"; exit 1; }
ninja -C "$tmp/runtime" -j"$jobs" >>"$tmp/runtime.log" 2>&1 ||
  { cat "$tmp/runtime.log"; exit 1; }
if [[ -e $tmp/runtime/vmapc-runtime-tests ]]; then
  echo "install-test: tests were built with VMAPC_RUNTIME_BUILD_TESTS=OFF"; exit 1
fi
cmake --install "$tmp/runtime" --prefix "$tmp/prefix" >/dev/null
mv "$tmp/prefix" "$tmp/moved"
prefix=$tmp/moved
echo "install-test: installed and moved to $prefix:"
(cd "$prefix" && find . -type f | sort | sed 's/^/  /')
for f in include/vmapc/vmapc_runtime.h include/vmapc/Runtime.h \
         lib/libvmapc_runtime.a lib/cmake/vmapc/vmapcConfig.cmake \
         lib/cmake/vmapc/vmapcConfigVersion.cmake; do
  [[ -f $prefix/$f ]] || { echo "install-test: $f was not installed"; exit 1; }
done
if grep -rn "$tmp/prefix\|$root" "$prefix/lib/cmake/vmapc"; then
  echo "install-test: the package config names an absolute path"; exit 1
fi

# A C-only host project (its CMakeLists enables C alone).
cmake -G Ninja -S "$root/examples/c_host" -B "$tmp/host" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/host.log" 2>&1 ||
  { cat "$tmp/host.log"; exit 1; }
ninja -C "$tmp/host" >>"$tmp/host.log" 2>&1 || { cat "$tmp/host.log"; exit 1; }
if grep -q "CMAKE_CXX_COMPILER" "$tmp/host/CMakeCache.txt"; then
  echo "install-test: the C host project enabled C++"; exit 1
fi
"$tmp/host/knn_digits_c" "$artifact" "$data"

# A version the package does not satisfy is refused.
mkdir -p "$tmp/old"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(x LANGUAGES C)\nfind_package(vmapc 99.0 REQUIRED)\n' \
  >"$tmp/old/CMakeLists.txt"
if cmake -S "$tmp/old" -B "$tmp/old/build" -DCMAKE_PREFIX_PATH="$prefix" \
     >"$tmp/old.log" 2>&1; then
  echo "install-test: find_package(vmapc 99.0) succeeded"; exit 1
fi
echo "install-test: find_package(vmapc 99.0) is refused (package version $(cat "$root/VERSION"))"
echo "install-test: ok"
