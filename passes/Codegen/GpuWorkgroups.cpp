//===- GpuWorkgroups.cpp - a kernel's workgroup as a CUDA thread block ----===//
//
// `--arr-gpu-workgroups` (Passes.td has the contract): every bufferized
// kernel becomes `gpu.func @vmapc_kernel_NAME` in `gpu.module
// @vmapc_kernels`, one thread block per workgroup, its structured ops spread
// over the block's threads, its scratch in shared memory.
//
// The thread mapping is the plain one of XLA's and IREE's elementwise
// emitters: linearize an op's parallel iterations, innermost fastest, and
// stride them by the block size; reductions stay in one thread, in order.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/BufferPlan.h"
#include "passes/Codegen/ArgReduce.h"
#include "passes/Codegen/BindingAccess.h"
#include "passes/Codegen/FastMath.h"
#include "passes/Codegen/KernelDescriptor.h"
#include "passes/Codegen/ReductionIdentity.h"
#include "passes/Passes.h"
#include "passes/Stages.h"
#include "vmapc/ArtifactFormat.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "llvm/ADT/TypeSwitch.h"

#include <limits>

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUWORKGROUPS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kSharedAlignment = 16;

/// A constant upper bound (inclusive) of index value `v`.
static FailureOr<int64_t> upperBound(OpFoldResult v) {
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
static std::optional<int64_t> loopBound(linalg::LinalgOp op, unsigned loop) {
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
static std::optional<int64_t>
iterationsBound(linalg::LinalgOp op,
                std::optional<utils::IteratorType> kind = std::nullopt) {
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
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
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
static SmallVector<Value> emitPayload(OpBuilder &b, Location loc,
                                      linalg::LinalgOp op, ArrayRef<Value> ivs,
                                      ValueRange outs, ValueRange ins = {}) {
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

static std::optional<Combiner> matchCombiner(linalg::LinalgOp op) {
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
/// matter, since an arg-reduction compares indices on a tie.
static SmallVector<Value> combine(OpBuilder &b, Location loc, const Combiner &c,
                                  ValueRange mine, ValueRange other) {
  if (c.arg) {
    bool isFloat = c.arg->isFloat;
    Value better =
        isFloat
            ? arith::CmpFOp::create(b, loc,
                                    c.arg->isMin ? arith::CmpFPredicate::OLT
                                                 : arith::CmpFPredicate::OGT,
                                    other[0], mine[0])
                  .getResult()
            : arith::CmpIOp::create(b, loc,
                                    c.arg->isMin ? arith::CmpIPredicate::slt
                                                 : arith::CmpIPredicate::sgt,
                                    other[0], mine[0])
                  .getResult();
    Value equal = isFloat
                      ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              other[0], mine[0])
                            .getResult()
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              other[0], mine[0])
                            .getResult();
    Value lower = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        other[1], mine[1]);
    Value take = arith::OrIOp::create(
        b, loc, better, arith::AndIOp::create(b, loc, equal, lower));
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

/// How a contraction (one reduction loop `k`, some input reused across
/// output elements) is computed by one block, the classic shared-memory
/// SGEMM scheme (CUTLASS's threadblock tile, Volkov and Demmel, "Benchmarking
/// GPUs to tune dense linear algebra", SC 2008): the output is covered by
/// tiles of `tileM` x `tileN` elements along loops `m` and `n` (the output's
/// innermost), one at a time; for each, the reduction runs `tileK` steps at
/// a time, every input that varies with `k` and not with both `m` and `n`
/// copied by the whole block into shared memory first; each thread of a
/// `threadsM` x `threadsN` grid accumulates `rowsPerThread` x
/// `colsPerThread` output elements in registers, rows `threadsM` apart and
/// columns `threadsN` apart (adjacent threads, adjacent columns: coalesced
/// stores, conflict-free shared loads).
struct ContractionTiling {
  /// `m` is meaningful only if `hasRows` (else every tile is one row).
  unsigned m = 0, n = 0, k = 0;
  bool hasRows = true;
  int64_t threadsM = 1, threadsN = 1, rowsPerThread = 1, colsPerThread = 1;
  int64_t tileK = 16;
  /// Per input: staged in shared memory, and the shape of its staged tile
  /// (the input's dimensions, each the tile's extent along the loop that
  /// indexes it, the innermost padded by one element against bank
  /// conflicts).
  SmallVector<bool> staged;
  SmallVector<SmallVector<int64_t>> stagedShape;
  int64_t stagedBytes = 0;

  int64_t tileM() const { return threadsM * rowsPerThread; }
  int64_t tileN() const { return threadsN * colsPerThread; }
};

/// Shared memory for one contraction's staged tiles, at most (bytes).
constexpr int64_t kMaxStagedBytes = 48 << 10;

/// The tiling of `op` for a block of `blockSize` threads, if `op` is a
/// contraction that gains from it: output tiles of more than one row (an
/// input reused by the rows), or an input read along `k` with `k` innermost
/// (uncoalesced if each thread walked its own row of it).
static std::optional<ContractionTiling>
chooseContractionTiling(linalg::LinalgOp op, int64_t blockSize,
                        const DataLayout &layout) {
  if (op.getNumReductionLoops() != 1 || op.getNumDpsInits() == 0 ||
      blockSize < 2 * kWarpSize)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!op.getMatchingIndexingMap(&operand).isProjectedPermutation())
      return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  ContractionTiling t;
  for (auto [loop, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::reduction)
      t.k = loop;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  t.n = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  std::optional<int64_t> boundN = loopBound(op, t.n);
  std::optional<int64_t> boundK = loopBound(op, t.k);
  if (!boundN || !boundK || *boundK < 8)
    return std::nullopt;

  auto reads = [&](OpOperand *input, unsigned loop) {
    return op.getMatchingIndexingMap(input).isFunctionOfDim(loop);
  };
  // Rows: the parallel loop other than n with the largest bound that
  // indexes an input read along k but not along n (a matmul's rows of A,
  // each shared by a row of outputs).
  std::optional<int64_t> boundM;
  for (auto [position, iterator] : llvm::enumerate(iterators)) {
    unsigned loop = position; // Lambdas capture no structured binding.
    if (iterator != utils::IteratorType::parallel || loop == t.n)
      continue;
    bool shares = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
      return reads(in, loop) && !reads(in, t.n) && reads(in, t.k);
    });
    std::optional<int64_t> bound = loopBound(op, loop);
    if (shares && bound && (!boundM || *bound > *boundM)) {
      t.m = loop;
      boundM = bound;
    }
  }
  bool kInnermost = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    AffineMap map = op.getMatchingIndexingMap(in);
    return reads(in, t.n) && map.getNumResults() > 0 &&
           map.getResults().back() == getAffineDimExpr(t.k, op.getContext());
  });
  if (!boundM) {
    if (!kInnermost)
      return std::nullopt;
    // No row loop: a single row (a matrix-vector product) whose columns
    // read their input along k.
    boundM = 1;
    t.hasRows = false;
  }
  if (*boundM < 4 && !kInnermost)
    return std::nullopt;

  t.tileK = std::min<int64_t>(t.tileK, *boundK);

  // Inputs staged in shared memory: those read along k that are reused
  // (not indexed by both m and n); the rest is read from global memory.
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(input->get().getType());
    bool readsRows = t.hasRows && reads(input, t.m);
    t.staged.push_back(type && reads(input, t.k) &&
                       op.getMatchingIndexingMap(input).getNumResults() > 0 &&
                       !(readsRows && reads(input, t.n) && *boundM > 1));
  }
  if (!llvm::is_contained(t.staged, true))
    return std::nullopt;
  // The staged tiles' shapes (the input's dimensions, each the tile's
  // extent along the loop that indexes it, the innermost padded) and bytes.
  auto stage = [&](ContractionTiling &c) {
    c.stagedShape.clear();
    c.stagedBytes = 0;
    for (auto [input, staged] : llvm::zip(op.getDpsInputOperands(), c.staged)) {
      SmallVector<int64_t> shape;
      if (staged) {
        for (AffineExpr e : op.getMatchingIndexingMap(input).getResults()) {
          unsigned d = cast<AffineDimExpr>(e).getPosition();
          shape.push_back(d == c.k                ? c.tileK
                          : d == c.n              ? c.tileN()
                          : c.hasRows && d == c.m ? c.tileM()
                                                  : 1);
        }
        shape.back() += 1;
        Type element = getElementTypeOrSelf(input->get().getType());
        int64_t bytes = int64_t(layout.getTypeSize(element).getFixedValue());
        for (int64_t size : shape)
          bytes *= size;
        c.stagedBytes =
            int64_t(llvm::alignTo(c.stagedBytes, kSharedAlignment)) + bytes;
      }
      c.stagedShape.push_back(shape);
    }
  };

  // The thread grid and register tile: the fewest padded output elements
  // times the shared loads per multiply-add (1/rows + 1/columns of the
  // register tile), with at most 16 accumulators per thread and staged
  // tiles within kMaxStagedBytes.
  double best = std::numeric_limits<double>::infinity();
  std::optional<ContractionTiling> chosen;
  for (int64_t threadsN = kWarpSize / 2; threadsN <= blockSize; threadsN *= 2) {
    int64_t threadsM = blockSize / threadsN;
    if (*boundM == 1 && threadsM != 1)
      continue;
    for (int64_t rows : {1, 2, 4})
      for (int64_t cols : {1, 2, 4}) {
        if (*boundM == 1 && rows != 1)
          continue;
        ContractionTiling c = t;
        c.threadsM = threadsM;
        c.threadsN = threadsN;
        c.rowsPerThread = rows;
        c.colsPerThread = cols;
        stage(c);
        if (c.stagedBytes > kMaxStagedBytes)
          continue;
        int64_t padded = llvm::alignTo(*boundM, c.tileM()) *
                         llvm::alignTo(*boundN, c.tileN());
        double cost = double(padded) * (1.0 + 1.0 / rows + 1.0 / cols);
        if (cost < best) {
          best = cost;
          chosen = std::move(c);
        }
      }
  }
  return chosen;
}

