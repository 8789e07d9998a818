//===- ExpandMathF64.cpp - sin cos log1p expm1 erf for --arr-expand-math --===//
//
// The f32 functions that compute in f64 and round once to f32, so that they
// are correctly rounded but for results within 2^-13 ulp of a tie (0.501
// ulp measured; sin and cos for |x| <= 2^30): f64 vectorizes at every
// x86-64 level (cvtps2pd, packed f64 arithmetic at half the lanes of f32).
// Their derivations, bounds and sources: docs/math.md; the pass and the f32
// functions: ExpandMath.cpp.
//
//===----------------------------------------------------------------------===//

#include "passes/MathExpansion.h"

#include <cmath>
#include <cstdint>

using namespace mlir;
using namespace vmapc::math_expansion;

namespace {

//===----------------------------------------------------------------------===//
// sin, cos
//===----------------------------------------------------------------------===//

/// sin(x) or cos(x) in f64, rounded once to f32: k = round(x 2/pi) by the
/// 1.5 * 2^52 shift (whose low bits then hold k mod 4), r = x - k pi/2 by
/// Cody and Waite with three parts of pi/2 (P1 and P2 of 23 bits, so that
/// k P1 and k P2 are exact for |k| < 2^30, and the whole reduction keeps r
/// to about 2^-52 relative for |x| <= 2^30); sin r = r S(r^2) and cos r =
/// C(r^2), their Taylor series to r^13 and r^14 (truncation below 2^-44
/// relative on |r| <= 0.79); the quadrant k mod 4 picks ±sin r or ±cos r.
/// Beyond 2^30, k P1 is rounded and the error grows with |x|; r is clamped
/// to [-0.79, 0.79] so that the result stays in [-1, 1] for every finite
/// x. ±inf and NaN give NaN (r is NaN). sin(-0) = -0 (r S(r^2) keeps r's
/// sign).
template <bool IsCos, typename OpTy>
struct SinCosApproximation : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    Value x64 = e.extf(x);
    Value shift = e.f64(0x1.8p52);
    Value shifted = e.fma(x64, e.f64(0x1.45f306dc9c883p-1), shift); // 2/pi
    Value k = e.sub(shifted, shift);
    Value r = e.fma(k, e.f64(-0x1.921fb4p+0), x64);
    r = e.fma(k, e.f64(-0x1.4442dp-24), r);
    r = e.fma(k, e.f64(-0x1.8469898cc5170p-48), r);
    // Ordered compares: NaN stays.
    Value bound = e.f64(0.79), negativeBound = e.f64(-0.79);
    r = e.select(e.cmp(CmpFPredicate::OGT, r, bound), bound, r);
    r = e.select(e.cmp(CmpFPredicate::OLT, r, negativeBound), negativeBound, r);

    Value r2 = e.mul(r, r);
    // sin r = r (1 - r^2 / 3! + ... - r^12 / 13!), cos r = 1 - r^2 / 2! +
    // ... + r^14 / 14!.
    SmallVector<double> sinSeries, cosSeries;
    double factorial = 1.0;
    for (int n = 0; n <= 14; ++n) {
      factorial *= std::max(n, 1);
      double term = (n / 2 % 2 ? -1.0 : 1.0) / factorial;
      if (n % 2 == 0)
        cosSeries.push_back(term);
      else if (n <= 13)
        sinSeries.push_back(term);
    }
    Value sinR = e.mul(r, e.polynomial(r2, sinSeries));
    Value cosR = e.polynomial(r2, cosSeries);

