//===- Elementwise.cpp - elementwise arr ops to linalg.generic ------------===//
//
// Unary, binary, comparison, select and convert ops become one all-parallel
// `linalg.generic` with identity indexing maps whose body is the scalar
// arith/math op.
// `arr.broadcast_in_dim` becomes a `linalg.generic` that reads its operand
// through a broadcast map: result dimension dims[i] for operand dimension i,
// or the constant 0 where a size-1 operand dimension is stretched. Such a
// generic fuses into its consumer (`--linalg-fuse-elementwise-ops`), so the
// broadcast is never materialised.
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/ArrToLinalg/Utils.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace vmapc;

namespace {

//===----------------------------------------------------------------------===//
// Scalar bodies, one overload per op. `elementType` is the operands' element
// type; `args` are the scalar operands.
//===----------------------------------------------------------------------===//

Value buildScalar(arr::NegOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  if (isa<FloatType>(elementType))
    return arith::NegFOp::create(b, loc, args[0]);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return arith::SubIOp::create(b, loc, zero, args[0]);
}

Value buildScalar(arr::ExpOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::ExpOp::create(b, loc, args[0]);
}

Value buildScalar(arr::LogOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::LogOp::create(b, loc, args[0]);
}

Value buildScalar(arr::TanhOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::TanhOp::create(b, loc, args[0]);
}

Value buildScalar(arr::SqrtOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::SqrtOp::create(b, loc, args[0]);
}

Value buildScalar(arr::SinOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::SinOp::create(b, loc, args[0]);
}

Value buildScalar(arr::CosOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::CosOp::create(b, loc, args[0]);
}

Value buildScalar(arr::Log1pOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::Log1pOp::create(b, loc, args[0]);
}

Value buildScalar(arr::Expm1Op, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::ExpM1Op::create(b, loc, args[0]);
}

Value buildScalar(arr::ErfOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::ErfOp::create(b, loc, args[0]);
}

Value buildScalar(arr::FloorOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::FloorOp::create(b, loc, args[0]);
}

Value buildScalar(arr::CeilOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::CeilOp::create(b, loc, args[0]);
}

/// Half to even (`math.roundeven`; `math.round` rounds half away from 0).
Value buildScalar(arr::RoundOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::RoundEvenOp::create(b, loc, args[0]);
}

Value buildScalar(arr::AbsOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  if (isa<FloatType>(elementType))
    return math::AbsFOp::create(b, loc, args[0]);
  // x < 0 ? 0 - x : x (wraps at INT_MIN, as neg does). Not math.absi:
  // convert-math-to-libm rejects it.
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, args[0], zero);
  Value negated = arith::SubIOp::create(b, loc, zero, args[0]);
  return arith::SelectOp::create(b, loc, negative, negated, args[0]);
}

/// 1 for x > 0, -1 for x < 0, else x itself (0, -0.0 and NaN stay).
Value buildScalar(arr::SignOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  Value x = args[0];
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  Value one, minusOne, positive, negative;
  if (isa<FloatType>(elementType)) {
    one = arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 1.0));
    minusOne =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, -1.0));
    positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, zero);
    negative =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
  } else {
    one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(elementType, 1));
    minusOne =
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(elementType, -1));
    positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, x, zero);
    negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  }
  Value notPositive = arith::SelectOp::create(b, loc, negative, minusOne, x);
  return arith::SelectOp::create(b, loc, positive, one, notPositive);
}

Value buildScalar(arr::NotOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  Value trueValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  return arith::XOrIOp::create(b, loc, args[0], trueValue);
}

/// A binary op: `FloatOp` on f32, `IntOp` on i32.
template <typename FloatOp, typename IntOp>
Value buildBinary(OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  if (isa<FloatType>(elementType))
    return FloatOp::create(b, loc, args[0], args[1]);
  return IntOp::create(b, loc, args[0], args[1]);
}

Value buildScalar(arr::AddOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  return buildBinary<arith::AddFOp, arith::AddIOp>(b, loc, elementType, args);
}

Value buildScalar(arr::SubOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  return buildBinary<arith::SubFOp, arith::SubIOp>(b, loc, elementType, args);
}

Value buildScalar(arr::MulOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  return buildBinary<arith::MulFOp, arith::MulIOp>(b, loc, elementType, args);
}

