//===- MathAccuracyTest.cpp - the CPU's math functions against libm -------===//
//
// Each op is one elementwise export compiled for the CPU (its f32 polynomial
// from --arr-expand-math) and run through the runtime on a sweep of inputs.
// sqrt (the square-root instruction) must be correctly rounded: equal to the
// double sqrt rounded to f32 (exact, since 53 >= 2 * 24 + 2).
// Every other result is compared with the op computed in double by the C
// library (an error far below 2^-29 f32 ulp), in f32 ulp of that exact value:
// the spacing of f32 at its magnitude, 2^-149 for a denormal one, 2^104 beyond
// FLT_MAX (an inf result counts as 2^128 there). Results that are exactly
// ±0, ±inf or NaN in double (log(0), tanh(-0), pow's special cases) must be
// exactly that, sign of zero included. The bounds asserted are docs/math.md's.
//
// Inputs of the unary ops: one f32 bit pattern in every block of 2^10 (the
// whole line, both signs, denormals, inf and NaN included; a hashed offset in
// each block), every pattern near the edges (overflow, underflow, the
// polynomials' switch points, 1 for log, 0; every positive denormal for log),
// and the special values. powf:
// x of every binade with y chosen so that y log2|x| covers [-155, 135]
// (where the result is neither 0 nor inf), negative x with integer y, small
// integer y, and C99's special cases one by one. sin, cos, log1p, expm1,
// erf, softplus and the roundings (floor, ceil, round) take a lighter sweep:
// one pattern in every block of 2^15 and their own edges (about 150000
// inputs each); the roundings must be exact. sin and cos keep their bound
// for |x| <= 2^30; beyond, their error relative to |x| is bounded and every
// result lies in [-1, 1]. With VMAPC_MATH_EXHAUSTIVE=1 in the environment
// the unary ops take every f32 instead (minutes per op).
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

#include "llvm/ADT/bit.h"

#include <cassert>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMinNormal = 0x1p-126f;
constexpr float kMinDenormal = 0x1p-149f;

float fromBits(uint32_t bits) { return llvm::bit_cast<float>(bits); }
uint32_t toBits(float v) { return llvm::bit_cast<uint32_t>(v); }

/// Error of `actual` against the exact `expected` in f32 ulp (see the file
/// comment); infinite when a special value (±0, ±inf, NaN) is not matched.
double ulpError(float actual, double expected) {
  if (std::isnan(expected) || std::isnan(actual))
    return std::isnan(expected) && std::isnan(actual) ? 0.0 : INFINITY;
  if (std::isinf(expected) || expected == 0.0)
    return toBits(actual) == toBits(static_cast<float>(expected)) ? 0.0
                                                                  : INFINITY;
  double clampedExpected = std::fmin(std::fabs(expected), 0x1p128);
  double ulp =
      std::fabs(expected) < 0x1p-126
          ? 0x1p-149
          : std::ldexp(1.0, std::min(std::ilogb(clampedExpected), 127) - 23);
  double a = std::isinf(actual) ? std::copysign(0x1p128, actual) : actual;
  double e = std::copysign(clampedExpected, expected);
  return std::fabs(a - e) / ulp;
}

std::string show(float v) {
  std::ostringstream os;
  os.precision(9);
  os << v << " (0x" << std::hex << toBits(v) << ")";
  return os.str();
}

/// One op compiled as an export over f32 scalars, run on a whole array.
class Op {
public:
  /// `call` is the expression of the example, in x (and y).
  Op(const std::string &call, int arity) : arity(arity) {
    std::string params = arity == 1 ? "x: f32" : "x: f32, y: f32";
    std::string source = "fn f(" + params + ") -> f32 { return " + call +
                         "; }\nexport e = vmap(f, batch=4096);\n";
    compiled = compileProgram(source, program);
  }

  ::testing::AssertionResult compiled = ::testing::AssertionSuccess();

  std::vector<float> run(const std::vector<float> &x,
                         const std::vector<float> &y = {}) {
    int64_t n = x.size();
    std::vector<float> out(n, kNaN);
    std::vector<HostArray> inputs = {{x.data(), DType::F32, {n}}};
    if (arity == 2)
      inputs.push_back({y.data(), DType::F32, {n}});
    std::vector<MutableHostArray> outputs = {{out.data(), DType::F32, {n}}};
    Status status = program.executable->run("e", inputs, outputs);
    EXPECT_TRUE(status.ok()) << status.message();
    return out;
  }

private:
  int arity;
  CompiledProgram program;
};