    // The quadrant: sin x = sin r, cos r, -sin r, -cos r for k mod 4 = 0..3;
    // cos x is sin of the next one.
    Value quadrant = e.trunci(e.bitcast(e.i64Type(), shifted));
    if (IsCos)
      quadrant = e.addi(quadrant, e.i32(1));
    Value zero = e.i32(0);
    Value useCos = e.cmpi(CmpIPredicate::ne, e.andi(quadrant, e.i32(1)), zero);
    Value negate = e.cmpi(CmpIPredicate::ne, e.andi(quadrant, e.i32(2)), zero);
    Value v = e.select(useCos, cosR, sinR);
    v = e.select(negate, e.neg(v), v);
    rewriter.replaceOp(op, e.truncf(v));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// log1p
//===----------------------------------------------------------------------===//

/// log(u) in f64 for a normal f64 u > 0: u = 2^e m with m in [sqrt(1/2),
/// sqrt(2)) from the bits, log m = 2 atanh(s) with s = (m - 1) / (m + 1),
/// |s| <= 0.172, by its Taylor series to s^15 (truncation below 2^-44
/// relative; m - 1 is exact).
Value logF64(Elementwise &e, Value u) {
  Value bits = e.bitcast(e.i64Type(), u);
  Value exponent = e.subi(e.trunci(e.shrui(bits, e.i64(52))), e.i32(1023));
  Value m =
      e.bitcast(e.f64Type(), e.ori(e.andi(bits, e.i64(0x000fffffffffffff)),
                                   e.i64(0x3ff0000000000000)));
  Value above = e.cmp(CmpFPredicate::OGT, m, e.f64(M_SQRT2));
  m = e.select(above, e.mul(m, e.f64(0.5)), m);
  exponent = e.select(above, e.addi(exponent, e.i32(1)), exponent);

  Value one = e.f64(1.0);
  Value numerator = e.sub(m, one);
  Value s = e.div(numerator, e.add(m, one));
  SmallVector<double> series;
  for (int k = 0; k < 8; ++k)
    series.push_back(2.0 / (2 * k + 1));
  Value logM = e.mul(s, e.polynomial(e.mul(s, s), series));
  return e.fma(e.sitofp(e.f64Type(), exponent), e.f64(M_LN2), logM);
}

/// log1p(x) = log(1 + x) in f64, rounded once to f32: 1 + x is exact in f64
/// for |x| >= 2^-29 (x has 24 bits, none below 2^-52); below, log1p(x)
/// rounds to x itself (|x^2 / 2| < 2^-30 |x|), which also keeps ±0 and
/// denormals. log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(inf) = inf, NaN
/// stays, by selects on x.
struct Log1pApproximation : OpRewritePattern<math::Log1pOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Log1pOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    Value u = e.add(e.extf(x), e.f64(1.0));
    Value result = e.truncf(logF64(e, u));

    Value tiny = e.cmp(CmpFPredicate::OLT, e.abs(x), e.f32(0x1p-29));
    result = e.select(tiny, x, result);
    result =
        e.select(e.cmp(CmpFPredicate::OEQ, x, e.f32Inf()), e.f32Inf(), result);
    result = e.select(e.cmp(CmpFPredicate::OEQ, x, e.f32(-1.0)),
                      e.f32(-INFINITY), result);
    // x < -1 or NaN.
    Value invalid = e.cmp(CmpFPredicate::ULT, x, e.f32(-1.0));
    rewriter.replaceOp(op, e.select(invalid, e.f32NaN(), result));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// expm1
//===----------------------------------------------------------------------===//

/// expm1(x) in f64, rounded once to f32: n = round(x / ln 2) by the 1.5 *
/// 2^52 shift, r = x - n ln 2 in [-ln 2 / 2, ln 2 / 2] (Cody and Waite:
/// n ln2hi is exact for |n| < 2^11), expm1(r) = r P(r) with P its Taylor
/// series to r^11 (truncation below 2^-45 relative), then expm1(x) = 2^n
/// expm1(r) + (2^n - 1), which does not cancel (for n != 0, |expm1(x)| >=
/// 0.29). x is clamped to [-104, 89] first, where the f32 result is already
/// -1 and inf; the result takes x's sign (expm1(-0) = -0); NaN stays.
struct Expm1Approximation : OpRewritePattern<math::ExpM1Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpM1Op op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    Value x64 = e.extf(x);
    Value clamped = e.select(e.cmp(CmpFPredicate::OGE, x64, e.f64(-104.0)), x64,
                             e.f64(-104.0));
    clamped = e.select(e.cmp(CmpFPredicate::OLE, clamped, e.f64(89.0)), clamped,
                       e.f64(89.0));
    Value shift = e.f64(0x1.8p52);
    Value shifted = e.fma(clamped, e.f64(M_LOG2E), shift);
    Value n = e.sub(shifted, shift);
    Value r = e.fma(n, e.f64(-0x1.62e42fefa38p-1), clamped);
    r = e.fma(n, e.f64(-0x1.ef35793c7673p-45), r);

