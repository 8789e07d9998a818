//===- DonationTest.cpp - donate= through the compiler and the runtime ----===//
//
// Entries exported with `donate=` (docs/runtime.md, "Donation"), compiled in
// memory and run at N in {0, 1, B-1, B, 2B+3} (in place, partial chunks
// through the staging slot, a batch axis that is not outermost): with one
// buffer passed as the donated input and its output, the buffer holds the
// output afterwards; with two buffers, the output is right and the input
// is left as it was. The expected values are computed here, element by
// element, from the per-example definition.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

constexpr int64_t kBatch = 4;

const char *const kSource = R"arr(
# x.at[i].add(1.0) written into x's own bytes.
fn bump(x: f32[6], i: i32) -> f32[6] { return x.at[i].add(1.0); }
export bump_e = vmap(bump, in_axes=(0, 0), donate=(0,), batch=4);

# An elementwise step on examples along axis 1 ([3, N]), out axis 1.
fn step(x: f32[3], s: f32) -> f32[3] { return x * s + 1.0; }
export step_e = vmap(step, in_axes=(1, none), out_axes=1, donate=0, batch=4);
)arr";

class Donation
    : public CompiledOnceSuite<Donation, ::testing::TestWithParam<int64_t>> {
public:
  static inline const char *const kProgramSource = kSource;
};

std::vector<float> bumpExpected(const std::vector<float> &x,
                                const std::vector<int32_t> &i) {
  std::vector<float> y = x;
  for (size_t b = 0; b < i.size(); ++b) {
    int32_t k = i[b] < 0 ? i[b] + 6 : i[b];
    if (k >= 0 && k < 6)
      y[b * 6 + size_t(k)] += 1.0f;
  }
  return y;
}

TEST_P(Donation, OneBufferHoldsTheOutput) {
  const int64_t n = GetParam();
  std::vector<float> x(size_t(n) * 6);
  std::vector<int32_t> i(static_cast<size_t>(n));
  for (size_t k = 0; k < x.size(); ++k)
    x[k] = float(k) * 0.5f - 2.0f;
  for (int64_t b = 0; b < n; ++b)
    i[size_t(b)] = int32_t(b * 5 % 17) - 8; // negatives and out of range
  std::vector<float> expected = bumpExpected(x, i);
  HostArray xa{x.data(), DType::F32, {n, 6}};
  HostArray ia{i.data(), DType::I32, {n}};
  MutableHostArray ya{x.data(), DType::F32, {n, 6}};
  Status s = program->executable->run("bump_e", {xa, ia}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(x, expected);
}

TEST_P(Donation, TwoBuffersLeaveTheInputAsItWas) {
  const int64_t n = GetParam();
  std::vector<float> x(size_t(n) * 6), y(size_t(n) * 6 + 1, -9.0f);
  std::vector<int32_t> i(static_cast<size_t>(n));
  for (size_t k = 0; k < x.size(); ++k)
    x[k] = float(k) * 0.25f + 1.0f;
  for (int64_t b = 0; b < n; ++b)
    i[size_t(b)] = int32_t(b % 7) - 3;
  std::vector<float> original = x, expected = bumpExpected(x, i);
  HostArray xa{x.data(), DType::F32, {n, 6}};
  HostArray ia{i.data(), DType::I32, {n}};
  MutableHostArray ya{y.data(), DType::F32, {n, 6}};
  Status s = program->executable->run("bump_e", {xa, ia}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(x, original);
  EXPECT_EQ(std::vector<float>(y.begin(), y.end() - 1), expected);
  EXPECT_EQ(y.back(), -9.0f); // nothing past the output
}

TEST_P(Donation, BatchAxisOneThroughTheStagingSlot) {
  const int64_t n = GetParam();
  std::vector<float> x(3 * size_t(n));
  for (size_t k = 0; k < x.size(); ++k)
    x[k] = float(k) - 4.0f;
  float scale = 1.5f;
  std::vector<float> expected = x;
  for (float &v : expected)
    v = v * scale + 1.0f;
  HostArray xa{x.data(), DType::F32, {3, n}};
  HostArray sa{&scale, DType::F32, {}};
  MutableHostArray ya{x.data(), DType::F32, {3, n}};
  Status s = program->executable->run("step_e", {xa, sa}, {ya});
  ASSERT_TRUE(s.ok()) << s.message();
  // x * s + 1 of small integers and 1.5: exact with or without an FMA.
  EXPECT_EQ(x, expected);
}

TEST_P(Donation, ADonatedInputMayNotOverlapAnotherArgument) {
  const int64_t n = GetParam();
  if (n < 2)
    GTEST_SKIP() << "needs two examples to overlap partly";
  std::vector<float> x(size_t(n) * 6, 1.0f);
  std::vector<int32_t> i(size_t(n), 0);
  HostArray xa{x.data(), DType::F32, {n - 1, 6}};
  HostArray ia{i.data(), DType::I32, {n - 1}};
  MutableHostArray shifted{x.data() + 6, DType::F32, {n - 1, 6}};
  Status s = program->executable->run("bump_e", {xa, ia}, {shifted});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 'x' is donated to output 'out': pass one "
                         "buffer as both, or two that do not overlap");
  EXPECT_EQ(x, std::vector<float>(size_t(n) * 6, 1.0f));
}

INSTANTIATE_TEST_SUITE_P(N, Donation,
                         ::testing::Values(int64_t(0), int64_t(1), kBatch - 1,
                                           kBatch, 2 * kBatch + 3),
                         [](const auto &info) {
                           return "N" + std::to_string(info.param);
                         });

} // namespace