/// The largest error over a sweep, and where.
struct Worst {
  double ulp = 0.0;
  float x = 0.0f, y = 0.0f, actual = 0.0f;
  double expected = 0.0;
  size_t count = 0;

  void add(double error, float xv, float yv, float a, double e) {
    ++count;
    if (error > ulp || (std::isnan(error) && !std::isnan(ulp))) {
      ulp = error;
      x = xv;
      y = yv;
      actual = a;
      expected = e;
    }
  }
  std::string where(int arity) const {
    std::ostringstream os;
    os.precision(17);
    os << ulp << " ulp over " << count << " inputs, worst at x = " << show(x);
    if (arity == 2)
      os << ", y = " << show(y);
    os << ": " << show(actual) << ", exact " << expected;
    return os.str();
  }
};

using DenseRanges = std::initializer_list<std::pair<float, float>>;

/// One f32 in every block of 2^blockBits bit patterns (a hashed offset in
/// each), then every pattern of [from, to] for each (from, to) in `dense`
/// (from and to of one sign).
std::vector<float> sweep(DenseRanges dense, int blockBits = 10) {
  std::vector<float> values;
  uint32_t mask = (uint32_t(1) << blockBits) - 1;
  for (uint64_t block = 0; block < (uint64_t(1) << (32 - blockBits)); ++block) {
    uint32_t offset = (block * 2654435761u >> 7) & mask;
    values.push_back(
        fromBits(static_cast<uint32_t>(block << blockBits) | offset));
  }
  for (auto [from, to] : dense) {
    // Patterns of one sign are ordered like their values by magnitude.
    uint32_t a = toBits(from), b = toBits(to);
    assert(std::signbit(from) == std::signbit(to) && "a range of one sign");
    for (uint32_t bits = std::min(a, b); bits <= std::max(a, b); ++bits)
      values.push_back(fromBits(bits));
  }
  for (float special :
       {0.0f, -0.0f, kInf, -kInf, kNaN, -kNaN, kMinNormal, -kMinNormal,
        kMinDenormal, -kMinDenormal, 1.0f, -1.0f,
        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max()})
    values.push_back(special);
  return values;
}

/// VMAPC_MATH_EXHAUSTIVE=1 in the environment: the unary ops are measured on
/// every f32 bit pattern (2^32, several minutes per op) instead of sweep().
bool exhaustive() {
  const char *value = std::getenv("VMAPC_MATH_EXHAUSTIVE");
  return value && std::string(value) == "1";
}

/// Runs `op` on sweep(dense, blockBits), or on every f32 if exhaustive(),
/// and calls visit(x, op(x)) for each input.
void forEachResult(Op &op, DenseRanges dense, int blockBits,
                   const std::function<void(float, float)> &visit) {
  auto run = [&](const std::vector<float> &x) {
    std::vector<float> actual = op.run(x);
    for (size_t i = 0; i < x.size(); ++i)
      visit(x[i], actual[i]);
  };
  if (!exhaustive()) {
    run(sweep(dense, blockBits));
    return;
  }
  std::vector<float> x(size_t(1) << 24);
  for (uint64_t start = 0; start < (uint64_t(1) << 32); start += x.size()) {
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = fromBits(static_cast<uint32_t>(start + i));
    run(x);
  }
}

/// The largest error of `op` against `exact` over sweep(dense, blockBits),
/// or over every f32 if exhaustive().
Worst measureUnary(Op &op, double (*exact)(double), DenseRanges dense,
                   int blockBits = 10) {
  Worst worst;
  forEachResult(op, dense, blockBits, [&](float x, float actual) {
    double expected = exact(x);
    worst.add(ulpError(actual, expected), x, 0.0f, actual, expected);
  });
  return worst;
}

/// Asserts that op(x) is exactly `expected` for each pair (sign of zero and
/// NaN included).
void expectExact(Op &op,
                 const std::vector<std::tuple<float, float, float>> &cases,
                 int arity) {
  std::vector<float> x, y;
  for (auto [xv, yv, unused] : cases) {
    x.push_back(xv);
    y.push_back(yv);
  }
  std::vector<float> actual = arity == 1 ? op.run(x) : op.run(x, y);
  for (size_t i = 0; i < cases.size(); ++i) {
    float expected = std::get<2>(cases[i]);
    bool same = std::isnan(expected) ? std::isnan(actual[i])
                                     : toBits(actual[i]) == toBits(expected);
    EXPECT_TRUE(same) << "x = " << show(x[i])
                      << (arity == 2 ? ", y = " + show(y[i]) : "") << ": "
                      << show(actual[i]) << ", expected " << show(expected);
  }
}

