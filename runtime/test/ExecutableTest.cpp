//===- ExecutableTest.cpp - the executable on every device ----------------===//
//
// What the executable does above the backends (Runtime.cpp: the checks of
// a call's arrays, chunking, staging, the schedule's walk, loading errors
// before the device), tested on every device of the build (TestDevice.h):
// the CPU and the fake CUDA driver, with the same stand-in kernels.
//
// What stays on one device, and why: RuntimeTest.cpp and CpuDeviceTest.cpp
// test what only the CPU does or can show (binding host arrays in place,
// seen through the probe kernel's addresses; the CPU code objects'
// descriptors, ISA levels and features; host memory limits and
// allocation failures; the thread pool; memfd loading);
// CudaDeviceTest.cpp what only the CUDA backend does (pinned staging,
// copies, streams, contexts, cubin and PTX loading, the driver's errors).
//
//===----------------------------------------------------------------------===//

#include "TestDevice.h"

#include "vmapc/Runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

using namespace vmapc;
using namespace vmapc_test;

namespace {

TEST_P(ExecutableTest, UnknownEntry) {
  const Entry *e = nullptr;
  Status s = exe->findEntry("nope", &e);
  EXPECT_EQ(s.message(), "unknown entry 'nope'; entries are: affine, axis1, "
                         "reduce, probe, twostep, count, whoami, where, empty, "
                         "rendezvous, stack, donate");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(exe->run("nope", {}, {}).message(), s.message());
}

TEST_P(ExecutableTest, DonatedInputSharesItsBytesWithItsOutputOnly) {
  std::vector<float> x(8 * 4, 1.0f), c(4 + 8 * 4, 2.0f), y(8 * 4 + 4, 3.0f);
  HostArray xa{x.data(), DType::F32, {8, 4}};
  HostArray ca{c.data(), DType::F32, {4}};
  MutableHostArray ya{y.data(), DType::F32, {8, 4}};
  // y one example past x: the two overlap, but are not one buffer.
  MutableHostArray shifted{x.data() + 4, DType::F32, {7, 4}};
  HostArray x7{x.data(), DType::F32, {7, 4}};
  Status s = exe->run(entry("donate"), {x7, ca}, {shifted});
  EXPECT_EQ(s.message(),
            "input 'x' is donated to output 'y': pass one buffer as both, or "
            "two that do not overlap");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // c inside x's bytes.
  HostArray cInX{x.data() + 8, DType::F32, {4}};
  s = exe->run(entry("donate"), {xa, cInX}, {ya});
  EXPECT_EQ(s.message(),
            "input 'x' is donated to output 'y', but its bytes overlap input "
            "'c'; a donated input shares its buffer only with the output it "
            "is donated to");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  // Nothing ran.
  EXPECT_EQ(x, std::vector<float>(8 * 4, 1.0f));
  EXPECT_EQ(y, std::vector<float>(8 * 4 + 4, 3.0f));
  EXPECT_EQ(exe->stats().launches, 0u);
}

TEST_P(ChunkTest, MappedAxis0) {
  const int64_t n = examples();
  std::vector<float> x(n * 4), c = {0.5f, -1.0f, 10.0f, 100.0f};
  for (int64_t i = 0; i < n * 4; ++i)
    x[i] = float(i) * 0.25f - 3.0f;
  std::vector<float> y(n * 4 + 1, -7.0f); // one guard element
  HostArray xa{x.data(), DType::F32, {n, 4}};
  HostArray ca{c.data(), DType::F32, {4}};
  MutableHostArray ya{y.data(), DType::F32, {n, 4}};
  Status s = exe->run(entry("affine"), {xa, ca}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t b = 0; b < n; ++b)
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(y[b * 4 + i], 2.0f * x[b * 4 + i] + c[i]) << b << "," << i;
  EXPECT_EQ(y[n * 4], -7.0f);
  Stats st = exe->stats();
  EXPECT_EQ(st.calls, 1u);
  EXPECT_EQ(st.launches, ceilDiv(n, kTestB)); // one dispatch per chunk
  EXPECT_EQ(st.examples, uint64_t(n));
  EXPECT_EQ(st.allocations, 1u);
  // On the CPU, two or more full chunks run as one job (docs/runtime.md,
  // "Chunks without barriers"); the partial last one on its own.
  uint64_t full = uint64_t(n) / kTestB;
  EXPECT_EQ(st.batchedChunks,
            kind == DeviceKind::Cpu && full >= 2 ? full : uint64_t(0));
}

TEST_P(ChunkTest, DonatedInputIsItsOutputsBuffer) {
  const int64_t n = examples();
  std::vector<float> x(n * 4 + 1), c = {0.5f, -1.0f, 10.0f, 100.0f};
  for (int64_t i = 0; i < n * 4; ++i)
    x[i] = float(i) * 0.25f - 3.0f;
  x[n * 4] = -7.0f; // a guard element
  std::vector<float> original = x;
  HostArray xa{x.data(), DType::F32, {n, 4}};
  HostArray ca{c.data(), DType::F32, {4}};
  MutableHostArray ya{x.data(), DType::F32, {n, 4}};
  Status s = exe->run(entry("donate"), {xa, ca}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t b = 0; b < n; ++b)
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(x[b * 4 + i], 2.0f * original[b * 4 + i] + c[i]) << b << i;
  EXPECT_EQ(x[n * 4], -7.0f);
}

TEST_P(ChunkTest, DonatedInputWithAnOutputBufferOfItsOwnIsLeftAsItWas) {
  const int64_t n = examples();
  std::vector<float> x(n * 4), c = {0.5f, -1.0f, 10.0f, 100.0f};
  for (int64_t i = 0; i < n * 4; ++i)
    x[i] = float(i) * 0.25f - 3.0f;
  std::vector<float> original = x, y(n * 4 + 1, -7.0f);
  HostArray xa{x.data(), DType::F32, {n, 4}};
  HostArray ca{c.data(), DType::F32, {4}};
  MutableHostArray ya{y.data(), DType::F32, {n, 4}};
  Status s = exe->run(entry("donate"), {xa, ca}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(x, original);
  for (int64_t b = 0; b < n; ++b)
    for (int i = 0; i < 4; ++i)
      ASSERT_EQ(y[b * 4 + i], 2.0f * x[b * 4 + i] + c[i]) << b << i;
  EXPECT_EQ(y[n * 4], -7.0f);
}

TEST_P(ChunkTest, MappedAxis1In2Out) {
  const int64_t n = examples();
  // x: [2, N, 3] (per-example [2, 3], axis 1); y: [2, 3, N] (axis 2).
  std::vector<int32_t> x(2 * n * 3);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = int32_t(i * 7 % 23) - 5;
  std::vector<int32_t> y(2 * 3 * n + 1, -99);
  HostArray xa{x.data(), DType::I32, {2, n, 3}};
  MutableHostArray ya{y.data(), DType::I32, {2, 3, n}};
  Status s = exe->run(entry("axis1"), {xa}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t b = 0; b < n; ++b)
        ASSERT_EQ(y[(i * 3 + j) * n + b], 3 * x[(i * n + b) * 3 + j] + 1);
  EXPECT_EQ(y[2 * 3 * n], -99);
  EXPECT_EQ(exe->stats().launches, ceilDiv(n, kTestB));
}

TEST_P(ChunkTest, ScalarsBoolsAndUnbatchedOutput) {
  const int64_t n = examples();
  std::vector<float> x(n * 3);
  for (int64_t i = 0; i < n * 3; ++i)
    x[i] = float((i * 5) % 11) - 5.0f;
  float sc = 1.5f;
  std::vector<float> y(n, -7.0f);
  std::vector<unsigned char> pos(n, 7);
  float total = -7.0f;
  Status s = exe->run(
      entry("reduce"),
      {HostArray{x.data(), DType::F32, {n, 3}}, HostArray{&sc, DType::F32, {}}},
      {MutableHostArray{y.data(), DType::F32, {n}},
       MutableHostArray{pos.data(), DType::Bool, {n}},
       MutableHostArray{&total, DType::F32, {}}});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t b = 0; b < n; ++b) {
    float want = sc * (x[b * 3] + x[b * 3 + 1] + x[b * 3 + 2]);
    EXPECT_EQ(y[b], want);
    EXPECT_EQ(pos[b], want > 0 ? 1 : 0);
  }
  // The unbatched output is computed even for N = 0: one chunk of n = 0
  // (reduce_rows has no workgroup then, reduce_total its one).
  EXPECT_EQ(total, 2 * sc + 1);
  EXPECT_EQ(exe->stats().launches, 2 * (n == 0 ? 1u : ceilDiv(n, kTestB)));
}

// Two dispatches through an arena slot, the second in nested loops whose
// indices it reads: y = x^2 + sum over (i0, i1) of (x^2 + 10 i0 + i1).
TEST_P(ChunkTest, SchedulePassesTheArenaAndLoopIndices) {
  const int64_t n = examples();
  std::vector<float> x(n * 4);
  for (int64_t i = 0; i < n * 4; ++i)
    x[i] = float(i % 13) - 6.0f;
  std::vector<float> y(n * 4 + 1, -7.0f);
  Status s =
      exe->run(entry("twostep"), {HostArray{x.data(), DType::F32, {n, 4}}},
               {MutableHostArray{y.data(), DType::F32, {n, 4}}});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t i = 0; i < n * 4; ++i)
    ASSERT_EQ(y[i], 6 * x[i] * x[i] + 36) << i;
  EXPECT_EQ(y[n * 4], -7.0f);
  // Per chunk: square, then accumulate 2 x 3 times.
  EXPECT_EQ(exe->stats().launches, 7 * ceilDiv(n, kTestB));
}

