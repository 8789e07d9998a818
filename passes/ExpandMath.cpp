//===- ExpandMath.cpp - --arr-expand-math ---------------------------------===//
//
// f32 `math.exp`, `math.log`, `math.tanh`, `math.powf`, `math.sin`,
// `math.cos`, `math.log1p`, `math.expm1`, `math.erf`, `math.floor`,
// `math.ceil` and `math.roundeven`, on scalars and on vectors and ranked
// tensors of any shape, as polynomial approximations (the roundings: exact
// sequences) made of arith ops (and `math.absf`, `math.copysign`: bit
// operations) that LLVM lowers to vector instructions at every x86-64 level
// (no libm call, no `math.floor`, no `math.fma`: SSE2 has neither and LLVM
// would call `floorf`/`fmaf`). The measured bounds and the sources are in
// docs/math.md; test/e2e/MathAccuracyTest.cpp asserts them.
//
//   log   Cephes `logf` by way of Pommier's SSE code, the operations of
//         upstream MLIR's `LogApproximation`, except that a denormal input
//         is scaled into the normal range (upstream clamps it to FLT_MIN),
//   exp   Cephes `expf` (upstream's coefficients) with our own reduction and
//         scaling: upstream flushes denormal results to zero, runs its
//         polynomial far outside its interval near overflow and rounds with
//         `math.floor`,
//   tanh  our own: (1 - t) / (1 + t) with t = exp(-2|x|) = 2^k (1 + p) and
//         p = e^r - 1 kept relative (upstream's rational is off by up to 6.9
//         ulp and not 1 at inf),
//   powf  log2 and exp2 in f64, so that y * log2(x) keeps the bits that an
//         f32 exp(y * log(x)) loses; C99's special cases by selects,
//   sin, cos, log1p, expm1, erf
//         our own, in f64 and rounded once (upstream's measure 2.4 to 4.8
//         ulp, and its sin and cos lose every bit near their zeros),
//   floor, ceil, roundeven
//         |x| + 2^23 - 2^23 and a correction, exact (SSE2 has no roundps).
//
// Multiply-adds are `arith.mulf` + `arith.addf` with the `contract` flag: one
// FMA instruction where the target has one (x86-64-v3, -v4), a multiply and
// an add where it does not. Besides arith and math ops the pass emits only
// `tensor.dim` and `tensor.splat`, for the constants of a dynamically shaped
// tensor.
//
//===----------------------------------------------------------------------===//

#include "passes/MathExpansion.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace vmapc {
#define GEN_PASS_DEF_ARREXPANDMATH
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

using namespace vmapc::math_expansion;