void expectExact(Op &op,
                 const std::vector<std::pair<float, float>> &unaryCases) {
  std::vector<std::tuple<float, float, float>> cases;
  for (auto [x, expected] : unaryCases)
    cases.emplace_back(x, 0.0f, expected);
  expectExact(op, cases, 1);
}

//===----------------------------------------------------------------------===//
// exp
//===----------------------------------------------------------------------===//

/// exp rounds to inf from this input up and to 0 below kExpZero.
constexpr float kExpOverflow = 0x1.62e430p+6f; // 88.7228394
constexpr float kExpLastFinite = 0x1.62e42ep+6f;
constexpr float kExpZero = -0x1.9fe36ap+6f; // -103.972084: e^x < 2^-150

TEST(MathAccuracy, ExpWithin1UlpEverywhere) {
  Op op("exp(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(
      op, [](double v) { return std::exp(v); },
      {{0x1.62e000p+6f, 89.0f},            // overflow
       {-0x1.5c0000p+6f, -0x1.5e0000p+6f}, // results around FLT_MIN
       {-0x1.9f0000p+6f, -104.0f},         // around the last denormal
       {0x1.fep-25f, 0x1.02p-24f},         // results around 1
       {-0x1.fep-25f, -0x1.02p-24f},
       {0.345f, 0.348f},
       {-0.345f, -0.348f}}); // k from 0 to ±1
  EXPECT_LE(worst.ulp, 1.0) << worst.where(1);
  std::cout << "exp: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, ExpSpecialValues) {
  Op op("exp(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 1.0f},
                   {-0.0f, 1.0f},
                   {kInf, kInf},
                   {-kInf, 0.0f},
                   {kNaN, kNaN},
                   {kExpOverflow, kInf},
                   {1000.0f, kInf},
                   {kExpZero, 0.0f},
                   {-1000.0f, 0.0f},
                   {-103.0f, kMinDenormal}});
  std::vector<float> last = op.run({kExpLastFinite});
  EXPECT_TRUE(std::isfinite(last[0])) << show(last[0]);
}

//===----------------------------------------------------------------------===//
// log
//===----------------------------------------------------------------------===//

TEST(MathAccuracy, LogWithin2UlpEverywhere) {
  Op op("log(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst =
      measureUnary(op, [](double v) { return std::log(v); },
                   {{0.99f, 1.01f},               // around 1
                    {0.7f, 0.715f},               // the sqrt(1/2) switch
                    {0x1p-149f, 0x1.001p-126f}}); // every positive denormal
  EXPECT_LE(worst.ulp, 2.0) << worst.where(1);
  std::cout << "log: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, LogSpecialValues) {
  Op op("log(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, -kInf},
                   {-0.0f, -kInf},
                   {1.0f, 0.0f},
                   {kInf, kInf},
                   {-kInf, kNaN},
                   {-1.0f, kNaN},
                   {-kMinDenormal, kNaN},
                   {kNaN, kNaN}});
}

//===----------------------------------------------------------------------===//
// tanh
//===----------------------------------------------------------------------===//

TEST(MathAccuracy, TanhWithin2UlpEverywhere) {
  Op op("tanh(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(op, [](double v) { return std::tanh(v); },
                             {{0.50f, 0.52f}, // the largest errors (k = -1)
                              {-0.50f, -0.52f},
                              {0.17f, 0.18f}, // the switch from k = 0 to k = -1
                              {-0.17f, -0.18f},
                              {7.9f, 9.1f}, // where the result becomes 1
                              {-7.9f, -9.1f}});
  EXPECT_LE(worst.ulp, 2.0) << worst.where(1);
  std::cout << "tanh: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, TanhSpecialValues) {
  Op op("tanh(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 0.0f},
                   {-0.0f, -0.0f},
                   {kInf, 1.0f},
                   {-kInf, -1.0f},
                   {100.0f, 1.0f},
                   {-100.0f, -1.0f},
                   {kNaN, kNaN},
                   {kMinDenormal, kMinDenormal},
                   {-kMinDenormal, -kMinDenormal},
                   {1e-30f, 1e-30f}});
}

