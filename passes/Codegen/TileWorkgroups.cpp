//===- TileWorkgroups.cpp - a kernel's root tiled into a grid of workgroups
//===//
//
// `--arr-tile-workgroups`: in every kernel, the root op (the one whose
// results the kernel writes to its output bindings) is tiled along its
// distributable loops (passes/Dispatch/Fusion.h) into an `scf.forall`, one
// iteration per workgroup, and every producer in the kernel is fused into
// the workgroup's tile (upstream `scf::tileAndFuseProducerOfSlice`). The
// root's batch loop (`sched.batch_loop`) runs over [0, n) only, n being the
// kernel's `sched.num_examples` argument, so the last workgroup of a chunk
// of n examples takes min(T, n - i) rows and the grid has ceil(n / T)
// workgroups along it. The kernel records its grid in
// `sched.workgroup_count`.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Codegen/TileSizes.h"
#include "passes/Dispatch/Fusion.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRTILEWORKGROUPS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;
using namespace vmapc;

namespace {

/// The op whose results the kernel writes to its outputs: the last linalg
/// op of the body that another linalg op does not read.
linalg::LinalgOp findRoot(func::FuncOp kernel) {
  linalg::LinalgOp root;
  for (Operation &op : kernel.getBody().front()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp)
      continue;
    bool readByLinalg = llvm::any_of(op.getUsers(), [](Operation *user) {
      return isa<linalg::LinalgOp>(user);
    });
    if (!readByLinalg)
      root = linalgOp;
  }
  return root;
}

/// The kernel argument holding n, or null.
Value numExamplesArgument(func::FuncOp kernel) {
  for (BlockArgument arg : kernel.getArguments())
    if (kernel.getArgAttr(arg.getArgNumber(),
                          sched::SchedDialect::kNumExamplesAttrName))
      return arg;
  return nullptr;
}