/// Spreads structured ops over the threads of one block (Passes.td,
/// arr-gpu-workgroups).
class ThreadDistributor {
public:
  ThreadDistributor(gpu::GPUFuncOp fn, int64_t blockSize, int64_t sharedBytes)
      : fn(fn), blockSize(blockSize), sharedBytes(sharedBytes),
        transientBytes(0) {}

  /// Shared memory the kernel needs: its scratch, then the transient region
  /// that one op at a time uses (the partials block reductions exchange
  /// between warps, the tiles a contraction stages).
  int64_t totalSharedBytes() const { return sharedBytes + transientBytes; }

  LogicalResult distribute(RewriterBase &rewriter, linalg::LinalgOp op);

private:
  /// The loops of `op`: sizes, and which are parallel or reductions.
  struct Loops {
    SmallVector<OpFoldResult> sizes;
    SmallVector<unsigned> parallel, reduction;
  };

  Value threadId(RewriterBase &rewriter);
  Value index(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// The product of `sizes` at `dims`.
  Value extent(OpBuilder &b, Location loc, const Loops &loops,
               ArrayRef<unsigned> dims);
  /// Sets `ivs` at `dims` from the linear index `linear` (innermost
  /// fastest).
  void delinearize(OpBuilder &b, Location loc, Value linear, const Loops &loops,
                   ArrayRef<unsigned> dims, SmallVector<Value> &ivs);
  /// A thread per parallel iteration, the reduction loops in order.
  LogicalResult perThread(RewriterBase &rewriter, linalg::LinalgOp op,
                          const Loops &loops);
  /// A group of `group` threads (a warp, or the block) per parallel
  /// iteration: strided partial results, combined with warp shuffles (and,
  /// for the block, through shared memory), then with the output's value.
  LogicalResult perGroup(RewriterBase &rewriter, linalg::LinalgOp op,
                         const Loops &loops, const Combiner &combiner,
                         int64_t group);
  /// A contraction by output tiles, its inputs staged in shared memory
  /// (ContractionTiling).
  LogicalResult perContractionTile(RewriterBase &rewriter, linalg::LinalgOp op,
                                   const Loops &loops,
                                   const ContractionTiling &tiling);
  /// Butterfly combination over the 32 lanes of a warp: every lane ends
  /// with the combination of all.
  SmallVector<Value> warpCombine(OpBuilder &b, Location loc,
                                 const Combiner &combiner,
                                 SmallVector<Value> partial);
  Value sharedBase(OpBuilder &b, Location loc);

  gpu::GPUFuncOp fn;
  int64_t blockSize;
  int64_t sharedBytes;
  int64_t transientBytes;
  Value tid, shared;
};

Value ThreadDistributor::threadId(RewriterBase &rewriter) {
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

LogicalResult ThreadDistributor::distribute(RewriterBase &rewriter,
                                            linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return op->emitOpError("is not bufferized");
  for (OpOperand &init : op.getDpsInitsMutable())
    for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction &&
          op.getMatchingIndexingMap(&init).isFunctionOfDim(d))
        return op->emitOpError("writes its output along a reduction loop");
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  Loops loops;
  for (Range range : op.createLoopRanges(rewriter, loc))
    loops.sizes.push_back(range.size);
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (iterator == utils::IteratorType::parallel ? loops.parallel
                                               : loops.reduction)
        .push_back(i);

  // Few outputs and long reductions: a warp, or the whole block, per
  // output element, when the partial results can be combined.
  // Contractions: output tiles, their inputs staged in shared memory.
  std::optional<Combiner> combiner;
  if (!loops.reduction.empty())
    combiner = matchCombiner(op);
  std::optional<int64_t> outputs =
      iterationsBound(op, utils::IteratorType::parallel);
  int64_t warps = blockSize / kWarpSize;
  LogicalResult result = failure();
  std::optional<ContractionTiling> tiling;
  if (combiner && outputs && *outputs < warps)
    result = perGroup(rewriter, op, loops, *combiner, blockSize);
  else if (combiner && outputs && *outputs < blockSize)
    result = perGroup(rewriter, op, loops, *combiner, kWarpSize);
  else if ((tiling = chooseContractionTiling(op, blockSize,
                                             DataLayout::closest(fn))))
    result = perContractionTile(rewriter, op, loops, *tiling);
  else
    result = perThread(rewriter, op, loops);
  if (failed(result))
    return failure();
  gpu::BarrierOp::create(rewriter, loc);
  rewriter.eraseOp(op);
  return success();
}

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
  auto loop = scf::ForOp::create(rewriter, loc, threadId(rewriter), total,
                                 index(rewriter, loc, unroll * blockSize));
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

LogicalResult
ThreadDistributor::perContractionTile(RewriterBase &rewriter,
                                      linalg::LinalgOp op, const Loops &loops,
                                      const ContractionTiling &t) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto c = [&](int64_t v) { return index(rewriter, loc, v); };
  auto size = [&](unsigned d) {
    return getValueOrCreateConstantIndexOp(rewriter, loc, loops.sizes[d]);
  };
  auto minOf = [&](OpBuilder &b, Value x, Value y) -> Value {
    return arith::MinUIOp::create(b, loc, x, y);
  };
  unsigned numLoops = loops.sizes.size();
  unsigned numInits = op.getNumDpsInits();
  Value one = c(1);

