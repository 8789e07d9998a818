#!/usr/bin/env bash
# Builds vmapc with ASan + UBSan (scripts/build-sanitized.sh, ./build-asan or
# $BUILD_DIR) and runs the test suite under the sanitizers: lit + FileCheck
# and GoogleTest through CTest, ending with "N passed, M failed, K skipped".
#
# Sanitizer settings (any report fails the test that made it):
#   ASan: leak checks on everywhere (the compiler tools included: what
#     libMLIR keeps in its registries stays reachable, so no suppressions
#     are needed), use-after-return and init-order checks. Manual poisoning
#     is off (allow_user_poisoning=0): llvm::BumpPtrAllocator poisons each
#     new slab and unpoisons what it hands out only in instrumented code, and
#     one allocator (an MLIRContext's StorageUniquer) is shared by our
#     instrumented code and Debian's uninstrumented libMLIR. When our code
#     opens a slab (an #arr.plan attribute's storage, say), libMLIR's later
#     allocations from it read as poisoned: a false use-after-poison in
#     memmove. Heap, stack and global checks are unaffected.
#   UBSan: every check but vptr and function (those need all code
#     instrumented), stack traces, halt on the first error.
#
# Left to the normal build (scripts/test.sh) for time, see
# test/property/README.md: the property tests run at a tenth of their
# programs (VMAPC_PROPERTY_PROGRAMS=200) and PlanningOff at a quarter
# (VMAPC_PROPERTY_NO_REUSE_PROGRAMS=50: 75 s of CPU at 200), the two oracle
# tests at the kNN's full size (`*FullSize*`, 55 s of CPU; the same oracle
# code runs on small shapes in the other oracle tests, and the compiled kNN
# at full size in KnnDigits) are left out, the JAX cross-check is skipped
# (it checks JAX's numbers, not our memory safety), and the end-to-end tests
# run on the default device only: their per-ISA-level variants (`@x86-64*`,
# test/e2e/CMakeLists.txt) run the same compiler and runtime code on other
# generated (uninstrumented) kernels. The compile-time tests (label
# `compile-time`, bench/CMakeLists.txt: concat500, lets4000, tuple1600, about
# 50 s of CPU in the release build) are left out too: they check that large
# programs compile within a timeout, which an instrumented compiler says
# nothing about; the sibling fusion they exercise is tested under the
# sanitizers by test/Transforms/arr-fuse-siblings.mlir and
# test/Driver/wide-tuple-run.test. The MPI tool's tests (label `mpi`, about
# a minute of mpirun starts) are left out as well: the tool links only the
# runtime, whose code these tests run under the sanitizers anyway, and an
# ASan build of the tool needs Open MPI's leaks suppressed (test/mpi).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-asan}
cd "$root"
BUILD_DIR=$build bash scripts/build-sanitized.sh || exit 1

# ASan's stack frames are about 8x larger than release frames (a 999-deep
# expression chain needs 2-4 MiB in the release build, 16-32 MiB under ASan
# at -O1): 64 MiB here is what the release build's 8 MiB is, so the front
# end's depth limits, sized for release, hold.
ulimit -s 65536 2>/dev/null || echo "warning: cannot raise the stack limit to 64 MiB"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:allow_user_poisoning=0}

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export VMAPC_PROPERTY_PROGRAMS=${VMAPC_PROPERTY_PROGRAMS:-200}
export VMAPC_PROPERTY_NO_REUSE_PROGRAMS=${VMAPC_PROPERTY_NO_REUSE_PROGRAMS:-50}

results=$(mktemp -d)
/usr/lib/llvm-22/bin/lit -sv "$build/test" --xunit-xml-output="$results/lit.xml"
ctest --test-dir "$build" -j2 --output-on-failure \
  -E '^property-jax-check$|@x86-64|FullSize' -LE '^(compile-time|mpi)$' \
  --output-junit "$results/ctest.xml"
python3 "$root/scripts/summarize-tests.py" "$results/lit.xml" "$results/ctest.xml"