namespace {

using arith::CmpFPredicate;
using arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// exp
//===----------------------------------------------------------------------===//

/// x = k ln 2 + r with k = round(x / ln 2), |r| <= ln 2 / 2 (Cody and Waite:
/// ln 2 = C1 + C2 with C1 of 9 bits, so k * C1 and x - k * C1 are exact).
/// k is rounded by adding 1.5 * 2^23 to x log2(e) (one multiply-add: an
/// integer, to nearest even, for |x log2(e)| < 2^22), and is returned as an
/// i32: the bits of that sum less those of 1.5 * 2^23, an integer also for a
/// NaN x (converting the f32 k would be poison).
struct Ln2Reduction {
  Value r;
  Value k;
};
Ln2Reduction reduceByLn2(Elementwise &e, Value x) {
  Value shift = e.f32(0x1.8p23);
  Value shiftedK = e.fma(x, e.f32(M_LOG2E), shift);
  Value k = e.sub(shiftedK, shift);
  Value r = e.fma(k, e.f32(-0.693359375), x);
  r = e.fma(k, e.f32(2.12194440e-4), r);
  Value kInt = e.subi(e.bitcast(e.i32Type(), shiftedK), e.i32(0x4b400000));
  return {r, kInt};
}

/// exp(x) = 2^k * e^r (reduceByLn2). Without FMA, e^r = 1 + r + r^2 P(r)
/// with Cephes' `expf` coefficients, where 1 + r is kept as s + t exactly
/// (Fast2Sum) and the small t + r^2 P(r) is added to s last: one rounding of
/// magnitude 1 instead of two (the plain form reaches 1.01 ulp with FMA).
/// With FMA (`fusedMultiplyAdd`), e^r = 1 + r (1 + r S(r)), two multiply-adds
/// after S's Horner steps, four operations fewer: the last rounding is the
/// only one of magnitude 1 and the inner one is scaled by |r| <= 0.35 (0.894
/// ulp at most on every f32, against 0.794; without FMA this form reaches
/// 1.18). S of degree 4 fits (e^r - 1 - r) / r^2 with weight r^2 / e^r
/// (iteratively reweighted least squares at Chebyshev nodes of [-0.3467,
/// 0.3467]; r^2 times its error, relative to e^r, below 3.7e-9). For x in
/// [-104, 89]; the caller scales e^r by 2^k.
struct ReducedExp {
  /// e^r.
  Value expR;
  /// k as an i32.
  Value k;
};
ReducedExp reducedExp(Elementwise &e, Value x, bool fusedMultiplyAdd) {
  auto [r, k] = reduceByLn2(e, x);
  Value one = e.f32(1.0);
  if (fusedMultiplyAdd) {
    Value s = e.polynomial(r, {0x1.fffffcp-2, 0x1.555492p-3, 0x1.5558f2p-5,
                               0x1.123a0cp-7, 0x1.6a23ecp-10});
    return {e.fma(r, e.fma(r, s, one), one), k};
  }
  Value p =
      e.polynomial(r, {5.0000001201e-1, 1.6666665459e-1, 4.1665795894e-2,
                       8.3334519073e-3, 1.3981999507e-3, 1.9875691500e-4});
  Value sum = e.add(one, r);
  Value error = e.add(e.sub(one, sum), r);
  return {e.add(sum, e.fma(e.mul(r, r), p, error)), k};
}

/// exp(x) as reducedExp gives it, with 2^k applied as 2^k1 * 2^k2 (k1 =
/// floor(k / 2)), both normal, so that a denormal result is rounded once and
/// a result above FLT_MAX becomes inf; x is clamped to [-104, 89] first,
/// where exp already rounds to 0 and to inf. A NaN passes the clamps and
/// stays NaN through the reduction and the scaling (its k is some integer,
/// NaN times any factor is NaN): a quiet NaN out, with no select on x at the
/// end, so x is not live across the polynomial.
struct ExpApproximation : OpRewritePattern<math::ExpOp> {
  ExpApproximation(MLIRContext *context, bool fusedMultiplyAdd)
      : OpRewritePattern(context), fusedMultiplyAdd(fusedMultiplyAdd) {}

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    // Ordered compares that are false for a NaN, which keeps x: one maxps
    // and one minps (each returns its second operand when either is NaN).
    Value lowest = e.f32(-104.0), highest = e.f32(89.0);
    Value clamped = e.select(e.cmp(CmpFPredicate::OLT, x, lowest), lowest, x);
    clamped =
        e.select(e.cmp(CmpFPredicate::OGT, clamped, highest), highest, clamped);
    auto [expR, k] = reducedExp(e, clamped, fusedMultiplyAdd);

    // k in [-151, 129]: k1 in [-76, 64], k2 = k - k1 in [-75, 65].
    Value k1 = e.shrsi(k, e.i32(1));
    Value k2 = e.subi(k, k1);
    // One statement each: the order in which a call's arguments are built
    // is the compiler's (g++ and clang differ), and the IR's must not be.
    Value scale1 = e.f32PowerOfTwo(k1);
    Value scale2 = e.f32PowerOfTwo(k2);
    rewriter.replaceOp(op, e.mul(e.mul(expR, scale1), scale2));
    return success();
  }

private:
  bool fusedMultiplyAdd;
};

//===----------------------------------------------------------------------===//
// log
//===----------------------------------------------------------------------===//

