//===- Canonicalization.cpp - the arr dialect's canonicalization patterns -===//
//
// Patterns that `--canonicalize` runs on batched arr programs (after
// `--arr-vmap`), besides the ops' folders.
//
// A gather of a computed value reads the value at the gathered positions
// only: `-log_softmax(z)[y]` needs `z[y]`, the row's maximum and its
// log-sum-exp, not the whole normalised row. XLA gets this by fusing the
// producer into the gather; here the gather moves below the producer:
//
//   gather(e(a, b, ...))         -> e(gather(a), gather(b), ...)
//                                   (e elementwise)
//   gather(broadcast_in_dim(x))  -> broadcast_in_dim(x)
//                                   (x constant along the axis)
//
// for the in-range modes (clamp, clip: every read is of an element; fill's
// out-of-range value is not e's of the fill values), and only when the
// gather reads no more elements than the producer makes, so that the
// gathered computation is never larger than the one it replaces (the
// producer stays where it has other users).
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace vmapc::arr;

namespace {

struct GatherBelowProducer : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GatherOp gather,
                                PatternRewriter &rewriter) const override {
    if (gather.getMode() == GatherMode::fill)
      return failure();
    Operation *producer = gather.getOperand().getDefiningOp();
    auto resultType = cast<RankedTensorType>(gather.getResult().getType());
    auto producedType = cast<RankedTensorType>(gather.getOperand().getType());
    if (!producer || producer->getDialect() != gather->getDialect() ||
        resultType.getNumElements() > producedType.getNumElements())
      return failure();
    if (producer->hasTrait<OpTrait::Elementwise>())
      return gatherOperands(gather, producer, resultType, rewriter);
    if (auto broadcast = dyn_cast<BroadcastInDimOp>(producer))
      return broadcastDirectly(gather, broadcast, resultType, rewriter);
    return failure();
  }

  /// e(gather(a), gather(b), ...).
  static LogicalResult gatherOperands(GatherOp gather, Operation *producer,
                                      RankedTensorType resultType,
                                      PatternRewriter &rewriter) {
    if (producer->getNumResults() != 1 || producer->getNumRegions() != 0)
      return failure();
    Location loc = gather.getLoc();
    SmallVector<Value> gathered;
    for (Value operand : producer->getOperands())
      gathered.push_back(GatherOp::create(
          rewriter, loc, operand, gather.getIndices(), gather.getAxis(),
          gather.getBatchDims(), gather.getMode()));
    OperationState state(producer->getLoc(), producer->getName(), gathered,
                         TypeRange{resultType}, producer->getAttrs());
    rewriter.replaceOp(gather, rewriter.create(state)->getResults());
    return success();
  }

  /// broadcast_in_dim(x) straight into the gather's shape, when x does not
  /// vary along the gathered axis.
  static LogicalResult broadcastDirectly(GatherOp gather,
                                         BroadcastInDimOp broadcast,
                                         RankedTensorType resultType,
                                         PatternRewriter &rewriter) {
    int64_t axis = static_cast<int64_t>(gather.getAxis());
    ArrayRef<int64_t> dims = broadcast.getDims();
    if (llvm::is_contained(dims, axis))
      return failure();
    // A dimension p of the gathered value is p of the result before the
    // axis, and p - 1 + (the indices' non-batch rank) after it.
    auto indicesType = cast<RankedTensorType>(gather.getIndices().getType());
    int64_t indexRank =
        indicesType.getRank() - static_cast<int64_t>(gather.getBatchDims());
    SmallVector<int64_t> newDims;
    for (int64_t p : dims)
      newDims.push_back(p < axis ? p : p - 1 + indexRank);
    rewriter.replaceOpWithNewOp<BroadcastInDimOp>(
        gather, resultType, broadcast.getOperand(), newDims);
    return success();
  }
};

} // namespace

void ArrDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  results.add<GatherBelowProducer>(getContext());
}