    SmallVector<double> series;
    double term = 1.0;
    for (int i = 1; i <= 11; ++i) {
      series.push_back(term);
      term /= i + 1;
    }
    Value expm1R = e.mul(r, e.polynomial(r, series));
    // 2^n from the low 12 bits of (n's bits + 1023), n + 1023 in [873, 1151].
    Value powerOfTwo =
        e.bitcast(e.f64Type(),
                  e.shli(e.addi(e.bitcast(e.i64Type(), shifted), e.i64(1023)),
                         e.i64(52)));
    Value result = e.fma(powerOfTwo, expm1R, e.sub(powerOfTwo, e.f64(1.0)));
    result = e.copysign(e.truncf(result), x);
    rewriter.replaceOp(op, e.select(e.isNaN(x), x, result));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// erf
//===----------------------------------------------------------------------===//

/// erf(x) in f64, rounded once to f32, from two polynomials interpolating
/// erf at Chebyshev nodes (50-digit arithmetic): for |x| < 2, x P(x^2), P of
/// degree 12 interpolating erf(s) / s on s^2 in [0, 4] (error below 2^-37
/// relative); for 2 <= |x| < 3.9375, Q((|x| - 2.96875) / 0.96875), Q of
/// degree 14 interpolating erf on [2, 3.9375] (error below 2^-37), with x's
/// sign; from 3.9375 on, ±1 (erf(x) > 1 - 2^-25 from 3.9193 on, so the
/// f32 result is 1 already). erf(-0) = -0; NaN stays.
struct ErfApproximation : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Value x = op.getOperand();
    if (!isF32Like(x.getType()))
      return rewriter.notifyMatchFailure(op, "not f32");
    Elementwise e(rewriter, op.getLoc(), x);

    Value x64 = e.extf(x);
    Value ax = e.abs(x64);
    Value small = e.mul(
        x64, e.polynomial(e.mul(x64, x64),
                          {1.1283791670929637, -0.376126388816274,
                           0.11283791367838542, -0.02686615383757036,
                           0.005223929003443631, -0.0008547485697872321,
                           0.00012045926643755661, -1.4854527126221965e-05,
                           1.6088938246700956e-06, -1.499173917374337e-07,
                           1.1258212929527169e-08, -5.924570969775961e-10,
                           1.586720104084632e-11}));
    Value u = e.mul(e.sub(ax, e.f64(2.96875)), e.f64(1.0 / 0.96875));
    Value large = e.polynomial(
        u,
        {0.9999731247687527, 0.00016256337099342867, -0.00046752826427125954,
         0.0008455440530759706, -0.0010696312217999297, 0.0009924600798623788,
         -0.0006837173254267449, 0.0003399440315324287, -0.00010702205177835564,
         6.630050305690938e-06, 1.4250019532145658e-05, -8.813506288432622e-06,
         1.960439629231687e-06, 5.265580879319227e-07, -3.167055104637656e-07});
    large = e.select(e.cmp(CmpFPredicate::OLT, ax, e.f64(3.9375)), large,
                     e.f64(1.0));
    large = e.copysign(large, x64);
    Value result =
        e.select(e.cmp(CmpFPredicate::OLT, ax, e.f64(2.0)), small, large);
    result = e.truncf(result);
    rewriter.replaceOp(op, e.select(e.isNaN(x), x, result));
    return success();
  }
};

} // namespace

void vmapc::math_expansion::populateF64Approximations(
    RewritePatternSet &patterns) {
  patterns.add<SinCosApproximation<false, math::SinOp>,
               SinCosApproximation<true, math::CosOp>, Log1pApproximation,
               Expm1Approximation, ErfApproximation>(patterns.getContext());
}