/// log(x) = e ln 2 + log(1 + f) with x = 2^e (1 + f), 1 + f in [sqrt(1/2),
/// sqrt(2)), and log(1 + f) = f - f^2 / 2 + f^3 P(f), P of degree 8: Cephes
/// `logf` by way of Julien Pommier's SSE code (http://gruntthepeon.free.fr/
/// ssemath), the operations and constants of upstream MLIR's
/// `LogApproximation` (mlir/lib/Dialect/Math/Transforms/
/// PolynomialApproximation.cpp). Upstream clamps x to FLT_MIN, so that log
/// of every denormal is log(FLT_MIN) = -87.34; here x < 2^-126 is scaled by
/// 2^23 and e lowered by 23. log(±0) = -inf, log(x < 0) = NaN, log(inf) =
/// inf, NaN stays NaN, by selects on x.
struct LogApproximation : OpRewritePattern<math::LogOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::LogOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    Value minNormal = e.f32(0x1p-126f);
    Value tiny = e.cmp(CmpFPredicate::OLT, x, minNormal);
    Value scaled = e.select(tiny, e.mul(x, e.f32(0x1p23f)), x);
    // What is left below FLT_MIN (0 and negative x, whose results are
    // selected at the end) becomes FLT_MIN; NaN passes (unordered compare).
    scaled = e.select(e.cmp(CmpFPredicate::UGT, scaled, minNormal), scaled,
                      minNormal);

    // frexp: scaled = 2^exponent * fraction, fraction in [0.5, 1).
    Value bits = e.bitcast(e.i32Type(), scaled);
    Value fraction =
        e.bitcast(e.f32Type(), e.ori(e.andi(bits, e.i32(~int32_t(0x7f800000))),
                                     e.i32(0x3f000000)));
    Value exponent =
        e.sub(e.sitofp(e.f32Type(), e.shrui(bits, e.i32(23))),
              e.select(tiny, e.f32(126.0f + 23.0f), e.f32(126.0f)));

    // fraction in [sqrt(1/2), sqrt(2)), minus 1:
    //   fraction < sqrt(1/2) ? (exponent - 1, 2 fraction - 1)
    //                        : (exponent, fraction - 1).
    Value zero = e.f32(0.0f), one = e.f32(1.0f);
    Value below =
        e.cmp(CmpFPredicate::OLT, fraction, e.f32(0.707106781186547524f));
    Value f = e.add(e.sub(fraction, one), e.select(below, fraction, zero));
    exponent = e.sub(exponent, e.select(below, one, zero));

    // f - f^2 / 2 + f^3 P(f), P evaluated in three parts.
    Value f2 = e.mul(f, f);
    Value f3 = e.mul(f2, f);
    Value y0 = e.fma(e.f32(7.0376836292E-2f), f, e.f32(-1.1514610310E-1f));
    Value y1 = e.fma(e.f32(-1.2420140846E-1f), f, e.f32(+1.4249322787E-1f));
    Value y2 = e.fma(e.f32(+2.0000714765E-1f), f, e.f32(-2.4999993993E-1f));
    y0 = e.fma(y0, f, e.f32(1.1676998740E-1f));
    y1 = e.fma(y1, f, e.f32(-1.6668057665E-1f));
    y2 = e.fma(y2, f, e.f32(+3.3333331174E-1f));
    y0 = e.fma(y0, f3, y1);
    y0 = e.fma(y0, f3, y2);
    y0 = e.mul(y0, f3);
    y0 = e.fma(e.f32(-0.5f), f2, y0);
    Value result = e.fma(exponent, e.f32(0x1.62e430p-1f), e.add(f, y0));

    Value isZero = e.cmp(CmpFPredicate::OEQ, x, zero);
    Value isInvalid = e.cmp(CmpFPredicate::ULT, x, zero); // x < 0 or NaN
    Value isInf = e.cmp(CmpFPredicate::OEQ, x, e.f32Inf());
    result = e.select(isInf, e.f32Inf(), result);
    result = e.select(isInvalid, e.f32NaN(), result);
    rewriter.replaceOp(op, e.select(isZero, e.f32(-INFINITY), result));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tanh