// A chunk of n examples dispatches ceil(n / T) workgroups and passes n: the
// partial last chunk computes its n examples, no padding lane.
TEST_P(ChunkTest, PartialChunkComputesExactlyN) {
  const int64_t n = examples();
  std::vector<int32_t> seen(n + 1, -1);
  int32_t overrun = 0;
  Status s = exe->run(entry("count"), {},
                      {MutableHostArray{seen.data(), DType::I32, {n}},
                       MutableHostArray{&overrun, DType::I32, {}}});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t b = 0; b < n; ++b)
    ASSERT_EQ(seen[b], std::min<int64_t>(kTestB, n - b / kTestB * kTestB))
        << "example " << b;
  EXPECT_EQ(seen[n], -1);
  if (kind == DeviceKind::Cpu) {
    EXPECT_EQ(overrun, 0) << "a workgroup past n ran";
  } else {
    // On a GPU the unmapped output `overrun` goes through its staging slot,
    // which holds whatever the device memory held before the kernel adds
    // to it: there, each launch's grid shows the workgroups that ran.
    std::vector<unsigned> grids;
    for (int64_t b = 0; b < n; b += kTestB)
      grids.push_back(unsigned(std::min<int64_t>(kTestB, n - b)));
    EXPECT_EQ(launchGrids("vmapc_kernel_count"), grids)
        << "a workgroup past n ran";
  }
}

