//===- GpuContractionTiles.cpp - --arr-gpu-contraction-tiles --------------===//
//
// A contraction computed by output tiles, its reused inputs staged in
// shared memory (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/GpuThreads.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUCONTRACTIONTILES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace vmapc::gpu_threads {

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
    Value byteShift = c(offset);
    Value base = sharedBase(rewriter, loc);
    tiles[i] = memref::ViewOp::create(
        rewriter, loc,
        MemRefType::get(t.stagedShape[i], elementType,
                        MemRefLayoutAttrInterface(), workgroup),
        base, byteShift, ValueRange());
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
  Value tilesPerItem = arith::MulIOp::create(rewriter, loc, tilesM, tilesN);
  Value count = arith::MulIOp::create(
      rewriter, loc, extent(rewriter, loc, loops, outer), tilesPerItem);
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

  Value kStep = c(t.tileK);
  Value kBegin = c(0);
  auto kLoop = scf::ForOp::create(
      rewriter, loc, kBegin, sizeK, kStep, initial,
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
          Value copyStep = index(b, loc, blockSize);
          Value copyEnd = index(b, loc, elements);
          scf::ForOp::create(
              b, loc, thread, copyEnd, copyStep, ValueRange(),
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
        Value left = arith::SubIOp::create(b, loc, sizeK, k0);
        Value steps = minOf(b, index(b, loc, t.tileK), left);
        Value innerStep = index(b, loc, 1);
        Value innerBegin = index(b, loc, 0);
        auto inner = scf::ForOp::create(
            b, loc, innerBegin, steps, innerStep, accumulators,
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

} // namespace vmapc::gpu_threads

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuContractionTilesPass
    : vmapc::impl::ArrGpuContractionTilesBase<ArrGpuContractionTilesPass> {
  void runOnOperation() override {
    auto choose = [](ThreadDistributor &threads,
                     linalg::LinalgOp op) -> Strategy {
      std::optional<ContractionTiling> tiling = chooseContractionTiling(
          op, threads.getBlockSize(), DataLayout::closest(op));
      if (!tiling)
        return nullptr;
      return [&threads, op,
              tiling = *tiling](RewriterBase &rewriter,
                                const ThreadDistributor::Loops &loops) {
        return threads.perContractionTile(rewriter, op, loops, tiling);
      };
    };
    if (failed(distributeOps(getOperation(), getArgument(), choose)))
      signalPassFailure();
  }
};
} // namespace