Value buildScalar(arr::DivOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  if (isa<FloatType>(elementType))
    return arith::DivFOp::create(b, loc, args[0], args[1]);
  // i32 division truncates towards zero, as C does. x / 0 and INT_MIN / -1
  // are undefined in the language, but they must not trap (x86's idiv
  // raises SIGFPE): a padding lane of the last chunk may hold them. Such a
  // lane divides by 1 instead.
  Value x = args[0], y = args[1];
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elementType, v));
  };
  Value zero = constant(0), one = constant(1), minusOne = constant(-1);
  Value intMin = constant(
      llvm::APInt::getSignedMinValue(elementType.getIntOrFloatBitWidth())
          .getSExtValue());
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value xIsMin =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, intMin);
  Value yIsMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne);
  Value overflows = arith::AndIOp::create(b, loc, xIsMin, yIsMinusOne);
  Value unsafe = arith::OrIOp::create(b, loc, byZero, overflows);
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, y);
  return arith::DivSIOp::create(b, loc, x, divisor);
}

/// NaN-propagating on f32 (`arith.maximumf`), as JAX's lax.max.
Value buildScalar(arr::MaximumOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  return buildBinary<arith::MaximumFOp, arith::MaxSIOp>(b, loc, elementType,
                                                        args);
}

Value buildScalar(arr::MinimumOp, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  return buildBinary<arith::MinimumFOp, arith::MinSIOp>(b, loc, elementType,
                                                        args);
}

Value buildScalar(arr::PowOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return math::PowFOp::create(b, loc, args[0], args[1]);
}

Value buildScalar(arr::AndOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return arith::AndIOp::create(b, loc, args[0], args[1]);
}

Value buildScalar(arr::OrOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return arith::OrIOp::create(b, loc, args[0], args[1]);
}

Value buildScalar(arr::SelectOp, OpBuilder &b, Location loc, Type,
                  ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

/// f32 -> i32 truncates toward zero and saturates, NaN -> 0 (XLA's convert;
/// a plain fptosi would be poison out of range); i32 -> f32 rounds to
/// nearest; bool -> number is 1/0; number -> bool is `x != 0`.
Value buildScalar(arr::ConvertOp op, OpBuilder &b, Location loc, Type from,
                  ValueRange args) {
  Type to = op.getType().getElementType();
  Value x = args[0];
  if (from == to)
    return x;
  auto constant = [&](TypedAttr attr) {
    return arith::ConstantOp::create(b, loc, attr);
  };
  if (to.isInteger(1)) {
    Value zero = constant(b.getZeroAttr(from));
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (from.isInteger(1)) {
    if (isa<FloatType>(to))
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::ExtUIOp::create(b, loc, to, x);
  }
  if (isa<FloatType>(to))
    return arith::SIToFPOp::create(b, loc, to, x);
  // f32 -> i32: clamp to [-2^31, the largest f32 below 2^31], convert, give
  // INT_MAX from 2^31 up, and map NaN to 0.
  Value low = constant(b.getFloatAttr(from, -2147483648.0));
  Value high = constant(b.getFloatAttr(from, 2147483520.0));
  Value clamped = arith::MinimumFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, low), high);
  Value converted = arith::FPToSIOp::create(b, loc, to, clamped);
  Value tooLarge =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                            constant(b.getFloatAttr(from, 2147483648.0)));
  Value saturated = arith::SelectOp::create(
      b, loc, tooLarge,
      constant(b.getIntegerAttr(to, std::numeric_limits<int32_t>::max())),
      converted);
  Value isNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, loc, isNaN, constant(b.getZeroAttr(to)),
                                 saturated);
}

/// Ordered float predicates (false on NaN), except `ne`, which is unordered
/// (true on NaN), as C and numpy compare.
arith::CmpFPredicate toCmpF(arr::CmpPredicate p) {
  switch (p) {
  case arr::CmpPredicate::lt:
    return arith::CmpFPredicate::OLT;
  case arr::CmpPredicate::le:
    return arith::CmpFPredicate::OLE;
  case arr::CmpPredicate::gt:
    return arith::CmpFPredicate::OGT;
  case arr::CmpPredicate::ge:
    return arith::CmpFPredicate::OGE;
  case arr::CmpPredicate::eq:
    return arith::CmpFPredicate::OEQ;
  case arr::CmpPredicate::ne:
    return arith::CmpFPredicate::UNE;
  }
  llvm_unreachable("unknown arr.cmp predicate");
}