INSTANTIATE_TEST_SUITE_P(
    DevicesAndSizes, ChunkTest,
    ::testing::Combine(::testing::ValuesIn(testDeviceKinds()),
                       ::testing::Values(0, 1, kTestB - 1, kTestB,
                                         2 * kTestB + 3)),
    [](const ::testing::TestParamInfo<ChunkTest::ParamType> &info) {
      return deviceKindName(std::get<0>(info.param)) + "_" +
             std::to_string(std::get<1>(info.param));
    });

TEST_P(ExecutableTest, NZeroWithoutUnbatchedOutputLaunchesNothing) {
  float c[4] = {1, 2, 3, 4};
  Status s = exe->run(
      entry("affine"),
      {HostArray{nullptr, DType::F32, {0, 4}}, HostArray{c, DType::F32, {4}}},
      {MutableHostArray{nullptr, DType::F32, {0, 4}}});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(exe->stats().launches, 0u);
  EXPECT_EQ(exe->stats().calls, 1u);
}

TEST_P(ExecutableTest, CorruptBytesFailToLoad) {
  std::unique_ptr<Executable> other;
  std::string b = bytes;
  b[b.size() / 2] ^= 1;
  EXPECT_EQ(Executable::loadBytes(device, b.data(), b.size(), &other).message(),
            "checksum mismatch: the artifact is corrupt");
  b = bytes;
  b[1] = 'X';
  EXPECT_EQ(Executable::loadBytes(device, b.data(), b.size(), &other).message(),
            "bad magic: not a .vmapc artifact");
  EXPECT_NE(Executable::loadBytes(device, b.data(), 10, &other)
                .message()
                .find("truncated artifact"),
            std::string::npos);
  EXPECT_EQ(other, nullptr);
}

