//===- AllocHook.h - Count and fail heap allocations in tests ---*- C++ -*-===//
//
// Two ways to watch the heap, chosen at build time:
//  - a normal build replaces operator new / delete and the malloc family of
//    the test binary with versions that count (and can fail), forwarding to
//    glibc;
//  - under AddressSanitizer, which owns malloc, nothing is replaced: the
//    counting goes through ASan's malloc hook
//    (__sanitizer_install_malloc_and_free_hooks), and the malloc family is
//    failed through the linker's --wrap (VMAPC_TEST_WRAP_MALLOC, set with
//    the link flags in runtime/CMakeLists.txt), which reaches the calls of
//    the test binary and of the static runtime library, not those inside
//    shared libraries (libstdc++).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_ALLOCHOOK_H
#define VMAPC_TEST_ALLOCHOOK_H

#include <cstddef>
#include <cstdint>

namespace vmapc_test {
/// Starts counting heap allocations (every operator new, every malloc-family
/// call).
void startCountingAllocations();
/// Stops counting and returns the count since the last start.
uint64_t stopCountingAllocations();

/// Whether `failMallocFamily` works in this build (everywhere but under ASan
/// without the --wrap link flags).
bool canFailAllocations();
/// Whether the test binary runs under AddressSanitizer (which reserves
/// terabytes of address space, so RLIMIT_AS cannot be lowered).
bool underAddressSanitizer();
/// While on, every malloc, calloc, realloc, aligned_alloc, memalign and
/// posix_memalign call of at least `minBytes` bytes fails (operator new is
/// not affected, so C++ containers keep working).
void failMallocFamily(size_t minBytes);
/// Stops failing allocations.
void stopFailingAllocations();
} // namespace vmapc_test

#endif
