//===- Indexing.cpp - arr.gather and arr.scatter to linalg ----------------===//
//
// `arr.gather` -> a `linalg.generic` over the result: it reads each index
// through an indexing map and the operand with a `tensor.extract` at the
// index it computes (`linalg.index` for the other dimensions), the form
// linalg's vectorizer turns into vector loads when the innermost dimension
// is contiguous (a row of an embedding table) and into a gather otherwise.
//
// `arr.scatter` -> a `linalg.generic` whose destination (init) is the
// operand itself, over the operand's dimensions (parallel) and the index
// dimensions (reductions, innermost, in order): every element compares its
// position along `axis` with each index and folds in the updates that hit
// it, so duplicate indices combine in index order and `set` keeps the last,
// whatever the tiling or the thread count. An update out of range hits no
// element (dropped). Its work is the operand's size times the number of
// indices; the op writes the operand's buffer in place when the operand
// dies here (one-shot bufferization of a destination-passing op), and is
// copied first otherwise (an entry's argument, read-only, always: the copy
// is fused into the scatter's dispatch).
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/ArrToLinalg/Utils.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace vmapc;

namespace {

/// `i` (an i32) counted from the end of a dimension of `size` when
/// negative.
Value fromEnd(OpBuilder &b, Location loc, Value i, int64_t size) {
  Type i32 = b.getI32Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value n = arith::ConstantIntOp::create(b, loc, i32, size);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  Value shifted = arith::AddIOp::create(b, loc, i, n);
  return arith::SelectOp::create(b, loc, negative, shifted, i);
}

/// `i` clamped into [0, size).
Value clampIndex(OpBuilder &b, Location loc, Value i, int64_t size) {
  Type i32 = b.getI32Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value last = arith::ConstantIntOp::create(b, loc, i32, size - 1);
  Value below = arith::MinSIOp::create(b, loc, i, last);
  return arith::MaxSIOp::create(b, loc, below, zero);
}

/// What `mode = fill` reads out of range: NaN, INT32_MIN or true.
TypedAttr fillValue(Type elementType) {
  if (auto f = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(f, APFloat::getQNaN(f.getFloatSemantics()));
  if (elementType.isInteger(1))
    return IntegerAttr::get(elementType, 1);
  return IntegerAttr::get(elementType, std::numeric_limits<int32_t>::min());
}

/// The indexing map of the indices: the batch loops, then the index loops
/// starting at `firstIndexLoop`.
AffineMap indicesMap(MLIRContext *ctx, unsigned numLoops, int64_t batchDims,
                     int64_t indexDims, int64_t firstIndexLoop) {
  SmallVector<AffineExpr> results;
  for (int64_t d = 0; d < batchDims; ++d)
    results.push_back(getAffineDimExpr(d, ctx));
  for (int64_t j = 0; j < indexDims; ++j)
    results.push_back(getAffineDimExpr(firstIndexLoop + j, ctx));
  return AffineMap::get(numLoops, 0, results, ctx);
}

struct GatherOpLowering : OpConversionPattern<arr::GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType resultType = op.getType();
    auto operandType = cast<RankedTensorType>(op.getOperand().getType());
    int64_t axis = op.getAxis(), batchDims = op.getBatchDims();
    int64_t indexDims = op.getIndices().getType().getRank() - batchDims;
    int64_t size = operandType.getDimSize(axis);
    unsigned numLoops = resultType.getRank();
    Value operand = adaptor.getOperand();
    arr::GatherMode mode = op.getMode();

    SmallVector<AffineMap> maps{
        indicesMap(ctx, numLoops, batchDims, indexDims, axis),
        getIdentityMap(ctx, numLoops)};
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{adaptor.getIndices()},
        ValueRange{createEmptyTensor(rewriter, loc, resultType)}, maps,
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value i = args[0];
          if (mode != arr::GatherMode::clip)
            i = fromEnd(b, loc, i, size);
          Value clamped = clampIndex(b, loc, i, size);
          // Result dimensions: the operand's before the axis, the index
          // dimensions, the operand's after the axis.
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(b, loc, d));
          at.push_back(
              arith::IndexCastOp::create(b, loc, b.getIndexType(), clamped));
          for (int64_t d = axis + 1; d < operandType.getRank(); ++d)
            at.push_back(linalg::IndexOp::create(b, loc, d - 1 + indexDims));
          Value value = tensor::ExtractOp::create(b, loc, operand, at);
          if (mode == arr::GatherMode::fill) {
            Value inRange = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, i, clamped);
            Value fill = arith::ConstantOp::create(
                b, loc, fillValue(resultType.getElementType()));
            value = arith::SelectOp::create(b, loc, inRange, value, fill);
          }
          linalg::YieldOp::create(b, loc, value);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// `acc` combined with `update` by `kind` (min and max as arr.minimum and
