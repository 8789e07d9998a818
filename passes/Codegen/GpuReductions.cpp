//===- GpuReductions.cpp - --arr-gpu-reductions ---------------------------===//
//
// A reduction with fewer output elements than threads, whose partial
// results combine (Passes.td): a warp, or the whole block, per output
// element, partials combined with warp shuffles and, across warps, through
// a row of shared memory.
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/ArgReduce.h"
#include "passes/Codegen/GpuThreads.h"
#include "passes/Codegen/ReductionIdentity.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <limits>

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUREDUCTIONS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace vmapc::gpu_threads {

/// How the partial results of a reduction combine, when they can: a
/// payload that yields `combine(x, out)` for one of the ops below (sums,
/// products, max, min), or an argmin/argmax (ArgReduce.h). Values are 32-bit
/// (what a warp shuffle moves).
struct Combiner {
  /// The payload op that combines, and which of its operands is the output.
  Operation *combine = nullptr;
  unsigned outOperand = 0;
  std::optional<vmapc::ArgReduction> arg;
};

std::optional<Combiner> matchCombiner(linalg::LinalgOp op) {
  auto is32Bit = [](Type t) { return t.isF32() || t.isInteger(32); };
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!is32Bit(getElementTypeOrSelf(init.get().getType())))
      return std::nullopt;
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    if (std::optional<vmapc::ArgReduction> arg =
            vmapc::matchArgReduction(generic))
      return Combiner{nullptr, 0, arg};
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Block *block = op.getBlock();
  Operation *combine = block->getTerminator()->getOperand(0).getDefiningOp();
  if (!combine ||
      !isa<arith::AddFOp, arith::AddIOp, arith::MulFOp, arith::MulIOp,
           arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp, arith::MaxSIOp, arith::MinSIOp>(combine))
    return std::nullopt;
  BlockArgument out = op.getRegionOutputArgs()[0];
  if (!out.hasOneUse() || out.use_begin()->getOwner() != combine)
    return std::nullopt;
  return Combiner{combine, out.use_begin()->getOperandNumber(), std::nullopt};
}

/// The value a partial result starts from: the identity of the combiner;
/// for an argmin (argmax), the largest (smallest) value at the largest
/// index, which any element replaces on a tie by its lower index.
static SmallVector<Value> identities(OpBuilder &b, Location loc,
                                     linalg::LinalgOp op, const Combiner &c) {
  Type type = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  auto floatOf = [&](APFloat v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v));
  };
  auto intOf = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  const llvm::fltSemantics &f32 = APFloat::IEEEsingle();
  int64_t intMax = std::numeric_limits<int32_t>::max();
  int64_t intMin = std::numeric_limits<int32_t>::min();
  if (c.arg) {
    Value best = type.isF32() ? floatOf(APFloat::getInf(f32, !c.arg->isMin))
                              : intOf(c.arg->isMin ? intMax : intMin);
    Value index =
        arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(intMax));
    return {best, index};
  }
  std::optional<TypedAttr> identity = vmapc::reductionIdentity(c.combine);
  assert(identity && "matchCombiner accepts combiners with an identity");
  return {arith::ConstantOp::create(b, loc, *identity)};
}

/// `mine` combined with `other` (each a partial result: one value, or an
/// argmin's value and index): the order of the elements they cover does not
/// matter, since an arg-reduction's order (ArgReduction.h) is total on
/// (value, index) pairs.
static SmallVector<Value> combine(OpBuilder &b, Location loc, const Combiner &c,
                                  ValueRange mine, ValueRange other) {
  if (c.arg) {
    Value take = vmapc::buildArgBeats(b, loc, *c.arg, other[0], other[1],
                                      mine[0], mine[1]);
    return {arith::SelectOp::create(b, loc, take, other[0], mine[0]),
            arith::SelectOp::create(b, loc, take, other[1], mine[1])};
  }
  Operation *op = b.clone(*c.combine);
  op->setOperand(c.outOperand, mine[0]);
  op->setOperand(1 - c.outOperand, other[0]);
  return {op->getResult(0)};
}