//===----------------------------------------------------------------------===//

/// tanh(x) = sign(x) (1 - t) / (1 + t) with t = e^-2|x|, one formula for every
/// x (no branch for small |x|, so no polynomial of x^2 beside the exp's): |x|
/// is clamped to 9.5 (where tanh rounds to 1 from 9.01 on; a NaN passes), y =
/// -2|x| in [-19, 0] is reduced as exp's is (reduceByLn2), y = k ln 2 + r with
/// |r| <= ln 2 / 2, and p = e^r - 1 = r + r^2 (1/2 + r Q(r)), Q of degree 4
/// fitted to (e^r - 1 - r - r^2 / 2) / r^3 with weight r^2 (least squares at
/// Chebyshev nodes of [-0.3466, 0.3466]; r^2 times its error below 1e-9), so
/// that p keeps its relative accuracy as r goes to 0. With s = 2^k (k in [-28,
/// 0]; s - 1 and s + 1 are exact for k >= -23, and below, 1 - t rounds to 1
/// anyway): 1 - t = -(s p + s - 1) and 1 + t = s p + s + 1, one multiply-add
/// each (or s p once and two adds: LLVM shares the product), and their
/// quotient: 1.91 ulp at most with FMA, 1.94 without (every f32, docs/math.md),
/// with about half the operations of a polynomial near 0 beside
/// 1 - 2 / (e^2|x| + 1). For a tiny or denormal x, r = p = y and the result is
/// y / 2 = x exactly. The quotient (at most 0) takes x's sign; NaN gives NaN.
struct TanhApproximation : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TanhOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    // min(|x|, 9.5) with a NaN kept: one minps (which returns its second
    // operand when either is NaN).
    Value ax = e.abs(x);
    Value bound = e.f32(9.5);
    Value clamped = e.select(e.cmp(CmpFPredicate::OGT, ax, bound), bound, ax);
    Value y = e.mul(clamped, e.f32(-2.0));

    auto [r, k] = reduceByLn2(e, y);
    Value q = e.polynomial(r, {0x1.555556p-3, 0x1.5554fp-5, 0x1.1110b2p-7,
                               0x1.6d427cp-10, 0x1.a16f1ap-13});
    Value half = e.fma(r, q, e.f32(0.5));
    Value expm1R = e.fma(e.mul(r, r), half, r);
    Value scale = e.f32PowerOfTwo(k);
    Value one = e.f32(1.0);
    Value tMinusOne = e.fma(scale, expm1R, e.sub(scale, one));
    Value onePlusT = e.fma(scale, expm1R, e.add(scale, one));
    rewriter.replaceOpWithNewOp<math::CopySignOp>(
        op, e.div(tMinusOne, onePlusT), x);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// powf
//===----------------------------------------------------------------------===//

/// log2(|x|) in f64 for f32 x > 0 (finite; 0 and inf are handled by the
/// caller): |x| = 2^e * m with m in [sqrt(1/2), sqrt(2)) taken from the bits
/// (a denormal is scaled by 2^23 first), then log2(m) = 2 log2(e) atanh(s)
/// with s = (m - 1) / (m + 1), |s| <= 0.172, by its Taylor series to s^15
/// (truncation below 2^-44 relative).
Value log2F64(Elementwise &e, Value ax) {
  Value denormal = e.cmp(CmpFPredicate::OLT, ax, e.f32(0x1p-126));
  Value scaled = e.select(denormal, e.mul(ax, e.f32(0x1p23)), ax);
  Value bits = e.bitcast(e.i32Type(), scaled);
  Value exponent = e.subi(e.shrui(bits, e.i32(23)),
                          e.select(denormal, e.i32(127 + 23), e.i32(127)));
  Value m = e.bitcast(
      e.f32Type(), e.ori(e.andi(bits, e.i32(0x007fffff)), e.i32(0x3f800000)));
  Value above = e.cmp(CmpFPredicate::OGT, m, e.f32(M_SQRT2));
  m = e.select(above, e.mul(m, e.f32(0.5)), m);
  exponent = e.select(above, e.addi(exponent, e.i32(1)), exponent);

  Value m64 = e.extf(m);
  Value one = e.f64(1.0);
  Value s = e.div(e.sub(m64, one), e.add(m64, one));
  SmallVector<double> series;
  for (int k = 0; k < 8; ++k)
    series.push_back(2.0 * M_LOG2E / (2 * k + 1));
  Value log2m = e.mul(s, e.polynomial(e.mul(s, s), series));
  return e.add(e.sitofp(e.f64Type(), exponent), log2m);
}

