//===- GpuDistributeThreads.cpp - --arr-gpu-distribute-threads ------------===//
//
// Every structured op the reductions and contraction-tile passes left: a
// thread per parallel iteration, strided by the block size, each thread
// running its output elements' reduction loops in order (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/GpuThreads.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUDISTRIBUTETHREADS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace vmapc::gpu_threads {

LogicalResult ThreadDistributor::perThread(RewriterBase &rewriter,
                                           linalg::LinalgOp op,
                                           const Loops &loops) {
  Location loc = op.getLoc();
  Value total = extent(rewriter, loc, loops, loops.parallel);
  // Inputs read at the same element by every iteration (a broadcast
  // scalar) are loaded once, before the loop.
  SmallVector<Value> invariant;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = dyn_cast<MemRefType>(input->get().getType());
    bool hoist = type && type.hasStaticShape() && type.getNumElements() > 0 &&
                 llvm::all_of(map.getResults(), [](AffineExpr e) {
                   return isa<AffineConstantExpr>(e);
                 });
    invariant.push_back(
        hoist ? memref::LoadOp::create(rewriter, loc, input->get(),
                                       applyMap(rewriter, loc, map, {}))
                    .getResult()
              : Value());
  }
  auto inputsAt = [&](OpBuilder &b, ArrayRef<Value> ivs) {
    SmallVector<Value> ins;
    for (auto [input, value] : llvm::zip(op.getDpsInputOperands(), invariant)) {
      if (value)
        ins.push_back(value);
      else if (isa<MemRefType>(input->get().getType()))
        ins.push_back(memref::LoadOp::create(
            b, loc, input->get(),
            applyMap(b, loc, op.getMatchingIndexingMap(input), ivs)));
      else
        ins.push_back(input->get());
    }
    return ins;
  };

  // An elementwise op with enough elements runs kUnroll of them per
  // iteration (kUnroll x blockSize apart in all), every load before any
  // store, so that each thread keeps kUnroll loads in flight: a block
  // strided one element at a time cannot cover HBM's latency (Little's law:
  // ~20 KiB in flight per SM at 4.8 TB/s).
  constexpr int64_t kUnroll = 4;
  std::optional<int64_t> bound =
      iterationsBound(op, utils::IteratorType::parallel);
  int64_t unroll =
      loops.reduction.empty() && bound && *bound >= kUnroll * blockSize
          ? kUnroll
          : 1;
  Value stride = index(rewriter, loc, unroll * blockSize);
  auto loop =
      scf::ForOp::create(rewriter, loc, threadId(rewriter), total, stride);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(loop.getBody());
  Value last =
      arith::SubIOp::create(rewriter, loc, total, index(rewriter, loc, 1));

  if (loops.reduction.empty()) {
    struct Element {
      Value inside;
      SmallVector<SmallVector<Value>> indices;
      SmallVector<Value> results;
    };
    SmallVector<Element> elements;
    for (int64_t u = 0; u < unroll; ++u) {
      Element element;
      Value linear = loop.getInductionVar();
      if (u > 0) {
        // Past the end: computed on the last element, not stored.
        linear = arith::AddIOp::create(rewriter, loc, linear,
                                       index(rewriter, loc, u * blockSize));
        element.inside = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ule, linear, last);
        linear = arith::MinUIOp::create(rewriter, loc, linear, last);
      }
      SmallVector<Value> ivs(loops.sizes.size());
      delinearize(rewriter, loc, linear, loops, loops.parallel, ivs);
      // Outputs are read only if the payload uses them.
      SmallVector<Value> outs;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        element.indices.push_back(
            applyMap(rewriter, loc, op.getMatchingIndexingMap(&init), ivs));
        outs.push_back(op.getMatchingBlockArgument(&init).use_empty()
                           ? Value()
                           : memref::LoadOp::create(rewriter, loc, init.get(),
                                                    element.indices.back())
                                 .getResult());
      }
      element.results =
          emitPayload(rewriter, loc, op, ivs, outs, inputsAt(rewriter, ivs));
      elements.push_back(std::move(element));
    }
    for (Element &element : elements) {
      OpBuilder::InsertionGuard inner(rewriter);
      if (element.inside) {
        auto store = scf::IfOp::create(rewriter, loc, element.inside);
        rewriter.setInsertionPointToStart(store.thenBlock());
      }
      for (auto [value, init, index] :
           llvm::zip(element.results, op.getDpsInits(), element.indices))
        memref::StoreOp::create(rewriter, loc, value, init, index);
    }
    return success();
  }

  // A reduction per thread: its loops in order.
  SmallVector<Value> ivs(loops.sizes.size());
  delinearize(rewriter, loc, loop.getInductionVar(), loops, loops.parallel,
              ivs);
  SmallVector<SmallVector<Value>> indices;
  SmallVector<Value> initial;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    indices.push_back(
        applyMap(rewriter, loc, op.getMatchingIndexingMap(&init), ivs));
    initial.push_back(
        memref::LoadOp::create(rewriter, loc, init.get(), indices.back()));
  }
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned d : loops.reduction) {
    lbs.push_back(index(rewriter, loc, 0));
    ubs.push_back(
        getValueOrCreateConstantIndexOp(rewriter, loc, loops.sizes[d]));
    steps.push_back(index(rewriter, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, initial,
      [&](OpBuilder &b, Location loc, ValueRange reductionIvs,
          ValueRange carried) -> scf::ValueVector {
        SmallVector<Value> all(ivs);
        for (auto [d, iv] : llvm::zip(loops.reduction, reductionIvs))
          all[d] = iv;
        return emitPayload(b, loc, op, all, carried, inputsAt(b, all));
      });
  for (auto [value, init, index] :
       llvm::zip(nest.results, op.getDpsInits(), indices))
    memref::StoreOp::create(rewriter, loc, value, init, index);
  return success();
}

} // namespace vmapc::gpu_threads

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuDistributeThreadsPass
    : vmapc::impl::ArrGpuDistributeThreadsBase<ArrGpuDistributeThreadsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(forEachGpuKernel(module, getArgument(), eraseOrRefuseCopies)))
      return signalPassFailure();
    auto choose = [](ThreadDistributor &threads,
                     linalg::LinalgOp op) -> Strategy {
      return [&threads, op](RewriterBase &rewriter,
                            const ThreadDistributor::Loops &loops) {
        return threads.perThread(rewriter, op, loops);
      };
    };
    if (failed(distributeOps(module, getArgument(), choose)))
      signalPassFailure();
  }

  /// Copies that copy a buffer onto itself (left by bufferization of
  /// in-place tiles) do nothing; any other copy should have been a
  /// linalg.copy. A kernel without a block size is refused first, as
  /// distributeOps would.
  static LogicalResult eraseOrRefuseCopies(gpu::GPUFuncOp fn) {
    if (failed(requireBlockSize(fn)))
      return failure();
    fn.walk([](memref::CopyOp copy) {
      if (copy.getSource() == copy.getTarget())
        copy.erase();
    });
    WalkResult copies = fn.walk([](memref::CopyOp copy) {
      copy.emitOpError("is left in a GPU kernel (arr-copies-to-linalg runs "
                       "before arr-gpu-outline-kernels)");
      return WalkResult::interrupt();
    });
    return failure(copies.wasInterrupted());
  }
};
} // namespace
