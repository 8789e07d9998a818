#!/usr/bin/env bash
# Builds the runtime alone (runtime/ is its own CMake project) with
# ThreadSanitizer (g++'s -fsanitize=thread) in ./build-tsan (or $BUILD_DIR)
# and runs the tests of what may run on several threads at once: the thread
# pool, the CPU device, executables sharing a device (ConcurrencyTest.cpp)
# and the executable tests (RuntimeTest.cpp; ExecutableTest.cpp, on every
# device); the build holds only those tests
# (VMAPC_RUNTIME_THREADED_TESTS_ONLY). Any data race reported fails the run.
# Takes a few minutes (the runtime is small); CI runs it (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-tsan}
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$root/runtime" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS="-fsanitize=thread" -DCMAKE_C_FLAGS="-fsanitize=thread" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
    -DVMAPC_RUNTIME_THREADED_TESTS_ONLY=ON >/dev/null
fi
ninja -C "$build" -j"${JOBS:-2}" vmapc-runtime-tests >/dev/null
# halt_on_error: the first race fails the test binary (exit code 66).
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" \
  "$build/vmapc-runtime-tests" --gtest_brief=1 \
  --gtest_filter='Concurrency*:ThreadPool*:CpuDevice*:RuntimeTest.*:*/ChunkTest.*:*/ExecutableTest.*'