//===----------------------------------------------------------------------===//
// sqrt
//===----------------------------------------------------------------------===//

TEST(MathAccuracy, SqrtCorrectlyRoundedEverywhere) {
  Op op("sqrt(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(
      op, [](double v) { return double(static_cast<float>(std::sqrt(v))); },
      {{0x1p-149f, 0x1p-136f}, {0.999f, 1.001f}, {3.99f, 4.01f}});
  EXPECT_EQ(worst.ulp, 0.0) << worst.where(1);
  std::cout << "sqrt: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, SqrtSpecialValues) {
  Op op("sqrt(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 0.0f},
                   {-0.0f, -0.0f},
                   {kInf, kInf},
                   {-kInf, kNaN},
                   {-1.0f, kNaN},
                   {-kMinDenormal, kNaN},
                   {kNaN, kNaN},
                   {4.0f, 2.0f},
                   {0x1p-148f, 0x1p-74f},
                   {2.0f, 0x1.6a09e6p+0f}});
}

//===----------------------------------------------------------------------===//
// pow
//===----------------------------------------------------------------------===//

/// A deterministic stream of 64-bit values (SplitMix64).
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return (next() >> 11) * 0x1p-53; }
};

TEST(MathAccuracy, PowWithin1UlpEverywhere) {
  Op op("pow(x, y)", 2);
  ASSERT_TRUE(op.compiled);
  std::vector<float> x, y;
  SplitMix random{42};
  for (int i = 0; i < (1 << 21); ++i) {
    // Positive finite x of any binade (denormals included), y such that
    // y log2 x is uniform where the result is neither 0 nor inf.
    float xv = fromBits(1 + random.next() % (toBits(kInf) - 1));
    double t = -155.0 + 290.0 * random.uniform();
    float yv = static_cast<float>(t / std::log2(static_cast<double>(xv)));
    if (i % 4 == 1) {
      // Negative x with an integer y (the sign from its parity).
      yv = std::nearbyint(yv);
      xv = -xv;
    } else if (i % 4 == 2) {
      // Small integer powers.
      yv = static_cast<float>(static_cast<int>(random.next() % 65) - 32);
      xv = (random.uniform() < 0.5 ? -1.0f : 1.0f) *
           static_cast<float>(std::exp2(8.0 * random.uniform() - 4.0));
    }
    x.push_back(xv);
    y.push_back(yv);
  }
  std::vector<float> actual = op.run(x, y);
  Worst worst;
  for (size_t i = 0; i < x.size(); ++i) {
    double expected = std::pow(double(x[i]), double(y[i]));
    worst.add(ulpError(actual[i], expected), x[i], y[i], actual[i], expected);
  }
  EXPECT_LE(worst.ulp, 1.0) << worst.where(2);
  std::cout << "pow: " << worst.where(2) << "\n";
}