// Empty arrays (a 0 dim) are valid. The runtime copies none of their bytes
// and never loops over their other dims (here 2^40 rows of nothing, mapped
// at axis 1: a copy loop over them would not end), takes null data for them,
// and launches once when every mapped argument is empty.
TEST_P(ExecutableTest, EmptyArraysAreNeverCopied) {
  const int64_t rows = kEmptyRows;
  float c[2] = {1.5f, 2.0f};
  for (int64_t n : {int64_t(0), int64_t(1000)}) {
    float total = 0;
    Status s = exe->run("empty",
                        {HostArray{nullptr, DType::F32, {n, 0}},
                         HostArray{nullptr, DType::F32, {rows, n, 0}},
                         HostArray{c, DType::F32, {2}}},
                        {MutableHostArray{nullptr, DType::F32, {n, 3, 0}},
                         MutableHostArray{&total, DType::F32, {}}});
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(total, 3.5f);
  }
  EXPECT_EQ(exe->stats().launches, 2u);
  // N is bounded by the non-zero dims of an empty array too.
  const int64_t n = int64_t(1) << 40;
  float total = 0;
  Status s = exe->run("empty",
                      {HostArray{nullptr, DType::F32, {n, 0}},
                       HostArray{nullptr, DType::F32, {rows, n, 0}},
                       HostArray{c, DType::F32, {2}}},
                      {MutableHostArray{nullptr, DType::F32, {n, 3, 0}},
                       MutableHostArray{&total, DType::F32, {}}});
  EXPECT_EQ(s.message(),
            "input 'big': array is too large (2^62 bytes or more)");
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
}