struct ArrTileWorkgroupsPass
    : vmapc::impl::ArrTileWorkgroupsBase<ArrTileWorkgroupsPass> {
  using ArrTileWorkgroupsBase::ArrTileWorkgroupsBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!sched::isKernel(kernel) || kernel.isExternal())
        continue;
      if (failed(tileKernel(kernel)))
        return signalPassFailure();
    }
  }

  /// Replaces each linalg op on tensors with a loop of no iterations (a
  /// reduction over an axis of `axis_size=0`, say) by its inits: it
  /// computes nothing, and no tiling below need handle a loop of size 0.
  static void eraseEmptyIterations(func::FuncOp kernel) {
    SmallVector<linalg::LinalgOp> empty;
    kernel.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          llvm::is_contained(op.getStaticLoopRanges(), 0))
        empty.push_back(op);
    });
    IRRewriter rewriter(kernel.getContext());
    for (linalg::LinalgOp op : empty)
      rewriter.replaceOp(op, op.getDpsInits());
  }

  LogicalResult tileKernel(func::FuncOp kernel) {
    MLIRContext *ctx = kernel.getContext();
    auto setGrid = [&](ArrayRef<int64_t> counts) {
      SmallVector<int64_t, 3> grid(counts);
      grid.resize(3, 1);
      kernel->setAttr(sched::SchedDialect::kWorkgroupCountAttrName,
                      DenseI64ArrayAttr::get(ctx, grid));
    };
    eraseEmptyIterations(kernel);
    linalg::LinalgOp root = findRoot(kernel);
    if (!root) {
      setGrid({});
      return success();
    }
    // The loops to spread over workgroups and their tile sizes.
    RootLoopMap loopMap(root);
    SmallVector<Operation *> worklist{root};
    llvm::SmallPtrSet<Operation *, 8> seen{root};
    while (!worklist.empty()) {
      auto consumer = cast<linalg::LinalgOp>(worklist.pop_back_val());
      for (OpOperand &operand : consumer->getOpOperands()) {
        auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
        if (!producer)
          continue;
        loopMap.addProducer(producer, operand);
        if (seen.insert(producer).second)
          worklist.push_back(producer);
      }
    }
    std::optional<int64_t> batchLoop;
    if (auto attr = root->getAttrOfType<IntegerAttr>(
            sched::SchedDialect::kBatchLoopAttrName))
      batchLoop = attr.getInt();
    Value numExamples = numExamplesArgument(kernel);
    if (batchLoop && !numExamples)
      return kernel.emitOpError("has a batch loop but no '")
             << sched::SchedDialect::kNumExamplesAttrName << "' argument";
    SmallVector<Operation *> producers(seen.begin(), seen.end());
    llvm::erase(producers, root.getOperation());
    WorkgroupTiling tiling =
        chooseWorkgroupTiling(root, producers, loopMap.distributableLoops(),
                              batchLoop, target, maxWorkgroupScratch);
    if (tiling.loops.empty()) {
      setGrid({});
      return success();
    }

    IRRewriter rewriter(ctx);
    Location loc = root.getLoc();
    rewriter.setInsertionPoint(root);
    SmallVector<Range> domain =
        cast<TilingInterface>(root.getOperation()).getIterationDomain(rewriter);
    SmallVector<OpFoldResult> lbs, ubs, steps;
    SmallVector<int64_t> grid;
    for (auto [loop, tile] : llvm::zip(tiling.loops, tiling.tileSizes)) {
      lbs.push_back(rewriter.getIndexAttr(0));
      steps.push_back(rewriter.getIndexAttr(tile));
      if (batchLoop && loop == *batchLoop) {
        ubs.push_back(numExamples);
        grid.push_back(-tile);
      } else {
        std::optional<int64_t> size = getConstantIntValue(domain[loop].size);
        ubs.push_back(domain[loop].size);
        grid.push_back(size ? llvm::divideCeil(*size, tile) : 1);
      }
    }
    SmallVector<Value> inits(root.getDpsInits());
    auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps, inits,
                                        /*mapping=*/std::nullopt);

    // The root's tile, on the shared outputs.
    rewriter.setInsertionPointToStart(forall.getBody());
    SmallVector<OpFoldResult> offsets, sizes;
    for (Range range : domain) {
      offsets.push_back(range.offset);
      sizes.push_back(range.size);
    }
    for (auto [i, loop] : llvm::enumerate(tiling.loops)) {
      Value iv = forall.getInductionVar(i);
      offsets[loop] = iv;
      AffineExpr d0, s0;
      bindDims(ctx, d0);
      bindSymbols(ctx, s0);
      int64_t tile = tiling.tileSizes[i];
      auto map = AffineMap::get(
          1, 1, {getAffineConstantExpr(tile, ctx), s0 - d0}, ctx);
      sizes[loop] = affine::makeComposedFoldedAffineMin(
          rewriter, loc, map, {OpFoldResult(iv), ubs[i]});
    }
    IRMapping onShared;
    for (auto [init, arg] : llvm::zip(inits, forall.getRegionIterArgs()))
      onShared.map(init, arg);
    auto shared = cast<TilingInterface>(rewriter.clone(*root, onShared));
    FailureOr<TilingResult> tiled =
        shared.getTiledImplementation(rewriter, offsets, sizes);
    if (failed(tiled))
      return root.emitOpError("cannot be tiled into workgroups");
    if (Attribute attr = root->getAttr(sched::SchedDialect::kBatchLoopAttrName))
      for (Operation *op : tiled->tiledOps)
        op->setAttr(sched::SchedDialect::kBatchLoopAttrName, attr);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    for (auto [i, value] : llvm::enumerate(tiled->tiledValues)) {
      SmallVector<OpFoldResult> resultOffsets, resultSizes;
      if (failed(shared.getResultTilePosition(rewriter, i, offsets, sizes,
                                              resultOffsets, resultSizes)))
        return root.emitOpError("has no tile position for result ") << i;
      SmallVector<OpFoldResult> strides(resultOffsets.size(),
                                        rewriter.getIndexAttr(1));
      tensor::ParallelInsertSliceOp::create(
          rewriter, loc, value, forall.getRegionIterArgs()[i], resultOffsets,
          resultSizes, strides);
    }
    rewriter.eraseOp(shared);
    rewriter.replaceOp(root, forall.getResults());

    // Fuse every producer into the tile, computing each slice once.
    if (failed(fuseProducersIntoLoop(
            rewriter, cast<LoopLikeOpInterface>(forall.getOperation()))))
      return failure();
    setGrid(grid);
    return success();
  }
};

} // namespace