/// 2^t in f64 for f64 t, rounded once to f32: 2^t = 2^n * 2^r with n =
/// round(t) and r = t - n in [-1/2, 1/2], 2^r = e^(r ln 2) by its Taylor
/// series to r^8 (truncation below 2^-31 relative). t is clamped to [-160,
/// 130], beyond which the f32 result is 0 or inf; a NaN t gives a number
/// (the caller selects NaN).
Value exp2F64ToF32(Elementwise &e, Value t) {
  t = e.select(e.cmp(CmpFPredicate::OGE, t, e.f64(-160.0)), t, e.f64(-160.0));
  t = e.select(e.cmp(CmpFPredicate::OLE, t, e.f64(130.0)), t, e.f64(130.0));
  // Adding 1.5 * 2^52 rounds t to the integer n (to nearest even), which is
  // then in the low bits of the sum.
  Value shift = e.f64(0x1.8p52);
  Value shifted = e.add(t, shift);
  Value r = e.sub(t, e.sub(shifted, shift));
  SmallVector<double> series;
  double term = 1.0;
  for (int i = 0; i <= 8; ++i) {
    series.push_back(term);
    term *= M_LN2 / (i + 1);
  }
  Value exp2R = e.polynomial(r, series);
  // 2^n from the low 12 bits of (n's bits + 1023), n + 1023 in [863, 1153].
  Value n = e.bitcast(e.i64Type(), shifted);
  Value powerOfTwo =
      e.bitcast(e.f64Type(), e.shli(e.addi(n, e.i64(1023)), e.i64(52)));
  return e.truncf(e.mul(exp2R, powerOfTwo));
}

/// powf(x, y) = ±2^(y log2|x|) with log2 and exp2 in f64, and C99's (F.9.4.4)
/// special cases: pow(x, ±0) = 1 and pow(1, y) = 1 for any x, y (NaN too);
/// pow(-1, ±inf) = 1; NaN if x or y is NaN otherwise, or if x is finite and
/// negative and y finite and not an integer; the result is negative when x is
/// negative (-0 and -inf included) and y an odd integer; pow(±0, y < 0) and
/// pow(±inf, y > 0) are inf, pow(±0, y > 0) and pow(±inf, y < 0) are 0 (with
/// that sign); |x| < 1 with y = -inf and |x| > 1 with y = +inf give +inf, the
/// reverse +0.
struct PowFApproximation : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getLhs(), y = op.getRhs();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    // y log2|x|, with log2(0) = -inf and log2(inf) = inf, so that the
    // infinities of x and y give the right 0 or inf.
    Value ax = e.abs(x);
    Value log2x = log2F64(e, ax);
    log2x = e.select(e.cmp(CmpFPredicate::OEQ, ax, e.f32(0.0)),
                     e.f64(-INFINITY), log2x);
    log2x = e.select(e.cmp(CmpFPredicate::OEQ, ax, e.f32Inf()), e.f64(INFINITY),
                     log2x);
    Value magnitude = exp2F64ToF32(e, e.mul(e.extf(y), log2x));

    // Whether y is an integer, and an odd one: every f32 of magnitude 2^24 or
    // more is an even integer; below, y converts to i32 exactly.
    Value ay = e.abs(y);
    Value finiteY = e.cmp(CmpFPredicate::OLT, ay, e.f32Inf());
    Value small = e.cmp(CmpFPredicate::OLT, ay, e.f32(0x1p24));
    Value ySmall = e.select(small, y, e.f32(0.0));
    Value yInt = e.fptosi(ySmall);
    Value isInteger =
        e.andi(finiteY,
               e.cmp(CmpFPredicate::OEQ, e.sitofp(e.f32Type(), yInt), ySmall));
    Value isOdd = e.andi(
        isInteger, e.cmpi(CmpIPredicate::ne, e.andi(yInt, e.i32(1)), e.i32(0)));

    Value signBit =
        e.cmpi(CmpIPredicate::slt, e.bitcast(e.i32Type(), x), e.i32(0));
    Value result =
        e.select(e.andi(signBit, isOdd), e.neg(magnitude), magnitude);

    Value negativeFinite =
        e.andi(e.cmp(CmpFPredicate::OLT, x, e.f32(0.0)),
               e.cmp(CmpFPredicate::OGT, x, e.f32(-INFINITY)));
    Value notInteger = e.andi(finiteY, e.cmp(CmpFPredicate::ONE, ySmall,
                                             e.sitofp(e.f32Type(), yInt)));
    Value isNaN = e.ori(e.cmp(CmpFPredicate::UNO, x, y),
                        e.andi(negativeFinite, notInteger));
    result = e.select(isNaN, e.f32NaN(), result);

    Value isOne = e.ori(e.ori(e.cmp(CmpFPredicate::OEQ, x, e.f32(1.0)),
                              e.cmp(CmpFPredicate::OEQ, y, e.f32(0.0))),
                        e.andi(e.cmp(CmpFPredicate::OEQ, x, e.f32(-1.0)),
                               e.cmp(CmpFPredicate::OEQ, ay, e.f32Inf())));
    rewriter.replaceOp(op, e.select(isOne, e.f32(1.0), result));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// floor, ceil, roundeven