/// Combines the output's elements at `ivs` with `partial` (the
/// combination of the whole reduction) and stores the result.
static void emitFinal(OpBuilder &b, Location loc, linalg::LinalgOp op,
                      const Combiner &c, ArrayRef<Value> ivs,
                      ValueRange partial) {
  SmallVector<Value> current;
  SmallVector<SmallVector<Value>> indices;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    indices.push_back(applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
    current.push_back(
        memref::LoadOp::create(b, loc, init.get(), indices.back()));
  }
  SmallVector<Value> result = combine(b, loc, c, current, partial);
  for (auto [value, init, index] : llvm::zip(result, op.getDpsInits(), indices))
    memref::StoreOp::create(b, loc, value, init, index);
}

SmallVector<Value> ThreadDistributor::warpCombine(OpBuilder &b, Location loc,
                                                  const Combiner &combiner,
                                                  SmallVector<Value> partial) {
  Value width = arith::ConstantIntOp::create(b, loc, b.getI32Type(), kWarpSize);
  for (int64_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Value by = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    SmallVector<Value> other;
    for (Value v : partial)
      other.push_back(
          gpu::ShuffleOp::create(b, loc, v, by, width, gpu::ShuffleMode::XOR)
              .getShuffleResult());
    partial = combine(b, loc, combiner, partial, other);
  }
  return partial;
}

