//===- HostBufferTest.cpp - Checked host allocations ----------------------===//

#include "vmapc/HostBuffer.h"
#include "AllocHook.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <sys/resource.h>
#include <unistd.h>

using namespace vmapc;
using namespace vmapc_test;

namespace {

TEST(HostBuffer, ZeroFilledAlignedAndNeverNull) {
  HostBuffer b;
  ASSERT_TRUE(HostBuffer::allocate(1000, 256, "a buffer", &b).ok());
  ASSERT_EQ(b.size(), 1000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 256, 0u);
  for (size_t i = 0; i < b.size(); ++i)
    ASSERT_EQ(b.data()[i], 0);
  HostBuffer empty;
  ASSERT_TRUE(HostBuffer::allocate(0, 64, "nothing", &empty).ok());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_NE(empty.data(), nullptr);
  HostBuffer moved = std::move(b);
  EXPECT_EQ(moved.size(), 1000u);
  EXPECT_EQ(b.data(), nullptr);
}

TEST(HostBuffer, LimitIsAtMostPhysicalMemory) {
  uint64_t physical =
      uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  EXPECT_GT(hostMemoryLimitBytes(), 0u);
  EXPECT_LE(hostMemoryLimitBytes(), physical);
}

TEST(HostBuffer, RefusesMoreThanTheLimitBeforeAllocating) {
  uint64_t limit = hostMemoryLimitBytes();
  HostBuffer b;
  Status s = HostBuffer::allocate(limit + 1, 64, "the arena", &b);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "the arena would take " + std::to_string(limit + 1) +
                             " bytes, more than the " + std::to_string(limit) +
                             " bytes this process may use (the smaller of "
                             "physical memory and RLIMIT_AS)");
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_TRUE(checkHostMemory(limit, "x").ok());
}

TEST(HostBuffer, TheAddressSpaceLimitLowersTheLimit) {
  if (underAddressSanitizer())
    GTEST_SKIP() << "ASan needs its address space: RLIMIT_AS stays as it is";
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  // Half of what the limit is now: below physical memory, so the result
  // must come from RLIMIT_AS.
  const uint64_t soft = hostMemoryLimitBytes() / 2;
  struct rlimit lowered = saved;
  lowered.rlim_cur = soft;
  ASSERT_EQ(setrlimit(RLIMIT_AS, &lowered), 0);
  uint64_t limit = hostMemoryLimitBytes();
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  EXPECT_EQ(limit, soft);
}

TEST(HostBuffer, AFailedAllocationIsAnErrorStatus) {
  if (!canFailAllocations())
    GTEST_SKIP() << "allocation failures cannot be injected in this build "
                    "(ASan without the --wrap link flags)";
  HostBuffer b;
  failMallocFamily(0);
  Status s = HostBuffer::allocate(4096, 64, "the outputs", &b);
  stopFailingAllocations();
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "cannot allocate the outputs (4096 bytes): out of memory");
  EXPECT_EQ(b.data(), nullptr);
}

} // namespace
