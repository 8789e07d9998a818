//===- ChecksTest.cpp - Tolerances, comparisons, poison of GPU tests -----===//
//
// The comparison that decides a GPU test (Checks.h) and the data it feeds
// (HostData.h): an element one side never wrote shows whatever the other
// side computed, each tolerance accepts what it should and nothing more,
// and the data kinds stay in their documented ranges. Built in the
// top-level build only (GoogleTest is not on the GPU machine).
//
//===----------------------------------------------------------------------===//

#include "Checks.h"
#include "HostData.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace vmapc;
using namespace vmapc::gpuhost;

namespace {

Tolerance parse(const std::string &text) {
  Tolerance t;
  std::string error;
  EXPECT_TRUE(parseTolerance(text, &t, &error)) << error;
  return t;
}

Comparison compareF32(std::vector<float> device, std::vector<float> reference,
                      const std::string &tol) {
  return compareOutput(device.data(), reference.data(), DType::F32,
                       static_cast<int64_t>(device.size()), parse(tol));
}

float poisoned(unsigned char byte) {
  float x;
  std::memset(&x, byte, sizeof x);
  return x;
}

TEST(GpuCheckCompare, PoisonOnEitherSideIsAMismatch) {
  // Never written on the device: NaN against a value.
  Comparison c = compareF32({1, poisoned(kDevicePoison)}, {1, 2}, "1/1");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.badIndex, 1);
  EXPECT_TRUE(std::isnan(c.maxError));
  // Never written on the reference: 3.39e38 against a value.
  c = compareF32({1, 2}, {1, poisoned(kReferencePoison)}, "1e-6/1e-6");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.badIndex, 1);
  // Never written on either: NaN against 3.39e38, even with a wide bound.
  c = compareF32({poisoned(kDevicePoison)}, {poisoned(kReferencePoison)},
                 "1e30/1");
  EXPECT_FALSE(c.ok);
  // i32 and bool: -1 against 0x7f7f7f7f, 255 against 127.
  int32_t di = -1, ri = 0x7f7f7f7f;
  std::memset(&di, kDevicePoison, 4);
  std::memset(&ri, kReferencePoison, 4);
  EXPECT_FALSE(compareOutput(&di, &ri, DType::I32, 1, parse("exact")).ok);
  unsigned char db = kDevicePoison, rb = kReferencePoison;
  EXPECT_FALSE(compareOutput(&db, &rb, DType::Bool, 1, parse("exact")).ok);
}

TEST(GpuCheckCompare, NaNAndInfinityMatchOnlyThemselves) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(compareF32({nan, inf, -inf}, {nan, inf, -inf}, "exact").ok);
  EXPECT_FALSE(compareF32({inf}, {-inf}, "1e30/1e30").ok);
  EXPECT_FALSE(compareF32({inf}, {3e38f}, "1e30/1e30").ok);
  EXPECT_FALSE(compareF32({0}, {nan}, "1e30/1e30").ok);
}

TEST(GpuCheckCompare, ExactAcceptsEqualValuesOnly) {
  EXPECT_TRUE(compareF32({0.0f, -0.0f, 1.5f}, {-0.0f, 0.0f, 1.5f}, "exact").ok);
  Comparison c =
      compareF32({1.0f, std::nextafter(1.0f, 2.0f)}, {1.0f, 1.0f}, "exact");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.badIndex, 1);
  EXPECT_EQ(c.deviceValue, "1.00000012");
  EXPECT_EQ(c.referenceValue, "1");
}

