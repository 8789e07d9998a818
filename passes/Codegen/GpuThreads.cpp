//===- GpuThreads.cpp - structured ops spread over a block's threads ------===//
//
// The thread mapping is the plain one of XLA's and IREE's elementwise
// emitters: linearize an op's parallel iterations, innermost fastest, and
// stride them by the block size; reductions stay in one thread, in order
// (arr-gpu-distribute-threads), unless a warp or the block shares them
// (arr-gpu-reductions) or the op is a contraction by output tiles
// (arr-gpu-contraction-tiles).
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/GpuThreads.h"

#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;

namespace vmapc::gpu_threads {

/// A constant upper bound (inclusive) of index value `v`.
FailureOr<int64_t> upperBound(OpFoldResult v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return *c;
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, cast<Value>(v), /*stopCondition=*/nullptr,
      /*closedUB=*/true);
}

/// The size of dimension `dim` of `memref` if it is per-workgroup scratch
/// of a dynamic size (a view of shared memory, seen through the cast back to
/// the default memory space), which value bounds do not see through.
static Value scratchSize(Value memref, unsigned dim) {
  while (auto cast = memref.getDefiningOp<memref::MemorySpaceCastOp>())
    memref = cast.getSource();
  auto view = memref.getDefiningOp<memref::ViewOp>();
  if (!view || !view.getType().isDynamicDim(dim))
    return Value();
  return view.getSizes()[view.getType().getDynamicDimIndex(dim)];
}

/// A constant upper bound of loop `loop` of `op`: its static range, or the
/// bound of an operand dimension that it spans (the rows of a partial tile
/// are at most the tile's).
std::optional<int64_t> loopBound(linalg::LinalgOp op, unsigned loop) {
  int64_t range = op.getStaticLoopRanges()[loop];
  if (!ShapedType::isDynamic(range))
    return range;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue;
    for (auto [dim, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      auto d = dyn_cast<AffineDimExpr>(expr);
      if (!d || d.getPosition() != loop)
        continue;
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(operand.get(), dim),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(bound))
        if (Value size = scratchSize(operand.get(), dim))
          bound = upperBound(size);
      if (succeeded(bound))
        return *bound;
    }
  }
  return std::nullopt;
}

/// The number of iterations of `op`'s loops of kind `kind` (all loops if
/// none), bounded: the product of their bounds (nullopt if one has no known
/// bound).
std::optional<int64_t>
iterationsBound(linalg::LinalgOp op, std::optional<utils::IteratorType> kind) {
  int64_t total = 1;
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (kind && iterator != *kind)
      continue;
    std::optional<int64_t> bound = loopBound(op, loop);
    if (!bound)
      return std::nullopt;
    total *= *bound;
  }
  return total;
}

/// The values of `map`'s results at `ivs`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> values;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      values.push_back(ivs[dim.getPosition()]);
      continue;
    }
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      values.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
      continue;
    }
    values.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return values;
}

/// One iteration of `op`'s payload at `ivs` with outputs' values `outs`:
/// loads the inputs, clones the body (linalg.index = the iv), returns the
/// yielded values.
SmallVector<Value> emitPayload(OpBuilder &b, Location loc, linalg::LinalgOp op,
                               ArrayRef<Value> ivs, ValueRange outs,
                               ValueRange ins) {
  Block *block = op.getBlock();
  IRMapping mapping;
  for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands())) {
    Value value = input->get();
    if (!ins.empty())
      value = ins[i];
    else if (isa<MemRefType>(value.getType()))
      value = memref::LoadOp::create(
          b, loc, value,
          applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
    mapping.map(op.getMatchingBlockArgument(input), value);
  }
  for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), outs))
    mapping.map(op.getMatchingBlockArgument(&init), value);
  for (Operation &inner : block->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  SmallVector<Value> yielded;
  for (Value v : block->getTerminator()->getOperands())
    yielded.push_back(mapping.lookupOrDefault(v));
  return yielded;
}

LogicalResult verifyDistributable(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return op->emitOpError("is not bufferized");
  for (OpOperand &init : op.getDpsInitsMutable())
    for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction &&
          op.getMatchingIndexingMap(&init).isFunctionOfDim(d))
        return op->emitOpError("writes its output along a reduction loop");
  return success();
}

LogicalResult
forEachGpuKernel(ModuleOp module, StringRef pass,
                 function_ref<LogicalResult(gpu::GPUFuncOp)> body) {
  for (auto fn : module.getOps<func::FuncOp>())
    if (sched::isKernel(fn) && !fn.isExternal())
      return fn.emitOpError()
             << "is a kernel not yet outlined: '" << pass
             << "' runs on the gpu.funcs of gpu.module @vmapc_kernels; run "
                "--arr-gpu-outline-kernels first";
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    for (auto fn : gpuModule.getOps<gpu::GPUFuncOp>())
      if (fn.isKernel() && failed(body(fn)))
        return failure();
  return success();
}