TEST(MathAccuracy, PowSpecialCasesOfC99) {
  Op op("pow(x, y)", 2);
  ASSERT_TRUE(op.compiled);
  float odd = 0x1p23f + 1.0f; // the largest odd f32 is 2^24 - 1
  expectExact(op,
              {// pow(x, ±0) = 1 for any x, NaN included.
               {kNaN, 0.0f, 1.0f},
               {kNaN, -0.0f, 1.0f},
               {-kInf, 0.0f, 1.0f},
               {0.0f, -0.0f, 1.0f},
               {-3.5f, 0.0f, 1.0f},
               // pow(+1, y) = 1 for any y, NaN included; pow(-1, ±inf) = 1.
               {1.0f, kNaN, 1.0f},
               {1.0f, kInf, 1.0f},
               {1.0f, -kInf, 1.0f},
               {-1.0f, kInf, 1.0f},
               {-1.0f, -kInf, 1.0f},
               // Otherwise NaN in gives NaN.
               {-1.0f, kNaN, kNaN},
               {kNaN, 1.0f, kNaN},
               {2.0f, kNaN, kNaN},
               {0.0f, kNaN, kNaN},
               // Finite negative x, finite non-integer y: NaN.
               {-2.0f, 0.5f, kNaN},
               {-8.0f, 1.0f / 3.0f, kNaN},
               {-kMinDenormal, 1.5f, kNaN},
               // Negative x, integer y: the sign of y's parity.
               {-2.0f, 3.0f, -8.0f},
               {-2.0f, 2.0f, 4.0f},
               {-2.0f, -1.0f, -0.5f},
               {-1.0f, odd, -1.0f},
               {-1.0f, 0x1p25f, 1.0f},
               {-2.0f, 0x1p24f + 2.0f, kInf},
               {-2.0f, -odd, -0.0f},
               // pow(±0, y < 0): ±inf for odd y, +inf otherwise.
               {0.0f, -3.0f, kInf},
               {-0.0f, -3.0f, -kInf},
               {-0.0f, -1.0f, -kInf},
               {0.0f, -2.0f, kInf},
               {-0.0f, -2.0f, kInf},
               {-0.0f, -0.5f, kInf},
               {-0.0f, -kInf, kInf},
               {0.0f, -kInf, kInf},
               // pow(±0, y > 0): ±0 for odd y, +0 otherwise.
               {0.0f, 3.0f, 0.0f},
               {-0.0f, 3.0f, -0.0f},
               {-0.0f, 1.0f, -0.0f},
               {-0.0f, 2.0f, 0.0f},
               {-0.0f, 0.5f, 0.0f},
               {-0.0f, kInf, 0.0f},
               // y = ±inf.
               {0.5f, -kInf, kInf},
               {-0.5f, -kInf, kInf},
               {2.0f, -kInf, 0.0f},
               {-2.0f, -kInf, 0.0f},
               {0.5f, kInf, 0.0f},
               {-0.5f, kInf, 0.0f},
               {2.0f, kInf, kInf},
               {-2.0f, kInf, kInf},
               {std::nextafter(1.0f, 2.0f), kInf, kInf},
               {std::nextafter(1.0f, 0.0f), kInf, 0.0f},
               // x = -inf: -0 or -inf for odd y, +0 or +inf otherwise.
               {-kInf, -3.0f, -0.0f},
               {-kInf, -2.0f, 0.0f},
               {-kInf, -0.5f, 0.0f},
               {-kInf, 3.0f, -kInf},
               {-kInf, 2.0f, kInf},
               {-kInf, 0.5f, kInf},
               // x = +inf.
               {kInf, -1.0f, 0.0f},
               {kInf, -0.5f, 0.0f},
               {kInf, 0.5f, kInf},
               {kInf, 2.0f, kInf},
               // Exact powers, overflow and underflow, denormal x.
               {2.0f, 10.0f, 1024.0f},
               {3.0f, 2.0f, 9.0f},
               {10.0f, 3.0f, 1000.0f},
               {0.5f, -3.0f, 8.0f},
               {7.0f, 1.0f, 7.0f},
               {2.0f, 127.0f, 0x1p127f},
               {2.0f, 128.0f, kInf},
               {2.0f, -149.0f, kMinDenormal},
               {2.0f, -150.0f, 0.0f},
               {-2.0f, -151.0f, -0.0f},
               {10.0f, 39.0f, kInf},
               {10.0f, -46.0f, 0.0f},
               {kMinDenormal, 1.0f, kMinDenormal},
               {0x1p-148f, 0.5f, 0x1p-74f},
               {kMinDenormal, -1.0f, kInf}},
              2);
}

//===----------------------------------------------------------------------===//
// sin, cos, log1p, expm1, erf, softplus, floor, ceil, round
//===----------------------------------------------------------------------===//

/// The lighter sweep of these ops: one pattern in every block of 2^15.
constexpr int kLightBlockBits = 15;

/// The largest |x| where sin and cos keep their bound.
constexpr float kTrigRange = 0x1p30f;