  // The staged tiles, after the kernel's scratch, where block reductions
  // exchange their partials too (one op at a time, barriers between).
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  DataLayout layout = DataLayout::closest(fn);
  SmallVector<Value> tiles(op.getNumDpsInputs());
  int64_t offset = llvm::alignTo(sharedBytes, kSharedAlignment);
  for (auto [i, input] : llvm::enumerate(op.getDpsInputOperands())) {
    if (!t.staged[i])
      continue;
    Type elementType = getElementTypeOrSelf(input->get().getType());
    offset = llvm::alignTo(offset, kSharedAlignment);
    tiles[i] = memref::ViewOp::create(
        rewriter, loc,
        MemRefType::get(t.stagedShape[i], elementType,
                        MemRefLayoutAttrInterface(), workgroup),
        sharedBase(rewriter, loc), c(offset), ValueRange());
    int64_t bytes = int64_t(layout.getTypeSize(elementType).getFixedValue());
    for (int64_t s : t.stagedShape[i])
      bytes *= s;
    offset += bytes;
  }
  transientBytes = std::max(transientBytes, offset - sharedBytes);

  // Tiles of the output, one after the other: the loops other than m and
  // n, then m's tiles, then n's.
  SmallVector<unsigned> outer;
  for (unsigned d : loops.parallel)
    if (d != t.n && !(t.hasRows && d == t.m))
      outer.push_back(d);
  Value sizeM = t.hasRows ? size(t.m) : one;
  Value sizeN = size(t.n), sizeK = size(t.k);
  Value tilesM = arith::CeilDivUIOp::create(rewriter, loc, sizeM, c(t.tileM()));
  Value tilesN = arith::CeilDivUIOp::create(rewriter, loc, sizeN, c(t.tileN()));
  SmallVector<OpFoldResult> basis;
  for (unsigned d : outer)
    basis.push_back(loops.sizes[d]);
  basis.push_back(tilesM);
  basis.push_back(tilesN);
  Value count = arith::MulIOp::create(
      rewriter, loc, extent(rewriter, loc, loops, outer),
      arith::MulIOp::create(rewriter, loc, tilesM, tilesN));
  Value thread = threadId(rewriter);
  Value threadN = arith::RemUIOp::create(rewriter, loc, thread, c(t.threadsN));
  Value threadM = arith::DivUIOp::create(rewriter, loc, thread, c(t.threadsN));
  Value lastM = arith::SubIOp::create(rewriter, loc, sizeM, one);
  Value lastN = arith::SubIOp::create(rewriter, loc, sizeN, one);
  Value lastK = arith::SubIOp::create(rewriter, loc, sizeK, one);

