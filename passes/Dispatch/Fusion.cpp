//===- Fusion.cpp - which producers a dispatch computes with its root -----===//

#include "passes/Dispatch/Fusion.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"

using namespace mlir;
using namespace vmapc;

RootLoopMap::RootLoopMap(linalg::LinalgOp root) : root(root) {
  SmallVector<int64_t> identity;
  for (int64_t l = 0, e = root.getNumLoops(); l < e; ++l)
    identity.push_back(l);
  loops[root] = identity;
}

void RootLoopMap::addProducer(linalg::LinalgOp producer, OpOperand &operand) {
  auto consumer = cast<linalg::LinalgOp>(operand.getOwner());
  const SmallVector<int64_t> &consumerLoops = loops.find(consumer)->second;
  AffineMap readMap = consumer.getMatchingIndexingMap(&operand);
  AffineMap writeMap =
      producer.getIndexingMapMatchingResult(cast<OpResult>(operand.get()));
  SmallVector<int64_t> mapped;
  for (int64_t consumerLoop : consumerLoops) {
    int64_t producerLoop = -1;
    if (consumerLoop >= 0) {
      std::optional<unsigned> dim = readMap.getResultPosition(
          getAffineDimExpr(consumerLoop, root->getContext()));
      if (dim)
        if (auto expr = dyn_cast<AffineDimExpr>(writeMap.getResult(*dim)))
          producerLoop = expr.getPosition();
    }
    mapped.push_back(producerLoop);
  }
  auto [it, inserted] = loops.try_emplace(producer, mapped);
  if (!inserted)
    for (auto [known, now] : llvm::zip(it->second, mapped))
      if (known != now)
        known = -1;
}

SmallVector<int64_t> RootLoopMap::distributableLoops() const {
  SmallVector<int64_t> result;
  linalg::LinalgOp op = root;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t l = 0, e = op.getNumLoops(); l < e; ++l) {
    if (iterators[l] != utils::IteratorType::parallel)
      continue;
    if (llvm::all_of(loops,
                     [&](const auto &entry) { return entry.second[l] >= 0; }))
      result.push_back(l);
  }
  return result;
}

/// A slice in `loop`'s body of a linalg op result defined in the block that
/// holds the loop, or of an iteration argument whose init such an op
/// produces; null if there is none.
static tensor::ExtractSliceOp
findFusionCandidate(ArrayRef<LoopLikeOpInterface> loops,
                    llvm::function_ref<bool(Operation *)> shouldFuse) {
  tensor::ExtractSliceOp candidate;
  LoopLikeOpInterface loop = loops.front();
  Block *outside = loop->getBlock();
  loops.back()->walk([&](tensor::ExtractSliceOp slice) {
    Value source = slice.getSource();
    if (auto arg = dyn_cast<BlockArgument>(source)) {
      auto owner = dyn_cast<LoopLikeOpInterface>(arg.getOwner()->getParentOp());
      if (!owner || !loop->isAncestor(owner))
        return WalkResult::advance();
      OpOperand *init = owner.getTiedLoopInit(arg);
      if (!init)
        return WalkResult::advance();
      Value value = init->get();
      // Through the iteration arguments of enclosing tile loops.
      while (auto outer = dyn_cast<BlockArgument>(value)) {
        auto outerLoop =
            dyn_cast<LoopLikeOpInterface>(outer.getOwner()->getParentOp());
        OpOperand *outerInit =
            outerLoop ? outerLoop.getTiedLoopInit(outer) : nullptr;
        if (!outerInit)
          break;
        value = outerInit->get();
      }
      auto producer = value.getDefiningOp<linalg::LinalgOp>();
      if (!producer || producer->getBlock() != outside ||
          (shouldFuse && !shouldFuse(producer)))
        return WalkResult::advance();
    } else {
      auto producer = source.getDefiningOp<linalg::LinalgOp>();
      if (!producer || producer->getBlock() != outside ||
          (shouldFuse && !shouldFuse(producer)))
        return WalkResult::advance();
    }
    candidate = slice;
    return WalkResult::interrupt();
  });
  return candidate;
}

LogicalResult
vmapc::fuseProducersIntoLoop(RewriterBase &rewriter, LoopLikeOpInterface loop,
                             llvm::function_ref<bool(Operation *)> shouldFuse) {
  return fuseProducersIntoLoops(rewriter, {loop}, shouldFuse);
}

LogicalResult vmapc::fuseProducersIntoLoops(
    RewriterBase &rewriter, ArrayRef<LoopLikeOpInterface> nest,
    llvm::function_ref<bool(Operation *)> shouldFuse) {
  LoopLikeOpInterface loop = nest.front();
  SmallVector<LoopLikeOpInterface> loops(nest);
  while (true) {
    // Inside the nest only: CSE over the enclosing scope could merge this
    // loop with an identical one (a result returned twice) and erase it.
    DominanceInfo dominance(loop);
    eliminateCommonSubExpressions(rewriter, dominance, loop);
    tensor::ExtractSliceOp candidate = findFusionCandidate(loops, shouldFuse);
    if (!candidate)
      break;
    if (!scf::tileAndFuseProducerOfSlice(rewriter, candidate, loops))
      return candidate.emitOpError("cannot fuse its producer into the tile "
                                   "loop");
  }
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*loop->getBlock())))
    if (isa<linalg::LinalgOp>(op) && op.use_empty())
      rewriter.eraseOp(&op);
  return success();
}