/// sin or cos against the C library over sweep(dense, kLightBlockBits): within
/// `bound` ulp for |x| <= 2^30, ±inf and NaN; beyond, every result in [-1, 1]
/// and, for |x| <= 2^50, off by at most |x| 2^-51 (the rounding of k times
/// the first part of pi/2).
void expectTrigBounds(const std::string &name, double (*exact)(double),
                      double bound, DenseRanges dense) {
  Op op(name + "(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst inRange;
  double worstRatio = 0.0;
  float ratioX = 0.0f;
  size_t beyond = 0, unbounded = 0;
  float unboundedX = 0.0f;
  forEachResult(op, dense, kLightBlockBits, [&](float x, float actual) {
    double expected = exact(x);
    if (!(std::isfinite(x) && std::fabs(x) > kTrigRange)) {
      inRange.add(ulpError(actual, expected), x, 0.0f, actual, expected);
      return;
    }
    ++beyond;
    if (!(std::fabs(actual) <= 1.0f)) {
      ++unbounded;
      unboundedX = x;
    }
    double ratio = std::fabs(actual - expected) / std::fabs(x);
    if (std::fabs(x) <= 0x1p50f && ratio > worstRatio) {
      worstRatio = ratio;
      ratioX = x;
    }
  });
  EXPECT_LE(inRange.ulp, bound) << name << ": " << inRange.where(1);
  EXPECT_EQ(unbounded, 0u) << name << "(" << show(unboundedX)
                           << ") is outside [-1, 1]";
  EXPECT_LE(worstRatio, 0x1p-51) << name << ": at x = " << show(ratioX);
  EXPECT_GT(beyond, 0u);
  std::cout << name << ": " << inRange.where(1) << "; beyond 2^30 (" << beyond
            << " inputs): error at most |x| * 2^" << std::log2(worstRatio)
            << " up to 2^50\n";
}

TEST(MathAccuracy, SinWithinHalfUlpUpTo2To30) {
  expectTrigBounds(
      "sin", [](double v) { return std::sin(v); }, 0.501,
      {{0x1.921e00p-1f, 0x1.922000p-1f}, // pi/4: from sin r to cos r
       {0x1.921e00p+0f, 0x1.922000p+0f}, // pi/2
       {0x1.921e00p+1f, 0x1.922000p+1f}, // pi: a result near 0
       {-0x1.921e00p+1f, -0x1.922000p+1f},
       {0x1.2d9700p+2f, 0x1.2d9900p+2f},     // x nearest to k pi/2 below 2^3
       {0x1.f9cb00p+7f, 0x1.f9cd00p+7f},     // and below 2^30
       {0x1.fff000p+29f, 0x1.002000p+30f}}); // 2^30
}

TEST(MathAccuracy, CosWithinHalfUlpUpTo2To30) {
  expectTrigBounds("cos", [](double v) { return std::cos(v); }, 0.501,
                   {{0x1.921e00p-1f, 0x1.922000p-1f},
                    {0x1.921e00p+0f, 0x1.922000p+0f}, // pi/2: a result near 0
                    {-0x1.921e00p+0f, -0x1.922000p+0f},
                    {0x1.921e00p+1f, 0x1.922000p+1f},
                    {0x1.2d9700p+2f, 0x1.2d9900p+2f},
                    {0x1.f9cb00p+7f, 0x1.f9cd00p+7f},
                    {0x1.fff000p+29f, 0x1.002000p+30f}});
}

TEST(MathAccuracy, SinCosSpecialValues) {
  Op sin("sin(x)", 1), cos("cos(x)", 1);
  ASSERT_TRUE(sin.compiled);
  ASSERT_TRUE(cos.compiled);
  float halfPi = 0x1.921fb6p+0f, pi = 0x1.921fb6p+1f; // rounded up
  expectExact(sin, {{0.0f, 0.0f},
                    {-0.0f, -0.0f},
                    {kInf, kNaN},
                    {-kInf, kNaN},
                    {kNaN, kNaN},
                    {kMinDenormal, kMinDenormal},
                    {-kMinDenormal, -kMinDenormal},
                    {1e-30f, 1e-30f},
                    {halfPi, 1.0f},
                    {-halfPi, -1.0f},
                    {pi, -0x1.777a5cp-24f},
                    {1.0f, 0x1.aed548p-1f}});
  expectExact(cos, {{0.0f, 1.0f},
                    {-0.0f, 1.0f},
                    {kInf, kNaN},
                    {-kInf, kNaN},
                    {kNaN, kNaN},
                    {kMinDenormal, 1.0f},
                    {halfPi, -0x1.777a5cp-25f},
                    {pi, -1.0f},
                    {-pi, -1.0f},
                    {1.0f, 0x1.14a28p-1f}});
}

TEST(MathAccuracy, Log1pWithinHalfUlpEverywhere) {
  Op op("log1p(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(
      op, [](double v) { return std::log1p(v); },
      {{0x1.ffe000p-30f, 0x1.002000p-29f}, // 2^-29: x itself below
       {-0x1.ffe000p-30f, -0x1.002000p-29f},
       {-1.0f, -0x1.ffe000p-1f},           // near -1
       {0x1.a82000p-2f, 0x1.a84000p-2f},   // 1 + x = sqrt(2)
       {-0x1.2bea00p-2f, -0x1.2bec00p-2f}, // 1 + x = sqrt(1/2)
       {0x1.fff000p+127f, std::numeric_limits<float>::max()}},
      kLightBlockBits);
  EXPECT_LE(worst.ulp, 0.501) << worst.where(1);
  std::cout << "log1p: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, Log1pSpecialValues) {
  Op op("log1p(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 0.0f},
                   {-0.0f, -0.0f},
                   {-1.0f, -kInf},
                   {kInf, kInf},
                   {-kInf, kNaN},
                   {-2.0f, kNaN},
                   {std::nextafter(-1.0f, -2.0f), kNaN},
                   {kNaN, kNaN},
                   {kMinDenormal, kMinDenormal},
                   {-kMinDenormal, -kMinDenormal},
                   {1e-30f, 1e-30f},
                   {1.0f, 0x1.62e43p-1f},
                   {std::numeric_limits<float>::max(), 0x1.62e43p+6f}});
}