  auto tileLoop = scf::ForOp::create(rewriter, loc, c(0), count, one);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(tileLoop.getBody());
  auto position = affine::AffineDelinearizeIndexOp::create(
      rewriter, loc, tileLoop.getInductionVar(), basis,
      /*hasOuterBound=*/true);
  SmallVector<Value> base(numLoops);
  for (auto [d, value] : llvm::zip(outer, position.getResults()))
    base[d] = value;
  Value m0 = arith::MulIOp::create(
      rewriter, loc, position.getResult(outer.size()), c(t.tileM()));
  Value n0 = arith::MulIOp::create(
      rewriter, loc, position.getResult(outer.size() + 1), c(t.tileN()));

  // This thread's rows and columns: local offsets in the tile, clamped to
  // the output (a clamped row or column is computed and not stored).
  struct Line {
    Value local, global, inside;
  };
  auto lines = [&](Value first, Value threadOffset, int64_t threads,
                   int64_t perThread, Value last) {
    SmallVector<Line> result;
    for (int64_t i = 0; i < perThread; ++i) {
      Value local =
          arith::AddIOp::create(rewriter, loc, threadOffset, c(i * threads));
      Value global = arith::AddIOp::create(rewriter, loc, first, local);
      Value inside = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ule, global, last);
      Value clamped = minOf(rewriter, global, last);
      result.push_back({arith::SubIOp::create(rewriter, loc, clamped, first),
                        clamped, inside});
    }
    return result;
  };
  SmallVector<Line> rows =
      lines(m0, threadM, t.threadsM, t.rowsPerThread, lastM);
  SmallVector<Line> cols =
      lines(n0, threadN, t.threadsN, t.colsPerThread, lastN);
  auto ivsAt = [&](const Line &row, const Line &col, Value k) {
    SmallVector<Value> ivs(base);
    if (t.hasRows)
      ivs[t.m] = row.global;
    ivs[t.n] = col.global;
    ivs[t.k] = k;
    return ivs;
  };

  // Accumulators: the outputs' values, (row, column, init) innermost last.
  SmallVector<Value> initial;
  for (const Line &row : rows)
    for (const Line &col : cols)
      for (OpOperand &init : op.getDpsInitsMutable())
        initial.push_back(memref::LoadOp::create(
            rewriter, loc, init.get(),
            applyMap(rewriter, loc, op.getMatchingIndexingMap(&init),
                     ivsAt(row, col, c(0)))));

  auto kLoop = scf::ForOp::create(
      rewriter, loc, c(0), sizeK, c(t.tileK), initial,
      [&](OpBuilder &b, Location loc, Value k0, ValueRange accumulators) {
        // The block copies each staged input's tile (clamped to the
        // input), adjacent threads adjacent elements.
        for (auto [position, operand] :
             llvm::enumerate(op.getDpsInputOperands())) {
          // Lambdas capture no structured binding.
          size_t i = position;
          OpOperand *input = operand;
          if (!t.staged[i])
            continue;
          SmallVector<int64_t> shape(t.stagedShape[i]);
          shape.back() -= 1; // The padding is not copied.
          int64_t elements = 1;
          for (int64_t s : shape)
            elements *= s;
          AffineMap map = op.getMatchingIndexingMap(input);
          scf::ForOp::create(
              b, loc, thread, index(b, loc, elements), index(b, loc, blockSize),
              ValueRange(),
              [&](OpBuilder &b, Location loc, Value e, ValueRange) {
                SmallVector<OpFoldResult> tileBasis;
                for (int64_t s : shape)
                  tileBasis.push_back(b.getIndexAttr(s));
                auto local = affine::AffineDelinearizeIndexOp::create(
                    b, loc, e, tileBasis, /*hasOuterBound=*/true);
                SmallVector<Value> at;
                for (auto [r, expr] : llvm::enumerate(map.getResults())) {
                  unsigned d = cast<AffineDimExpr>(expr).getPosition();
                  Value l = local.getResult(r);
                  if (d == t.k)
                    at.push_back(
                        minOf(b, arith::AddIOp::create(b, loc, k0, l), lastK));
                  else if (d == t.n)
                    at.push_back(
                        minOf(b, arith::AddIOp::create(b, loc, n0, l), lastN));
                  else if (t.hasRows && d == t.m)
                    at.push_back(
                        minOf(b, arith::AddIOp::create(b, loc, m0, l), lastM));
                  else
                    at.push_back(base[d]);
                }
                Value value = memref::LoadOp::create(b, loc, input->get(), at);
                memref::StoreOp::create(b, loc, value, tiles[i],
                                        local.getResults());
                scf::YieldOp::create(b, loc);
              });
        }
        gpu::BarrierOp::create(b, loc);

        // tileK steps (fewer in the last chunk), every thread its
        // register tile.
        Value steps = minOf(b, index(b, loc, t.tileK),
                            arith::SubIOp::create(b, loc, sizeK, k0));
        auto inner = scf::ForOp::create(
            b, loc, index(b, loc, 0), steps, index(b, loc, 1), accumulators,
            [&](OpBuilder &b, Location loc, Value kk, ValueRange accs) {
              Value k = arith::AddIOp::create(b, loc, k0, kk);
              SmallVector<Value> next;
              unsigned a = 0;
              for (const Line &row : rows)
                for (const Line &col : cols) {
                  SmallVector<Value> ivs = ivsAt(row, col, k);
                  SmallVector<Value> ins;
                  for (auto [i, input] :
                       llvm::enumerate(op.getDpsInputOperands())) {
                    AffineMap map = op.getMatchingIndexingMap(input);
                    Value value = input->get();
                    if (t.staged[i]) {
                      SmallVector<Value> at;
                      for (AffineExpr expr : map.getResults()) {
                        unsigned d = cast<AffineDimExpr>(expr).getPosition();
                        at.push_back(d == t.k   ? kk
                                     : d == t.n ? col.local
                                     : t.hasRows && d == t.m
                                         ? row.local
                                         : index(b, loc, 0));
                      }
                      value = memref::LoadOp::create(b, loc, tiles[i], at);
                    } else if (isa<MemRefType>(value.getType())) {
                      value = memref::LoadOp::create(
                          b, loc, value, applyMap(b, loc, map, ivs));
                    }
                    ins.push_back(value);
                  }
                  SmallVector<Value> results = emitPayload(
                      b, loc, op, ivs, accs.slice(a, numInits), ins);
                  next.append(results);
                  a += numInits;
                }
              scf::YieldOp::create(b, loc, next);
            });
        // The tiles are refilled by the next chunk.
        gpu::BarrierOp::create(b, loc);
        scf::YieldOp::create(b, loc, inner.getResults());
      });

  // Stores of the elements inside the output.
  unsigned a = 0;
  for (const Line &row : rows)
    for (const Line &col : cols) {
      Value inside =
          arith::AndIOp::create(rewriter, loc, row.inside, col.inside);
      auto store = scf::IfOp::create(rewriter, loc, inside);
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(store.thenBlock());
      SmallVector<Value> ivs = ivsAt(row, col, c(0));
      for (OpOperand &init : op.getDpsInitsMutable())
        memref::StoreOp::create(
            rewriter, loc, kLoop.getResult(a++), init.get(),
            applyMap(rewriter, loc, op.getMatchingIndexingMap(&init), ivs));
    }
  return success();
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
  auto elements = scf::ForOp::create(
      rewriter, loc, start, reductionExtent, index(rewriter, loc, group),
      identities(rewriter, loc, op, combiner),
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

struct ArrGpuWorkgroupsPass
    : vmapc::impl::ArrGpuWorkgroupsBase<ArrGpuWorkgroupsPass> {
  using ArrGpuWorkgroupsBase::ArrGpuWorkgroupsBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    if (threadsPerBlock < kWarpSize || threadsPerBlock > 1024 ||
        threadsPerBlock % kWarpSize != 0) {
      module.emitError("threads-per-block must be a multiple of 32 in "
                       "[32, 1024], not ")
          << int64_t(threadsPerBlock);
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (vmapc::sched::isKernel(fn) && !fn.isExternal())
        kernels.push_back(fn);
    if (kernels.empty())
      return;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), "vmapc_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    // The entries' descriptors, read by the runtime from the GPU module.
    b.setInsertionPointToStart(gpuModule.getBody());
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (global.getSymName().starts_with("vmapc_entry_"))
        b.clone(*global);
    for (func::FuncOp kernel : kernels) {
      if (failed(convert(kernel, gpuModule)))
        return signalPassFailure();
      kernel.erase();
    }
  }

  /// Moves `kernel` into `gpuModule` as a gpu.func and lowers its
  /// workgroup loop, scratch and structured ops.
  LogicalResult convert(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    // Bindings first, then scalars (index values, passed as i64).
    SmallVector<unsigned> order;
    SmallVector<int64_t> bindingBytes;
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
      if (auto memref = dyn_cast<MemRefType>(type)) {
        std::optional<uint64_t> bytes = vmapc::sched::bindingBytes(memref);
        if (!bytes)
          return kernel.emitOpError("has a binding of dynamic shape");
        bindingBytes.push_back(int64_t(*bytes));
        order.push_back(i);
      }
    unsigned numBindings = order.size();
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      if (isa<MemRefType>(type))
        continue;
      if (!type.isIndex())
        return kernel.emitOpError("has an argument of type ")
               << type << ", neither a binding nor an index scalar";
      order.push_back(i);
    }
    unsigned numScalars = order.size() - numBindings;
    // Scalars are i64 parameters whatever the index bitwidth of the
    // lowering (the ABI's `.param .u64`), cast to index inside.
    SmallVector<Type> types;
    for (unsigned i : order) {
      Type type = kernel.getArgumentTypes()[i];
      types.push_back(type.isIndex() ? IntegerType::get(ctx, 64) : type);
    }

    OpBuilder b(ctx);
    b.setInsertionPointToEnd(gpuModule.getBody());
    std::string name = ("vmapc_kernel_" + kernel.getSymName()).str();
    auto fn =
        gpu::GPUFuncOp::create(b, loc, name, FunctionType::get(ctx, types, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    for (StringRef attr : {vmapc::sched::SchedDialect::kWorkgroupCountAttrName})
      if (Attribute value = kernel->getAttr(attr))
        fn->setAttr(attr, value);
    fn->setAttr(vmapc::sched::SchedDialect::kBindingBytesAttrName,
                DenseI64ArrayAttr::get(ctx, bindingBytes));
    Block &entry = fn.getBody().front();
    Block &old = kernel.getBody().front();
    IRMapping mapping;
    b.setInsertionPointToStart(&entry);
    for (auto [position, i] : llvm::enumerate(order)) {
      Value arg = entry.getArgument(position);
      if (old.getArgument(i).getType().isIndex())
        arg = arith::IndexCastOp::create(b, loc, b.getIndexType(), arg);
      mapping.map(old.getArgument(i), arg);
    }
    for (Operation &op : old.without_terminator())
      b.clone(op, mapping);
    gpu::ReturnOp::create(b, loc);
    vmapc::setBindingAccess(fn);
    if (failed(
            cloneGlobals(fn, kernel->getParentOfType<ModuleOp>(), gpuModule)))
      return failure();

    if (failed(lowerGrid(fn)) || failed(scratchToShared(fn)))
      return failure();
    int64_t blockSize = chooseBlockSize(fn);
    fn.setKnownBlockSizeAttr(
        b.getDenseI32ArrayAttr({int32_t(blockSize), 1, 1}));
    if (failed(distribute(fn, blockSize)))
      return failure();
    vmapc::allowFmaContraction(fn, vmapc::ContractionScope::AllFastMathOps);
    OpBuilder end = OpBuilder::atBlockEnd(gpuModule.getBody());
    if (failed(vmapc::createKernelDescriptor(end, fn, name, numScalars,
                                             /*withScratch=*/false)))
      return failure();
    return success();
  }

  /// Copies into `gpuModule` every `memref.global` of `host` that `fn`
  /// reads (a literal array of the program), once each under its own name,
  /// so that it is lowered to a global of the device module. Only constants:
  /// a kernel has no host state to share.
  LogicalResult cloneGlobals(gpu::GPUFuncOp fn, ModuleOp host,
                             gpu::GPUModuleOp gpuModule) {
    // Before the kernels, in the order of first use.
    OpBuilder b(gpuModule.getContext());
    b.setInsertionPoint(*gpuModule.getOps<gpu::GPUFuncOp>().begin());
    WalkResult result = fn.walk([&](memref::GetGlobalOp get) {
      StringAttr name = get.getNameAttr().getAttr();
      if (gpuModule.lookupSymbol(name))
        return WalkResult::advance();
      auto global = host.lookupSymbol<memref::GlobalOp>(name);
      if (!global) {
        get.emitOpError("reads ") << get.getNameAttr()
                                  << ", which is not a memref.global of the "
                                     "module";
        return WalkResult::interrupt();
      }
      if (!global.getConstant() || !global.getInitialValue()) {
        get.emitOpError("reads ")
            << get.getNameAttr()
            << ", which is not a constant with an initial value";
        return WalkResult::interrupt();
      }
      b.clone(*global);
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// The `scf.forall` over the grid becomes the body of one block.
  LogicalResult lowerGrid(gpu::GPUFuncOp fn) {
    Block &body = fn.getBody().front();
    SmallVector<scf::ForallOp> foralls(body.getOps<scf::ForallOp>());
    if (foralls.size() > 1)
      return fn.emitOpError("has more than one workgroup loop");
    if (foralls.empty())
      return success();
    scf::ForallOp forall = foralls.front();
    if (forall.getRank() > 3 || !forall.getOutputs().empty())
      return forall.emitOpError("is not a bufferized grid of at most 3 "
                                "dimensions");
    IRRewriter rewriter(fn.getContext());
    rewriter.setInsertionPoint(forall);
    Location loc = forall.getLoc();
    SmallVector<Value> ivs;
    gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                             gpu::Dimension::z};
    for (auto [i, lb, step] :
         llvm::enumerate(forall.getMixedLowerBound(), forall.getMixedStep())) {
      Value id = gpu::BlockIdOp::create(rewriter, loc, dims[i]);
      AffineExpr d0, s0, s1;
      bindDims(fn.getContext(), d0);
      bindSymbols(fn.getContext(), s0, s1);
      ivs.push_back(affine::makeComposedAffineApply(
          rewriter, loc, AffineMap::get(1, 2, s0 + d0 * s1),
          {OpFoldResult(id), lb, step}));
    }
    Block *loopBody = forall.getBody();
    rewriter.eraseOp(loopBody->getTerminator());
    rewriter.inlineBlockBefore(loopBody, forall, ivs);
    rewriter.eraseOp(forall);
    return success();
  }

  /// Per-workgroup scratch (allocations left in the kernel) becomes views of
  /// the block's dynamic shared memory, each sized for the bound of its
  /// dynamic sizes (the rows of a partial tile). Offsets are packed like the
  /// arena's (BufferPlan.h: live intervals over the body's top-level ops,
  /// greedy by size with best fit), so that scratch no longer read shares
  /// memory with later scratch; the ops between run separated by barriers.
  LogicalResult scratchToShared(gpu::GPUFuncOp fn) {
    MLIRContext *ctx = fn.getContext();
    DataLayout layout = DataLayout::closest(fn);
    SmallVector<memref::AllocOp> allocs;
    fn.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    Block &body = fn.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (Operation &op : body)
      position[&op] = position.size();
    auto pointOf = [&](Operation *op) {
      return position.lookup(body.findAncestorOpInBlock(*op));
    };
    SmallVector<vmapc::BufferRequest> requests;
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.getLayout().isIdentity())
        return alloc.emitOpError("allocates scratch with a non-identity "
                                 "layout");
      int64_t elements = 1;
      auto sizes = alloc.getDynamicSizes().begin();
      for (int64_t dim : type.getShape()) {
        if (ShapedType::isDynamic(dim)) {
          FailureOr<int64_t> bound = upperBound(*sizes++);
          if (failed(bound))
            return alloc.emitOpError("allocates per-workgroup scratch of a "
                                     "size with no known bound");
          dim = *bound;
        }
        elements *= dim;
      }
      vmapc::BufferRequest request;
      request.bytes =
          elements *
          int64_t(layout.getTypeSize(type.getElementType()).getFixedValue());
      // Live from the allocation to the last access through any view.
      request.live = {pointOf(alloc), pointOf(alloc)};
      SmallVector<Value> aliases{alloc.getResult()};
      while (!aliases.empty()) {
        Value alias = aliases.pop_back_val();
        for (Operation *user : alias.getUsers()) {
          if (isa<memref::DeallocOp>(user))
            continue;
          if (auto view = dyn_cast<ViewLikeOpInterface>(user);
              view && view.getViewSource() == alias)
            aliases.append(user->result_begin(), user->result_end());
          int64_t point = pointOf(user);
          request.live.start = std::min(request.live.start, point);
          request.live.end = std::max(request.live.end, point);
        }
      }
      requests.push_back(request);
    }
    std::optional<vmapc::OffsetAssignment> assignment =
        vmapc::assignOffsetsGreedyBySize(requests, kSharedAlignment);
    if (!assignment)
      return fn.emitOpError("has per-workgroup scratch too large to place");

    OpBuilder b = OpBuilder::atBlockBegin(&body);
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value shared;
    for (auto [alloc, offset] : llvm::zip(allocs, assignment->offsets)) {
      MemRefType type = alloc.getType();
      if (!shared)
        shared = gpu::DynamicSharedMemoryOp::create(
            b, fn.getLoc(),
            MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                            MemRefLayoutAttrInterface(), workgroup));
      OpBuilder at(alloc);
      Value offsetValue =
          arith::ConstantIndexOp::create(at, alloc.getLoc(), offset);
      auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
      Value view =
          memref::ViewOp::create(at, alloc.getLoc(), sharedType, shared,
                                 offsetValue, alloc.getDynamicSizes());
      // Users keep the default memory space (generic addressing; NVPTX
      // infers the shared one where it can).
      Value generic =
          memref::MemorySpaceCastOp::create(at, alloc.getLoc(), type, view);
      alloc.replaceAllUsesWith(generic);
      alloc.erase();
    }
    fn.walk([](memref::DeallocOp dealloc) { dealloc.erase(); });
    fn->setAttr(vmapc::sched::SchedDialect::kScratchBytesAttrName,
                b.getI64IntegerAttr(assignment->arenaBytes));
    return success();
  }

  /// `threadsPerBlock`, or fewer when no op has that many iterations
  /// (rounded up to a warp).
  int64_t chooseBlockSize(gpu::GPUFuncOp fn) {
    int64_t most = 0;
    bool unbounded = false;
    fn.walk([&](linalg::LinalgOp op) {
      if (std::optional<int64_t> n = iterationsBound(op))
        most = std::max(most, *n);
      else
        unbounded = true;
    });
    if (unbounded || most >= threadsPerBlock)
      return threadsPerBlock;
    return std::max<int64_t>(kWarpSize, llvm::alignTo(most, kWarpSize));
  }

  LogicalResult distribute(gpu::GPUFuncOp fn, int64_t blockSize) {
    // Copies that copy a buffer onto itself (left by bufferization of
    // in-place tiles) do nothing.
    fn.walk([](memref::CopyOp copy) {
      if (copy.getSource() == copy.getTarget())
        copy.erase();
    });
    WalkResult copies = fn.walk([](memref::CopyOp copy) {
      copy.emitOpError("is left in a GPU kernel (arr-copies-to-linalg runs "
                       "before arr-gpu-workgroups)");
      return WalkResult::interrupt();
    });
    if (copies.wasInterrupted())
      return failure();
    SmallVector<linalg::LinalgOp> ops;
    fn.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    auto scratch = fn->getAttrOfType<IntegerAttr>(
        vmapc::sched::SchedDialect::kScratchBytesAttrName);
    ThreadDistributor threads(fn, blockSize, scratch ? scratch.getInt() : 0);
    IRRewriter rewriter(fn.getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(threads.distribute(rewriter, op)))
        return failure();
    if (threads.totalSharedBytes() > maxSharedBytes)
      return fn.emitOpError()
             << "needs " << threads.totalSharedBytes()
             << " bytes of shared memory per block, more than the "
             << int64_t(maxSharedBytes) << " a block may have";
    fn->setAttr(vmapc::sched::SchedDialect::kScratchBytesAttrName,
                rewriter.getI64IntegerAttr(threads.totalSharedBytes()));
    return success();
  }
};
} // namespace