/// arr.maximum: NaN-propagating on f32).
Value combine(OpBuilder &b, Location loc, arr::ScatterKind kind, Value acc,
              Value update) {
  bool isFloat = isa<FloatType>(acc.getType());
  switch (kind) {
  case arr::ScatterKind::set:
    return update;
  case arr::ScatterKind::add:
    return isFloat ? arith::AddFOp::create(b, loc, acc, update).getResult()
                   : arith::AddIOp::create(b, loc, acc, update).getResult();
  case arr::ScatterKind::mul:
    return isFloat ? arith::MulFOp::create(b, loc, acc, update).getResult()
                   : arith::MulIOp::create(b, loc, acc, update).getResult();
  case arr::ScatterKind::min:
    return isFloat ? arith::MinimumFOp::create(b, loc, acc, update).getResult()
                   : arith::MinSIOp::create(b, loc, acc, update).getResult();
  case arr::ScatterKind::max:
    return isFloat ? arith::MaximumFOp::create(b, loc, acc, update).getResult()
                   : arith::MaxSIOp::create(b, loc, acc, update).getResult();
  }
  llvm_unreachable("unknown scatter kind");
}

struct ScatterOpLowering : OpConversionPattern<arr::ScatterOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::ScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis(), batchDims = op.getBatchDims();
    int64_t indexDims = op.getIndices().getType().getRank() - batchDims;
    int64_t size = type.getDimSize(axis);
    unsigned numLoops = rank + indexDims;
    arr::ScatterKind kind = op.getKind();

    // Loops: the operand's dimensions, then the index dimensions.
    SmallVector<AffineExpr> updateResults;
    for (int64_t d = 0; d < axis; ++d)
      updateResults.push_back(getAffineDimExpr(d, ctx));
    for (int64_t j = 0; j < indexDims; ++j)
      updateResults.push_back(getAffineDimExpr(rank + j, ctx));
    for (int64_t d = axis + 1; d < rank; ++d)
      updateResults.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineExpr> operandResults;
    for (int64_t d = 0; d < rank; ++d)
      operandResults.push_back(getAffineDimExpr(d, ctx));
    SmallVector<AffineMap> maps{
        indicesMap(ctx, numLoops, batchDims, indexDims, rank),
        AffineMap::get(numLoops, 0, updateResults, ctx),
        AffineMap::get(numLoops, 0, operandResults, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.append(indexDims, utils::IteratorType::reduction);
    // An entry's argument is read-only (the runtime may pass the caller's
    // memory) unless it is donated: the scatter then starts from a copy,
    // which joins the scatter's dispatch as the producer of its
    // destination.
    Value destination = adaptor.getOperand();
    if (auto argument = dyn_cast<BlockArgument>(destination)) {
      auto fn = dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp());
      if (fn && !arr::isDonated(fn, argument.getArgNumber()))
        destination = copyIntoNewTensor(rewriter, loc, destination);
    }
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type,
        ValueRange{adaptor.getIndices(), adaptor.getUpdates()},
        ValueRange{destination}, maps, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value i = fromEnd(b, loc, args[0], size);
          Value position = arith::IndexCastOp::create(
              b, loc, b.getI32Type(), linalg::IndexOp::create(b, loc, axis));
          Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i,
                                            position);
          Value acc = args[2];
          Value updated = combine(b, loc, kind, acc, args[1]);
          linalg::YieldOp::create(
              b, loc,
              ValueRange{arith::SelectOp::create(b, loc, hit, updated, acc)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void vmapc::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherOpLowering, ScatterOpLowering>(patterns.getContext());
}
