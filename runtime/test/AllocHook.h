//===- AllocHook.h - Count and fail heap allocations in tests ---*- C++ -*-===//
//
// Two ways to watch the heap, chosen at build time:
//  - a normal build replaces operator new / delete and the malloc family of
//    the test binary with versions that count (and can fail), forwarding to
//    glibc;
//  - under AddressSanitizer, which owns malloc, nothing is replaced: the
//    counting goes through ASan's malloc hook
//    (__sanitizer_install_malloc_and_free_hooks), and failing allocations is
//    not available.
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

/// Whether `failMallocFamily` works in this build (not under ASan).
bool canFailAllocations();
/// While on, every malloc, calloc, realloc, aligned_alloc, memalign and
/// posix_memalign call of at least `minBytes` bytes fails (operator new is
/// not affected, so C++ containers keep working).
void failMallocFamily(size_t minBytes);
/// Stops failing allocations.
void stopFailingAllocations();
} // namespace vmapc_test

#endif
