//===- GpuKernels.cpp - preparing loop nests to become GPU kernels --------===//
//
// Two small passes of the GPU pipeline (GpuPipeline.cpp) that upstream
// lacks: one block of threads per loop nest, and kernels that take the
// arena rather than views of it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include <algorithm>

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUTILEPARALLELLOOPS
#define GEN_PASS_DEF_ARRGPUSINKINTOLAUNCH
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// Tiles every outermost scf.parallel so that its inner loop has at most
/// `threadsPerBlock` iterations, taken from the innermost dimensions first
/// (the contiguous ones, so neighbouring threads touch neighbouring
/// elements): a [256, 1000] nest gets tiles of 1x256, a [64, 8] nest 32x8.
/// Tiles have fixed bounds and an in-bounds check (scf.if) around the body,
/// so that convert-parallel-loops-to-gpu sees constant block sizes.
struct TileParallelLoopsPass
    : vmapc::impl::ArrGpuTileParallelLoopsBase<TileParallelLoopsPass> {
  using ArrGpuTileParallelLoopsBase::ArrGpuTileParallelLoopsBase;

  void runOnOperation() override {
    if (threadsPerBlock == 0) {
      getOperation().emitError("threads-per-block must be positive");
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> nests;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          loop.getNumReductions() == 0)
        nests.push_back(loop);
    });
    for (scf::ParallelOp loop : nests)
      scf::tileParallelLoop(loop, tileSizes(loop), /*noMinMaxBounds=*/true);
  }

  /// At most three dimensions are tiled: a block has three thread ids.
  SmallVector<int64_t> tileSizes(scf::ParallelOp loop) const {
    unsigned rank = loop.getNumLoops();
    SmallVector<int64_t> sizes(rank, 1);
    int64_t left = threadsPerBlock;
    for (unsigned i = rank; i > 0 && rank - i < 3 && left > 1; --i) {
      int64_t size = left;
      std::optional<int64_t> lb =
          getConstantIntValue(loop.getLowerBound()[i - 1]);
      std::optional<int64_t> ub =
          getConstantIntValue(loop.getUpperBound()[i - 1]);
      std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i - 1]);
      if (lb && ub && step && *step > 0)
        size = std::min(
            size, std::max<int64_t>(1, llvm::divideCeil(*ub - *lb, *step)));
      sizes[i - 1] = size;
      left /= size;
    }
    return sizes;
  }
};

/// Sinks constants and view-like ops (arena views first of all) into each
/// gpu.launch, so the outlined kernel takes what they view, and reports the
/// operations that would otherwise run on the host.
struct SinkIntoLaunchPass
    : vmapc::impl::ArrGpuSinkIntoLaunchBase<SinkIntoLaunchPass> {
  static bool isSinkingBeneficiary(Operation *op) {
    return matchPattern(op, m_Constant()) || isa<ViewLikeOpInterface>(op) ||
           isa<memref::DimOp>(op);
  }

  /// Clones `value`'s producer (and, first, its operands' producers) into
  /// the launch body at `builder` when sinking it helps. Upstream's
  /// sinkOperationsIntoLaunchOp keeps a view of a function argument outside
  /// (sinking does not reduce the number of captured values), but the kernel
  /// should take the arena, not a pointer into it.
  static Value sink(Value value, OpBuilder &builder, IRMapping &sunk) {
    if (Value known = sunk.lookupOrNull(value))
      return known;
    Operation *producer = value.getDefiningOp();
    if (!producer || !isSinkingBeneficiary(producer) ||
        producer->getNumRegions() != 0)
      return value;
    for (Value operand : producer->getOperands())
      sink(operand, builder, sunk);
    Operation *clone = builder.clone(*producer, sunk);
    sunk.map(producer->getResults(), clone->getResults());
    return sunk.lookup(value);
  }

  static void sinkIntoLaunch(gpu::LaunchOp launch) {
    Region &body = launch.getBody();
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    OpBuilder builder = OpBuilder::atBlockBegin(&body.front());
    IRMapping sunk;
    for (Value value : captured) {
      Value inside = sink(value, builder, sunk);
      if (inside != value)
        value.replaceUsesWithIf(inside, [&](OpOperand &use) {
          return body.isAncestor(use.getOwner()->getParentRegion());
        });
    }
  }

  /// What must not be left outside a kernel: it would touch device memory
  /// from the host.
  static bool isHostWork(Operation *op) {
    return isa<scf::ParallelOp, scf::ForOp, scf::WhileOp, memref::LoadOp,
               memref::StoreOp, memref::CopyOp, linalg::LinalgOp>(op);
  }

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
        sinkIntoLaunch(launch);
        return WalkResult::skip();
      }
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        op->emitOpError("allocates outside the arena: run "
                        "arr-bufferize-pipeline (which plans every buffer "
                        "into the arena) first");
        failed = true;
        return WalkResult::advance();
      }
      if (isHostWork(op)) {
        op->emitOpError("would run on the host: it was not mapped to a GPU "
                        "kernel (only loop nests with a parallel dimension "
                        "become kernels)");
        failed = true;
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