TEST_P(ExecutableTest, ArgumentErrorsNameTheArgumentAndWriteNothing) {
  const Entry &affine = entry("affine");
  float x[12] = {}, c[4] = {}, y[12];
  int32_t xi[12] = {};
  for (float &v : y)
    v = -7.0f;
  HostArray xa{x, DType::F32, {3, 4}};
  HostArray ca{c, DType::F32, {4}};
  MutableHostArray ya{y, DType::F32, {3, 4}};
  auto run = [&](Span<HostArray> in, Span<MutableHostArray> out) {
    Status s = exe->run(affine, in, out);
    // Too many dims or bytes are past a limit; the rest is the caller's.
    bool limit = s.message().find("too large") != std::string::npos ||
                 s.message().find("more than 16 dims") != std::string::npos;
    EXPECT_EQ(s.code(),
              limit ? StatusCode::kOutOfRange : StatusCode::kInvalidArgument)
        << s.message();
    return s.message();
  };
  EXPECT_EQ(run({xa}, {ya}), "entry 'affine' takes 2 inputs (x, c), got 1");
  EXPECT_EQ(run({xa, ca}, {}), "entry 'affine' has 1 outputs (y), got 0");
  EXPECT_EQ(run({HostArray{xi, DType::I32, {3, 4}}, ca}, {ya}),
            "input 'x': expected dtype f32, got i32");
  EXPECT_EQ(run({HostArray{x, DType::F32, {3, 3}}, ca}, {ya}),
            "input 'x': expected shape [N, 4] (axis 0 mapped, N = 3), got "
            "[3, 3]");
  EXPECT_EQ(run({HostArray{x, DType::F32, {12}}, ca}, {ya}),
            "input 'x': expected shape [N, 4] (axis 0 mapped), got [12]");
  EXPECT_EQ(run({xa, HostArray{c, DType::F32, {1, 4}}}, {ya}),
            "input 'c': expected shape [4] (unmapped), got [1, 4]");
  EXPECT_EQ(run({xa, ca}, {MutableHostArray{y, DType::F32, {2, 4}}}),
            "output 'y': expected shape [N, 4] (axis 0 mapped, N = 3), got "
            "[2, 4]");
  EXPECT_EQ(run({xa, ca}, {MutableHostArray{y, DType::Bool, {3, 4}}}),
            "output 'y': expected dtype f32, got bool");
  EXPECT_EQ(run({HostArray{nullptr, DType::F32, {3, 4}}, ca}, {ya}),
            "input 'x': data is null");
  int64_t big[17] = {};
  EXPECT_EQ(run({HostArray{x, DType::F32, Shape(big, 17)}, ca}, {ya}),
            "input 'x': shape has more than 16 dims");
  EXPECT_EQ(run({HostArray{x, DType::F32, {int64_t(1) << 61, 4}}, ca},
                {MutableHostArray{y, DType::F32, {int64_t(1) << 61, 4}}}),
            "input 'x': array is too large (2^62 bytes or more)");
  // N x example bytes wraps around 2^64 (2^62 x 16): checked, not wrapped.
  EXPECT_EQ(run({HostArray{x, DType::F32, {int64_t(1) << 62, 4}}, ca},
                {MutableHostArray{y, DType::F32, {int64_t(1) << 62, 4}}}),
            "input 'x': array is too large (2^62 bytes or more)");
  EXPECT_EQ(run({HostArray{x, DType::F32, {-3, 4}}, ca}, {ya}),
            "input 'x': negative dimension in shape [-3, 4]");
  EXPECT_EQ(run({xa, ca}, {MutableHostArray{y, DType::F32, {3, -4}}}),
            "output 'y': negative dimension in shape [3, -4]");
  for (float v : y)
    ASSERT_EQ(v, -7.0f);

  // Mapped outputs must agree with N from the inputs.
  float s = 1, ry[4], total;
  unsigned char pos[4];
  EXPECT_EQ(exe->run("reduce",
                     {HostArray{x, DType::F32, {3, 3}},
                      HostArray{&s, DType::F32, {}}},
                     {MutableHostArray{ry, DType::F32, {4}},
                      MutableHostArray{pos, DType::Bool, {3}},
                      MutableHostArray{&total, DType::F32, {}}})
                .message(),
            "output 'y': expected shape [N] (axis 0 mapped, N = 3), got [4]");
  EXPECT_EQ(exe->stats().calls, 0u);
  EXPECT_EQ(exe->stats().launches, 0u);
}

TEST_P(ExecutableTest, EntryOfAnotherExecutableIsRejected) {
  std::unique_ptr<Executable> other;
  ASSERT_TRUE(
      Executable::loadBytes(device, bytes.data(), bytes.size(), &other).ok());
  const Entry *e = nullptr;
  ASSERT_TRUE(other->findEntry("affine", &e).ok());
  EXPECT_EQ(exe->run(*e, {}, {}).message(),
            "entry does not belong to this executable");
}

INSTANTIATE_TEST_SUITE_P(Devices, ExecutableTest,
                         ::testing::ValuesIn(testDeviceKinds()),
                         [](const ::testing::TestParamInfo<DeviceKind> &info) {
                           return deviceKindName(info.param);
                         });

} // namespace