TEST(MathAccuracy, Expm1WithinHalfUlpEverywhere) {
  Op op("expm1(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(
      op, [](double v) { return std::expm1(v); },
      {{0x1.62e400p+6f, 0x1.62e500p+6f},    // overflow
       {0x1.62e000p-2f, 0x1.631000p-2f},    // ln(2)/2: n from 0 to 1
       {-0x1.62e000p-2f, -0x1.631000p-2f},  // and to -1
       {-0x1.154000p+4f, -0x1.155000p+4f},  // where the result becomes -1
       {0x1.ffe000p-26f, 0x1.002000p-25f}}, // tiny
      kLightBlockBits);
  EXPECT_LE(worst.ulp, 0.501) << worst.where(1);
  std::cout << "expm1: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, Expm1SpecialValues) {
  Op op("expm1(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 0.0f},
                   {-0.0f, -0.0f},
                   {kInf, kInf},
                   {-kInf, -1.0f},
                   {kNaN, kNaN},
                   {kMinDenormal, kMinDenormal},
                   {-kMinDenormal, -kMinDenormal},
                   {1e-30f, 1e-30f},
                   {kExpOverflow, kInf},
                   {1000.0f, kInf},
                   {kExpLastFinite, 0x1.ffff08p+127f},
                   {-16.0f, -0x1.fffffcp-1f},
                   {-17.5f, -1.0f},
                   {-1000.0f, -1.0f}});
}

TEST(MathAccuracy, ErfWithinHalfUlpEverywhere) {
  Op op("erf(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(
      op, [](double v) { return std::erf(v); },
      {{0x1.ffe000p+0f, 0x1.002000p+1f}, // 2: from x P(x^2) to Q
       {-0x1.ffe000p+0f, -0x1.002000p+1f},
       {0x1.f5c000p+1f, 0x1.f5d000p+1f},  // 3.92: the result becomes 1
       {0x1.f7f000p+1f, 0x1.f81000p+1f}}, // 3.9375: from Q to 1
      kLightBlockBits);
  EXPECT_LE(worst.ulp, 0.501) << worst.where(1);
  std::cout << "erf: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, ErfSpecialValues) {
  Op op("erf(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 0.0f},
                   {-0.0f, -0.0f},
                   {kInf, 1.0f},
                   {-kInf, -1.0f},
                   {kNaN, kNaN},
                   {kMinDenormal, kMinDenormal},
                   {-kMinDenormal, -kMinDenormal},
                   {1e-30f, 0x1.6e2e12p-100f},
                   {1.0f, 0x1.af767ap-1f},
                   {3.9375f, 1.0f},
                   {4.0f, 1.0f},
                   {-4.0f, -1.0f},
                   {1e30f, 1.0f}});
}

/// jax.nn.softplus in double: log1p(exp(-|x|)) + max(x, 0).
double softplusExact(double x) {
  if (std::isnan(x))
    return x;
  return std::log1p(std::exp(-std::fabs(x))) + std::fmax(x, 0.0);
}

TEST(MathAccuracy, SoftplusWithin2UlpEverywhere) {
  Op op("softplus(x)", 1);
  ASSERT_TRUE(op.compiled);
  Worst worst = measureUnary(op, softplusExact,
                             {{-0x1.000000p-4f, -0x1.004000p-4f}, // near 0
                              {0x1.000000p-4f, 0x1.004000p-4f},
                              {-0x1.5d5800p+6f, -0x1.5d5a00p+6f},  // FLT_MIN
                              {-0x1.9fe300p+6f, -0x1.9fe400p+6f}}, // 2^-150
                             kLightBlockBits);
  EXPECT_LE(worst.ulp, 2.0) << worst.where(1);
  std::cout << "softplus: " << worst.where(1) << "\n";
}