/// Signed integer predicates.
arith::CmpIPredicate toCmpI(arr::CmpPredicate p) {
  switch (p) {
  case arr::CmpPredicate::lt:
    return arith::CmpIPredicate::slt;
  case arr::CmpPredicate::le:
    return arith::CmpIPredicate::sle;
  case arr::CmpPredicate::gt:
    return arith::CmpIPredicate::sgt;
  case arr::CmpPredicate::ge:
    return arith::CmpIPredicate::sge;
  case arr::CmpPredicate::eq:
    return arith::CmpIPredicate::eq;
  case arr::CmpPredicate::ne:
    return arith::CmpIPredicate::ne;
  }
  llvm_unreachable("unknown arr.cmp predicate");
}

Value buildScalar(arr::CmpOp op, OpBuilder &b, Location loc, Type elementType,
                  ValueRange args) {
  if (isa<FloatType>(elementType))
    return arith::CmpFOp::create(b, loc, toCmpF(op.getPredicate()), args[0],
                                 args[1]);
  return arith::CmpIOp::create(b, loc, toCmpI(op.getPredicate()), args[0],
                               args[1]);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Any unary, binary or comparison op: an all-parallel generic with identity
/// maps over the result's shape.
template <typename OpTy>
struct ElementwiseOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    ValueRange operands = adaptor.getOperands();
    Type elementType =
        cast<RankedTensorType>(operands[0].getType()).getElementType();
    unsigned rank = resultType.getRank();
    SmallVector<AffineMap> maps(operands.size() + 1,
                                getIdentityMap(op.getContext(), rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, resultType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, operands, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Value v = buildScalar(op, b, bodyLoc, elementType,
                                args.take_front(operands.size()));
          linalg::YieldOp::create(b, bodyLoc, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// `arr.broadcast_in_dim`: operand dimension i is read at loop dimension
/// dims[i], or at index 0 where a size-1 dimension is stretched.
struct BroadcastInDimOpLowering : OpConversionPattern<arr::BroadcastInDimOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::BroadcastInDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto inType = cast<RankedTensorType>(adaptor.getOperand().getType());
    auto resultType = op.getResult().getType();
    unsigned rank = resultType.getRank();
    SmallVector<AffineExpr> exprs;
    for (auto [i, d] : llvm::enumerate(op.getDims())) {
      bool stretched =
          inType.getDimSize(i) == 1 && resultType.getDimSize(d) != 1;
      exprs.push_back(stretched ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(d, ctx));
    }
    SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                   getIdentityMap(ctx, rank)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    Value init = createEmptyTensor(rewriter, loc, resultType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{adaptor.getOperand()},
        ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location bodyLoc, ValueRange args) {
          linalg::YieldOp::create(b, bodyLoc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void vmapc::populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      ElementwiseOpLowering<arr::NegOp>, ElementwiseOpLowering<arr::ExpOp>,
      ElementwiseOpLowering<arr::LogOp>, ElementwiseOpLowering<arr::TanhOp>,
      ElementwiseOpLowering<arr::SqrtOp>, ElementwiseOpLowering<arr::SinOp>,
      ElementwiseOpLowering<arr::CosOp>, ElementwiseOpLowering<arr::Log1pOp>,
      ElementwiseOpLowering<arr::Expm1Op>, ElementwiseOpLowering<arr::ErfOp>,
      ElementwiseOpLowering<arr::FloorOp>, ElementwiseOpLowering<arr::CeilOp>,
      ElementwiseOpLowering<arr::RoundOp>, ElementwiseOpLowering<arr::AddOp>,
      ElementwiseOpLowering<arr::SubOp>, ElementwiseOpLowering<arr::MulOp>,
      ElementwiseOpLowering<arr::DivOp>, ElementwiseOpLowering<arr::CmpOp>,
      ElementwiseOpLowering<arr::AbsOp>, ElementwiseOpLowering<arr::SignOp>,
      ElementwiseOpLowering<arr::NotOp>, ElementwiseOpLowering<arr::MaximumOp>,
      ElementwiseOpLowering<arr::MinimumOp>, ElementwiseOpLowering<arr::PowOp>,
      ElementwiseOpLowering<arr::AndOp>, ElementwiseOpLowering<arr::OrOp>,
      ElementwiseOpLowering<arr::SelectOp>,
      ElementwiseOpLowering<arr::ConvertOp>, BroadcastInDimOpLowering>(ctx);
}