TEST(GpuCheckCompare, AbsoluteAndRelativeBound) {
  // |d - r| <= A + R |r|: 1e-3 + 1e-2 * 10 = 0.101 at r = 10.
  Comparison c = compareF32({10.1f}, {10.0f}, "1e-3/1e-2");
  EXPECT_TRUE(c.ok);
  EXPECT_NEAR(c.maxError, 0.1, 1e-6);
  EXPECT_NEAR(c.worstRatio, 0.1 / 0.101, 1e-5);
  EXPECT_FALSE(compareF32({10.2f}, {10.0f}, "1e-3/1e-2").ok);
  EXPECT_TRUE(compareF32({0.0009f}, {0.0f}, "1e-3/1e-2").ok);
  EXPECT_FALSE(compareF32({0.0011f}, {0.0f}, "1e-3/1e-2").ok);
}

TEST(GpuCheckCompare, SumToleranceScalesWithTheTermCount) {
  Tolerance t = parse("sum:1024");
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.absolute, 1024 * std::ldexp(1.0, -20));
  EXPECT_DOUBLE_EQ(t.relative, t.absolute);
  EXPECT_TRUE(compareF32({0.0009f}, {0.0f}, "sum:1024").ok);
  EXPECT_FALSE(compareF32({0.0011f}, {0.0f}, "sum:1024").ok);
}

TEST(GpuCheckCompare, IntegersCountTheElementsThatDiffer) {
  std::vector<int32_t> d = {1, 2, 3, 4}, r = {1, 5, 3, 6};
  Comparison c =
      compareOutput(d.data(), r.data(), DType::I32, 4, parse("exact"));
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.maxError, 2);
  EXPECT_EQ(c.badIndex, 1);
  EXPECT_EQ(c.deviceValue, "2");
  EXPECT_EQ(c.referenceValue, "5");
}

TEST(GpuCheckCompare, BadTolerancesAreRefused) {
  Tolerance t;
  std::string error;
  for (const char *bad : {"", "1e-6", "1/2/3", "-1/0", "a/b", "sum:", "sum:0",
                          "sum:1.5", "nan/0", "inf/0", "exactly"}) {
    EXPECT_FALSE(parseTolerance(bad, &t, &error)) << bad;
    EXPECT_NE(error.find("tolerance '"), std::string::npos) << error;
  }
}

TEST(GpuCheckData, KindsStayInTheirRanges) {
  std::vector<float> f(4096);
  std::vector<int32_t> i(4096);
  struct Range {
    DataKind kind;
    float lo, hi;
    int32_t ilo, ihi;
    bool integral;
  };
  for (Range r : {Range{DataKind::Uniform, -1, 1, -1000, 1000, false},
                  Range{DataKind::Int, -8, 8, -8, 8, true},
                  Range{DataKind::Positive, 0.25f, 4, 1, 1000, false},
                  Range{DataKind::Small, -0.125f, 0.125f, -8, 8, false}}) {
    fillRandom(f.data(), DType::F32, f.size(), r.kind, 7);
    fillRandom(i.data(), DType::I32, i.size(), r.kind, 7);
    float lo = f[0], hi = f[0];
    for (float x : f) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      if (r.integral) {
        EXPECT_EQ(x, std::round(x));
      }
    }
    EXPECT_GE(lo, r.lo) << dataKindName(r.kind);
    EXPECT_LE(hi, r.hi) << dataKindName(r.kind);
    // Spread over the range, not stuck at one value.
    EXPECT_LT(lo, r.lo + (r.hi - r.lo) / 8) << dataKindName(r.kind);
    EXPECT_GT(hi, r.hi - (r.hi - r.lo) / 8) << dataKindName(r.kind);
    for (int32_t x : i) {
      EXPECT_GE(x, r.ilo);
      EXPECT_LE(x, r.ihi);
    }
  }
}

TEST(GpuCheckData, SeedsGiveOtherData) {
  std::vector<float> a(64), b(64), c(64);
  fillRandom(a.data(), DType::F32, a.size(), DataKind::Uniform, 1);
  fillRandom(b.data(), DType::F32, b.size(), DataKind::Uniform, 1);
  fillRandom(c.data(), DType::F32, c.size(), DataKind::Uniform, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

} // namespace