LogicalResult ThreadDistributor::perGroup(RewriterBase &rewriter,
                                          linalg::LinalgOp op,
                                          const Loops &loops,
                                          const Combiner &combiner,
                                          int64_t group) {
  Location loc = op.getLoc();
  Value thread = threadId(rewriter);
  Value zero = index(rewriter, loc, 0);
  Value warp = index(rewriter, loc, kWarpSize);
  Value lane = arith::RemUIOp::create(rewriter, loc, thread, warp);
  Value warpId = arith::DivUIOp::create(rewriter, loc, thread, warp);
  int64_t warps = blockSize / kWarpSize;
  unsigned numResults = op.getNumDpsInits();
  SmallVector<Type> types;
  for (Value init : op.getDpsInits())
    types.push_back(getElementTypeOrSelf(init.getType()));
  if (combiner.arg)
    types[1] = rewriter.getI32Type();

  // The block's warps exchange their partials through shared memory: a
  // row of `warps` 4-byte values per result, after the kernel's scratch.
  SmallVector<Value> exchange;
  if (group == blockSize) {
    auto workgroup = gpu::AddressSpaceAttr::get(op.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value base = sharedBase(rewriter, loc);
    for (auto [i, type] : llvm::enumerate(types)) {
      Value offset = index(rewriter, loc,
                           llvm::alignTo(sharedBytes, kSharedAlignment) +
                               int64_t(i) * warps * 4);
      exchange.push_back(memref::ViewOp::create(
          rewriter, loc,
          MemRefType::get({warps}, type, MemRefLayoutAttrInterface(),
                          workgroup),
          base, offset, ValueRange()));
    }
    transientBytes = std::max(
        transientBytes,
        int64_t(llvm::alignTo(sharedBytes, kSharedAlignment) - sharedBytes) +
            int64_t(numResults) * warps * 4);
  }

  // Output elements: a warp takes every (blockSize / 32)-th, starting at
  // its id; the block takes each in turn.
  Value total = extent(rewriter, loc, loops, loops.parallel);
  Value first = group == blockSize ? zero : warpId;
  Value stride = index(rewriter, loc, group == blockSize ? 1 : warps);
  auto outputs = scf::ForOp::create(rewriter, loc, first, total, stride);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(outputs.getBody());
  SmallVector<Value> ivs(loops.sizes.size());
  delinearize(rewriter, loc, outputs.getInductionVar(), loops, loops.parallel,
              ivs);

  // Strided partial results over the linearized reduction loops.
  Value reductionExtent = extent(rewriter, loc, loops, loops.reduction);
  Value start = group == blockSize ? thread : lane;
  // Created one at a time: the IR's order must not depend on the order in
  // which a compiler evaluates call arguments.
  SmallVector<Value> initial = identities(rewriter, loc, op, combiner);
  Value step = index(rewriter, loc, group);
  auto elements = scf::ForOp::create(
      rewriter, loc, start, reductionExtent, step, initial,
      [&](OpBuilder &b, Location loc, Value r, ValueRange carried) {
        SmallVector<Value> all(ivs);
        delinearize(b, loc, r, loops, loops.reduction, all);
        scf::YieldOp::create(b, loc, emitPayload(b, loc, op, all, carried));
      });
  SmallVector<Value> partial =
      warpCombine(rewriter, loc, combiner, elements.getResults());

  if (group == blockSize) {
    // Lane 0 of each warp publishes; warp 0 combines the block's partials.
    Value isLane0 = arith::CmpIOp::create(rewriter, loc,
                                          arith::CmpIPredicate::eq, lane, zero);
    auto publish = scf::IfOp::create(rewriter, loc, isLane0);
    {
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(publish.thenBlock());
      for (auto [value, row] : llvm::zip(partial, exchange))
        memref::StoreOp::create(rewriter, loc, value, row, warpId);
    }
    gpu::BarrierOp::create(rewriter, loc);
    Value isWarp0 = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, warpId, zero);
    auto gather = scf::IfOp::create(rewriter, loc, isWarp0);
    {
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(gather.thenBlock());
      Value inBlock =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, lane,
                                index(rewriter, loc, warps));
      SmallVector<Value> identity = identities(rewriter, loc, op, combiner);
      SmallVector<Value> mine;
      for (auto [row, id] : llvm::zip(exchange, identity)) {
        // Lanes past the block's warps read row 0 and drop it.
        Value at = arith::SelectOp::create(rewriter, loc, inBlock, lane, zero);
        Value value = memref::LoadOp::create(rewriter, loc, row, at);
        mine.push_back(
            arith::SelectOp::create(rewriter, loc, inBlock, value, id));
      }
      SmallVector<Value> total = warpCombine(rewriter, loc, combiner, mine);
      Value isLane0 = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, lane, zero);
      auto store = scf::IfOp::create(rewriter, loc, isLane0);
      rewriter.setInsertionPointToStart(store.thenBlock());
      emitFinal(rewriter, loc, op, combiner, ivs, total);
    }
    // The exchange rows are reused by the next output element.
    gpu::BarrierOp::create(rewriter, loc);
    return success();
  }
  Value isLane0 = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, zero);
  auto store = scf::IfOp::create(rewriter, loc, isLane0);
  rewriter.setInsertionPointToStart(store.thenBlock());
  emitFinal(rewriter, loc, op, combiner, ivs, partial);
  return success();
}

} // namespace vmapc::gpu_threads

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuReductionsPass
    : vmapc::impl::ArrGpuReductionsBase<ArrGpuReductionsPass> {
  void runOnOperation() override {
    auto choose = [](ThreadDistributor &threads,
                     linalg::LinalgOp op) -> Strategy {
      int64_t blockSize = threads.getBlockSize();
      if (op.getNumReductionLoops() == 0)
        return nullptr;
      std::optional<Combiner> combiner = matchCombiner(op);
      std::optional<int64_t> outputs =
          iterationsBound(op, utils::IteratorType::parallel);
      if (!combiner || !outputs || *outputs >= blockSize)
        return nullptr;
      // Few outputs: the whole block per output element; fewer than the
      // block's threads: a warp.
      int64_t group = *outputs < blockSize / kWarpSize ? blockSize : kWarpSize;
      return [&threads, op, combiner = *combiner,
              group](RewriterBase &rewriter,
                     const ThreadDistributor::Loops &loops) {
        return threads.perGroup(rewriter, op, loops, combiner, group);
      };
    };
    if (failed(distributeOps(getOperation(), getArgument(), choose)))
      signalPassFailure();
  }
};
} // namespace
