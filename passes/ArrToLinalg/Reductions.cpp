//===- Reductions.cpp - arr reductions to reduction linalg.generics -------===//
//
// `arr.reduce_{sum,max,min}`: a `linalg.generic` whose loops are the
// operand's dimensions (the reduced ones `reduction`), reading the operand
// through the identity map and accumulating into a `linalg.fill`ed init
// (0, -inf / INT_MIN, +inf / INT_MAX) read through the kept dimensions.
//
// `arr.argmin` / `arr.argmax`: one reduction generic with two outputs, the
// best value so far (init +inf / -inf, or INT_MAX / INT_MIN) and its i32
// index (init 0). The body takes the loop index with `linalg.index` and
// updates when x beats the best so far in numpy's order (ArgReduction.h:
// better, or tied at a lower index; the first NaN wins), so any reduction
// order gives the sequential result. A row that never beats the init (all
// +inf for argmin) keeps index 0, its lowest index.
//
// reduce_max / reduce_min use `arith.maximumf` / `arith.minimumf`, which
// propagate NaN (jnp.max, jnp.min).
//
//===----------------------------------------------------------------------===//

#include "passes/ArgReduction.h"
#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/ArrToLinalg/Utils.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace vmapc;

namespace {

//===----------------------------------------------------------------------===//
// Per-op init values and combiners.
//===----------------------------------------------------------------------===//

TypedAttr getInit(arr::ReduceSumOp, OpBuilder &b, Type elementType) {
  return cast<TypedAttr>(b.getZeroAttr(elementType));
}

TypedAttr getInit(arr::ReduceMaxOp, OpBuilder &, Type elementType) {
  return getExtremeValue(elementType, /*positive=*/false);
}

TypedAttr getInit(arr::ReduceMinOp, OpBuilder &, Type elementType) {
  return getExtremeValue(elementType, /*positive=*/true);
}

template <typename FloatOp, typename IntOp>
Value combineWith(OpBuilder &b, Location loc, Type elementType, Value x,
                  Value acc) {
  if (isa<FloatType>(elementType))
    return FloatOp::create(b, loc, x, acc);
  return IntOp::create(b, loc, x, acc);
}

Value combine(arr::ReduceSumOp, OpBuilder &b, Location loc, Type elementType,
              Value x, Value acc) {
  return combineWith<arith::AddFOp, arith::AddIOp>(b, loc, elementType, x, acc);
}

Value combine(arr::ReduceMaxOp, OpBuilder &b, Location loc, Type elementType,
              Value x, Value acc) {
  return combineWith<arith::MaximumFOp, arith::MaxSIOp>(b, loc, elementType, x,
                                                        acc);
}

Value combine(arr::ReduceMinOp, OpBuilder &b, Location loc, Type elementType,
              Value x, Value acc) {
  return combineWith<arith::MinimumFOp, arith::MinSIOp>(b, loc, elementType, x,
                                                        acc);
}

/// Loops over every operand dimension; those in `reduced` are reductions.
/// Returns the iterators and the output map (the kept dimensions).
AffineMap getReductionLoops(MLIRContext *ctx, unsigned rank,
                            ArrayRef<int64_t> reduced,
                            SmallVectorImpl<utils::IteratorType> &iterators) {
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < rank; ++d) {
    bool isReduced = llvm::is_contained(reduced, static_cast<int64_t>(d));
    iterators.push_back(isReduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
    if (!isReduced)
      kept.push_back(getAffineDimExpr(d, ctx));
  }
  return AffineMap::get(rank, 0, kept, ctx);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

template <typename OpTy> struct ReduceOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value operand = adaptor.getOperand();
    auto inType = cast<RankedTensorType>(operand.getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    Type elementType = inType.getElementType();
    unsigned rank = inType.getRank();

    SmallVector<utils::IteratorType> iterators;
    AffineMap outMap = getReductionLoops(ctx, rank, op.getDims(), iterators);
    SmallVector<AffineMap> maps = {getIdentityMap(ctx, rank), outMap};
    Value init = createFilledTensor(rewriter, loc, resultType,
                                    getInit(op, rewriter, elementType));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{operand},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Value v = combine(op, b, bodyLoc, elementType, args[0], args[1]);
          linalg::YieldOp::create(b, bodyLoc, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// `arr.argmin` (`IsMin`) and `arr.argmax`.
template <typename OpTy, bool IsMin>
struct ArgReduceOpLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value operand = adaptor.getOperand();
    auto inType = cast<RankedTensorType>(operand.getType());
    auto indexType = cast<RankedTensorType>(op.getResult().getType());
    Type elementType = inType.getElementType();
    auto valueType = indexType.clone(elementType);
    unsigned rank = inType.getRank();
    int64_t axis = op.getAxisAttr().getInt();

    SmallVector<utils::IteratorType> iterators;
    AffineMap outMap = getReductionLoops(ctx, rank, {axis}, iterators);
    SmallVector<AffineMap> maps = {getIdentityMap(ctx, rank), outMap, outMap};
    // The value init can never be beaten by a tie at a lower index: every
    // index is >= the index init 0.
    Value valueInit = createFilledTensor(rewriter, loc, valueType,
                                         getExtremeValue(elementType, IsMin));
    Value indexInit = createFilledTensor(
        rewriter, loc, indexType,
        rewriter.getIntegerAttr(indexType.getElementType(), 0));

    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, ValueRange{operand},
        ValueRange{valueInit, indexInit}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value i = arith::IndexCastOp::create(
              b, l, bestIdx.getType(), linalg::IndexOp::create(b, l, axis));
          ArgReduction kind;
          kind.isMin = IsMin;
          kind.isFloat = isa<FloatType>(elementType);
          Value update = buildArgBeats(b, l, kind, x, i, best, bestIdx);
          Value newBest = arith::SelectOp::create(b, l, update, x, best);
          Value newIdx = arith::SelectOp::create(b, l, update, i, bestIdx);
          linalg::YieldOp::create(b, l, ValueRange{newBest, newIdx});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

} // namespace

void vmapc::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering<arr::ReduceSumOp>,
               ReduceOpLowering<arr::ReduceMaxOp>,
               ReduceOpLowering<arr::ReduceMinOp>,
               ArgReduceOpLowering<arr::ArgMinOp, /*IsMin=*/true>,
               ArgReduceOpLowering<arr::ArgMaxOp, /*IsMin=*/false>>(
      patterns.getContext());
}
