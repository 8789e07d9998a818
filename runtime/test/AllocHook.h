//===- AllocHook.h - Count heap allocations in the test binary --*- C++ -*-===//

#ifndef VMAPC_TEST_ALLOCHOOK_H
#define VMAPC_TEST_ALLOCHOOK_H

#include <cstdint>

namespace vmapc_test {
/// Starts counting calls to operator new (every form) and the malloc family.
void startCountingAllocations();
/// Stops counting and returns the count since the last start.
uint64_t stopCountingAllocations();
} // namespace vmapc_test

#endif