LogicalResult requireBlockSize(gpu::GPUFuncOp fn) {
  if (fn.getKnownBlockSizeAttr())
    return success();
  return fn.emitOpError("has no known_block_size: run --arr-gpu-block-size "
                        "first");
}

LogicalResult distributeOps(
    ModuleOp module, StringRef pass,
    function_ref<Strategy(ThreadDistributor &, linalg::LinalgOp)> choose) {
  return forEachGpuKernel(module, pass, [&](gpu::GPUFuncOp fn) {
    if (failed(requireBlockSize(fn)))
      return failure();
    ThreadDistributor threads(fn);
    SmallVector<linalg::LinalgOp> ops;
    fn.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(fn.getContext());
    for (linalg::LinalgOp op : ops) {
      if (failed(verifyDistributable(op)))
        return failure();
      Strategy strategy = choose(threads, op);
      if (!strategy)
        continue;
      if (failed(threads.distribute(rewriter, op,
                                    [&](const ThreadDistributor::Loops &loops) {
                                      return strategy(rewriter, loops);
                                    })))
        return failure();
    }
    threads.saveTransientBytes();
    return success();
  });
}

ThreadDistributor::ThreadDistributor(gpu::GPUFuncOp fn)
    : fn(fn), blockSize(0), sharedBytes(0), transientBytes(0) {
  if (DenseI32ArrayAttr block = fn.getKnownBlockSizeAttr())
    blockSize = block[0];
  if (auto scratch = fn->getAttrOfType<IntegerAttr>(
          sched::SchedDialect::kScratchBytesAttrName))
    sharedBytes = scratch.getInt();
  if (auto transient =
          fn->getAttrOfType<IntegerAttr>(kTransientSharedBytesAttrName))
    transientBytes = transient.getInt();
}

void ThreadDistributor::saveTransientBytes() {
  fn->setAttr(
      kTransientSharedBytesAttrName,
      IntegerAttr::get(IntegerType::get(fn.getContext(), 64), transientBytes));
}

Value ThreadDistributor::index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value ThreadDistributor::threadId(RewriterBase &rewriter) {
  // One per kernel, at its start, whichever distribution pass made it.
  if (!tid)
    for (auto op : fn.getBody().front().getOps<gpu::ThreadIdOp>())
      if (op.getDimension() == gpu::Dimension::x) {
        tid = op;
        break;
      }
  if (!tid) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&fn.getBody().front());
    tid = gpu::ThreadIdOp::create(rewriter, fn.getLoc(), gpu::Dimension::x);
  }
  return tid;
}

Value ThreadDistributor::sharedBase(OpBuilder &b, Location loc) {
  if (!shared) {
    fn.walk([&](gpu::DynamicSharedMemoryOp op) { shared = op; });
    if (!shared) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&fn.getBody().front());
      auto workgroup = gpu::AddressSpaceAttr::get(fn.getContext(),
                                                  gpu::AddressSpace::Workgroup);
      shared = gpu::DynamicSharedMemoryOp::create(
          b, fn.getLoc(),
          MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                          MemRefLayoutAttrInterface(), workgroup));
    }
  }
  return shared;
}

Value ThreadDistributor::extent(OpBuilder &b, Location loc, const Loops &loops,
                                ArrayRef<unsigned> dims) {
  Value total = index(b, loc, 1);
  for (unsigned d : dims)
    total = arith::MulIOp::create(
        b, loc, total, getValueOrCreateConstantIndexOp(b, loc, loops.sizes[d]));
  return total;
}

void ThreadDistributor::delinearize(OpBuilder &b, Location loc, Value linear,
                                    const Loops &loops, ArrayRef<unsigned> dims,
                                    SmallVector<Value> &ivs) {
  if (dims.size() == 1) {
    ivs[dims.front()] = linear;
    return;
  }
  if (dims.empty())
    return;
  SmallVector<OpFoldResult> basis;
  for (unsigned d : dims)
    basis.push_back(loops.sizes[d]);
  auto op = affine::AffineDelinearizeIndexOp::create(b, loc, linear, basis,
                                                     /*hasOuterBound=*/true);
  for (auto [d, value] : llvm::zip(dims, op.getResults()))
    ivs[d] = value;
}

LogicalResult ThreadDistributor::distribute(
    RewriterBase &rewriter, linalg::LinalgOp op,
    function_ref<LogicalResult(const Loops &)> strategy) {
  if (failed(verifyDistributable(op)))
    return failure();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Loops loops;
  for (Range range : op.createLoopRanges(rewriter, loc))
    loops.sizes.push_back(range.size);
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (iterator == utils::IteratorType::parallel ? loops.parallel
                                               : loops.reduction)
        .push_back(i);
  if (failed(strategy(loops)))
    return failure();
  gpu::BarrierOp::create(rewriter, loc);
  rewriter.eraseOp(op);
  return success();
}

} // namespace vmapc::gpu_threads