//===----------------------------------------------------------------------===//

/// x rounded to an integer, half to even: |x| + 2^23 - 2^23 rounds |x| <
/// 2^23 to an integer in the current (nearest-even) mode, and the sign of x
/// goes back on (so that -0.3 gives -0.0). Every f32 of magnitude 2^23 or
/// more is an integer already, and so is ±inf: those and NaN are x itself.
Value roundEven(Elementwise &e, Value x) {
  Value ax = e.abs(x);
  Value shift = e.f32(0x1p23);
  Value rounded = e.copysign(e.sub(e.add(ax, shift), shift), x);
  return e.select(e.cmp(CmpFPredicate::OLT, ax, shift), rounded, x);
}

/// The three roundings to an integer without SSE4.1's `roundps` (which
/// `math.floor` would need, or a `floorf` call): roundeven as above;
/// floor(x) is that minus 1 where it lies above x, ceil(x) plus 1 where it
/// lies below, with x's sign put back (ceil(-0.5) = -0.0, floor(0.5) = +0.0).
/// Integers, ±0, ±inf and NaN come out as they went in.
template <typename OpTy> struct RoundingExpansion : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    Value nearest = roundEven(e, x);
    if (std::is_same_v<OpTy, math::RoundEvenOp>) {
      rewriter.replaceOp(op, nearest);
      return success();
    }
    bool isFloor = std::is_same_v<OpTy, math::FloorOp>;
    Value wrongSide =
        e.cmp(isFloor ? CmpFPredicate::OGT : CmpFPredicate::OLT, nearest, x);
    Value step = e.f32(isFloor ? -1.0 : 1.0);
    Value result = e.select(wrongSide, e.add(nearest, step), nearest);
    rewriter.replaceOp(op, e.copysign(result, x));
    return success();
  }
};

struct ArrExpandMathPass : vmapc::impl::ArrExpandMathBase<ArrExpandMathPass> {
  using ArrExpandMathBase::ArrExpandMathBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<ExpApproximation>(context, fusedMultiplyAdd);
    patterns
        .add<LogApproximation, TanhApproximation, PowFApproximation,
             RoundingExpansion<math::FloorOp>, RoundingExpansion<math::CeilOp>,
             RoundingExpansion<math::RoundEvenOp>>(context);
    vmapc::math_expansion::populateF64Approximations(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