TEST(MathAccuracy, SoftplusSpecialValues) {
  Op op("softplus(x)", 1);
  ASSERT_TRUE(op.compiled);
  expectExact(op, {{0.0f, 0x1.62e43p-1f},
                   {-0.0f, 0x1.62e43p-1f},
                   {kInf, kInf},
                   {-kInf, 0.0f},
                   {kNaN, kNaN},
                   {100.0f, 100.0f},
                   {-200.0f, 0.0f},
                   {std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::max()}});
}

/// floor, ceil and round (half to even) must be exact everywhere, the sign of
/// zero included.
TEST(MathAccuracy, RoundingsExactEverywhere) {
  for (auto [name, exact] :
       std::initializer_list<std::pair<const char *, double (*)(double)>>{
           {"floor", [](double v) { return std::floor(v); }},
           {"ceil", [](double v) { return std::ceil(v); }},
           {"round", [](double v) { return std::nearbyint(v); }}}) {
    Op op(std::string(name) + "(x)", 1);
    ASSERT_TRUE(op.compiled);
    Worst worst = measureUnary(op, exact,
                               {{0x1.fff000p+22f, 0x1.001000p+23f}, // 2^23
                                {-0x1.fff000p+22f, -0x1.001000p+23f},
                                {0x1.fff000p-2f, 0x1.001000p-1f}, // 0.5
                                {-0x1.fff000p-2f, -0x1.001000p-1f},
                                {0x1.7ff000p+1f, 0x1.801000p+1f}}, // 2.5
                               kLightBlockBits);
    EXPECT_EQ(worst.ulp, 0.0) << name << ": " << worst.where(1);
    std::cout << name << ": " << worst.where(1) << "\n";
  }
}

TEST(MathAccuracy, RoundingsSpecialValues) {
  Op floor("floor(x)", 1), ceil("ceil(x)", 1), round("round(x)", 1);
  ASSERT_TRUE(floor.compiled);
  ASSERT_TRUE(ceil.compiled);
  ASSERT_TRUE(round.compiled);
  float below2To23 = 0x1p23f - 0.5f; // 8388607.5
  float belowHalf = std::nextafter(0.5f, 0.0f);
  std::vector<std::pair<float, float>> common = {
      {0.0f, 0.0f},   {-0.0f, -0.0f},  {kInf, kInf},   {-kInf, -kInf},
      {kNaN, kNaN},   {3.0f, 3.0f},    {-3.0f, -3.0f}, {0x1p23f, 0x1p23f},
      {1e30f, 1e30f}, {-1e30f, -1e30f}};
  auto with = [&](std::vector<std::pair<float, float>> cases) {
    cases.insert(cases.end(), common.begin(), common.end());
    return cases;
  };
  expectExact(floor, with({{0.5f, 0.0f},
                           {-0.5f, -1.0f},
                           {1.5f, 1.0f},
                           {-1.5f, -2.0f},
                           {0.7f, 0.0f},
                           {-0.7f, -1.0f},
                           {kMinDenormal, 0.0f},
                           {-kMinDenormal, -1.0f},
                           {below2To23, 0x1p23f - 1.0f},
                           {-below2To23, -0x1p23f}}));
  expectExact(ceil, with({{0.5f, 1.0f},
                          {-0.5f, -0.0f},
                          {1.5f, 2.0f},
                          {-1.5f, -1.0f},
                          {-0.7f, -0.0f},
                          {kMinDenormal, 1.0f},
                          {-kMinDenormal, -0.0f},
                          {below2To23, 0x1p23f},
                          {-below2To23, -(0x1p23f - 1.0f)}}));
  expectExact(round, with({{0.5f, 0.0f},
                           {1.5f, 2.0f},
                           {2.5f, 2.0f},
                           {-0.5f, -0.0f},
                           {-1.5f, -2.0f},
                           {-2.5f, -2.0f},
                           {belowHalf, 0.0f},
                           {std::nextafter(0.5f, 1.0f), 1.0f},
                           {-0.3f, -0.0f},
                           {kMinDenormal, 0.0f},
                           {-kMinDenormal, -0.0f},
                           {below2To23, 0x1p23f},
                           {0x1p23f - 1.5f, 0x1p23f - 2.0f}}));
}

} // namespace
