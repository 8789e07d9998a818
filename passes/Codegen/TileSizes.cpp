//===- TileSizes.cpp - tile sizes per op kind and target ------------------===//

#include "passes/Codegen/TileSizes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

using namespace mlir;
using namespace vmapc;

/// Loop iterations of an op (its static iteration space), saturating.
static int64_t iterations(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return 1;
  int64_t count = 1;
  for (int64_t range : linalgOp.getStaticLoopRanges())
    if (range > 0)
      count = std::min<int64_t>(count * range, int64_t(1) << 50);
  return count;
}

int64_t vmapc::defaultWorkgroupScratch(StringRef target) {
  // A CPU workgroup keeps its fused intermediates on a worker's stack, in
  // L2. A CUDA block keeps them in shared memory: 48 KiB lets 4 blocks
  // share an SM's 227 KiB (sm_90) and is what a kernel gets without opting
  // in to more.
  return target == "cuda" ? kGpuWorkgroupScratch : 256 << 10;
}

WorkgroupTiling vmapc::chooseWorkgroupTiling(linalg::LinalgOp root,
                                             ArrayRef<Operation *> producers,
                                             ArrayRef<int64_t> distributable,
                                             std::optional<int64_t> batchLoop,
                                             StringRef target,
                                             int64_t maxScratch) {
  WorkgroupTiling tiling;
  if (distributable.empty())
    return tiling;
  // The loop spread over workgroups: the batch loop when there is one (the
  // chunk's examples are independent), else the outermost distributable
  // loop.
  int64_t loop = distributable.front();
  if (batchLoop && llvm::is_contained(distributable, *batchLoop))
    loop = *batchLoop;
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  int64_t extent = ranges[loop];
  // A CPU workgroup is a task for one thread: enough work (~128K loop
  // iterations, tens of microseconds) to make handing it to a thread
  // negligible, and a power of two rows; when the kernel contracts, at least
  // a slab of kContractionSlabRows examples over the batch (at least the
  // tallest register tile, 8 rows, over a fixed grid).
  // A CUDA workgroup is a block.
  int64_t minWork = target == "cuda" ? 256 : 131072;
  // The work of one step of the loop: every op of the dispatch, spread
  // evenly over the loop's extent.
  int64_t total = iterations(root);
  for (Operation *op : producers)
    total = std::min<int64_t>(total + iterations(op), int64_t(1) << 50);
  int64_t work = std::max<int64_t>(total / std::max<int64_t>(extent, 1), 1);
  // A CPU workgroup grows until it has that work or takes the whole loop: a
  // dispatch too small to share is one workgroup, which the calling thread
  // runs with no hand-off to the pool. (The histogram's loop step, 4
  // workgroups of about 100 ns each when a workgroup stopped at 64 rows,
  // took 2-3.5x longer on two threads than on one: each step handed its
  // workgroups and their rows of the carry from core to core.) A CUDA block
  // takes at most 64 steps.
  int64_t maxTile = target == "cuda" || extent <= 0 ? 64 : extent;
  int64_t tile = 1;
  while (tile < maxTile && tile * work < minWork)
    tile *= 2;
  bool contracts =
      reducesAlongOutput(root) || llvm::any_of(producers, [](Operation *op) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        return linalgOp && reducesAlongOutput(linalgOp);
      });
  // Over the batch, a slab of kContractionSlabRows examples (the weights'
  // column panels serve them all); over a fixed grid, enough workgroups
  // for the threads.
  if (target != "cuda" && contracts)
    tile = std::max<int64_t>(
        tile, batchLoop && loop == *batchLoop ? kContractionSlabRows : 8);
  // A CUDA block that reduces takes up to 64 examples, so that what they
  // share (a contraction's weights, the kNN's references) is read once per
  // block, through shared memory.
  auto reduces = [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && linalgOp.getNumReductionLoops() > 0;
  };
  if (target == "cuda" && (reduces(root) || llvm::any_of(producers, reduces)))
    tile = 64;
  // The fused producers' results live per workgroup (on a CPU worker's
  // stack, in a block's shared memory): keep a workgroup's share of them
  // within `maxScratch`, so that a kernel with large per-example
  // intermediates (attention's scores) runs one example per workgroup.
  if (maxScratch <= 0) {
    maxScratch = defaultWorkgroupScratch(target);
    // A slab of examples that multiplies a shared operand (a 2-D matmul
    // over the batch: a per-example matrix-vector product, batched, against
    // weights) reads each panel of it once for all its rows: such a slab
    // may take 4x the scratch (1 MiB of a 2 MiB L2) to reach
    // kContractionSlabRows rows.
    auto multipliesShared = [](Operation *op) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      return isa<linalg::MatmulOp>(op) || (linalgOp && readsPanels(linalgOp));
    };
    bool sharedOperand = llvm::any_of(producers, multipliesShared) ||
                         multipliesShared(root.getOperation());
    if (target != "cuda" && contracts && sharedOperand && batchLoop &&
        loop == *batchLoop)
      maxScratch *= 4;
  }
  if (extent > 0) {
    int64_t bytes = 0;
    for (Operation *op : producers) {
      // A fill's result is the buffer its consumer writes (its init).
      if (isa<linalg::FillOp>(op))
        continue;
      for (Type type : op->getResultTypes())
        if (auto shaped = dyn_cast<ShapedType>(type);
            shaped && shaped.hasStaticShape())
          bytes += shaped.getNumElements() *
                   std::max<int64_t>(shaped.getElementTypeBitWidth() / 8, 1);
    }
    int64_t perExample = bytes / extent;
    while (tile > 1 && tile * perExample > maxScratch)
      tile /= 2;
  }
  if (extent > 0)
    tile = std::min(tile, extent);
  tiling.loops.push_back(loop);
  tiling.tileSizes.push_back(tile);
  return tiling;
}

std::optional<VectorIsa> VectorIsa::named(StringRef name) {
  for (const VectorIsa &isa : all())
    if (isa.name == name)
      return isa;
  return std::nullopt;
}

SmallVector<VectorIsa, 3> VectorIsa::all() {
  // SSE2: 16 xmm = 4x2 accumulators + A broadcast + B row (6x2 for a
  //   multiply-accumulate: 12 + 1 + 2).
  // AVX2: 16 ymm = 4x2 accumulators (4 x 16 lanes) + ... (6x2).
  // AVX-512: 32 zmm = 8x2 accumulators (8 x 32 lanes) + ... (14x2: 28 + 1 +
  //   2).
  // A body with more than a multiply-add (the kNN's (q - r)^2) keeps the
  // smaller tile: its temporaries would spill.
  return {VectorIsa{"x86-64", 4, 4, 8, 6, /*fusedMultiplyAdd=*/false},
          VectorIsa{"x86-64-v3", 8, 4, 16, 6, /*fusedMultiplyAdd=*/true},
          VectorIsa{"x86-64-v4", 16, 8, 32, 14, /*fusedMultiplyAdd=*/true}};
}

/// The loop `p` of a panel's column index `p mod kPanelWidth`, if `e` is one.
static std::optional<unsigned> panelColumnLoop(AffineExpr e) {
  auto mod = dyn_cast<AffineBinaryOpExpr>(e);
  if (!mod || mod.getKind() != AffineExprKind::Mod)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(mod.getLHS());
  auto width = dyn_cast<AffineConstantExpr>(mod.getRHS());
  if (!dim || !width || width.getValue() != kPanelWidth)
    return std::nullopt;
  return dim.getPosition();
}

/// The loop whose dimension is last in `map`, if it is a plain loop (or a
/// panel's column, contiguous too).
static std::optional<unsigned> innermostLoop(AffineMap map) {
  if (map.getNumResults() == 0)
    return std::nullopt;
  if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
    return dim.getPosition();
  return panelColumnLoop(map.getResults().back());
}

/// Whether `op`'s body is `out + a * b` (a matmul's, in floating point):
/// upstream's contraction-body matcher with a multiply and an add.
static bool isMultiplyAccumulate(linalg::LinalgOp op) {
  return linalg::detail::isContractionBody(
      *op.getBlock(), [](Operation *elementwise, Operation *reduce) {
        return isa<arith::MulFOp>(elementwise) && isa<arith::AddFOp>(reduce);
      });
}

bool vmapc::readsPanels(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    return map.getNumResults() > 0 &&
           panelColumnLoop(map.getResults().back()).has_value();
  });
}

bool vmapc::resolvePanelIndices(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !readsPanels(op))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (AffineMap &map : maps) {
    if (map.getNumResults() == 0)
      continue;
    std::optional<unsigned> p = panelColumnLoop(map.getResults().back());
    // The tile spans one panel from its start (see kPanelWidth).
    if (!p || ShapedType::isDynamic(ranges[*p]) ||
        kPanelWidth % ranges[*p] != 0)
      continue;
    AffineExpr column = getAffineDimExpr(*p, ctx);
    SmallVector<AffineExpr> results;
    for (AffineExpr e : map.getResults()) {
      if (e == column.floorDiv(kPanelWidth))
        e = getAffineConstantExpr(0, ctx);
      else if (e == column % kPanelWidth)
        e = column;
      results.push_back(e);
    }
    map = AffineMap::get(map.getNumDims(), 0, results, ctx);
    changed = true;
  }
  if (changed)
    generic.setIndexingMapsAttr(Builder(ctx).getAffineMapArrayAttr(maps));
  return changed;
}

/// Whether an operand indexed by `map` reads along loop `loop` (its index
/// appears in the operand's indices).
static bool readsAlong(AffineMap map, unsigned loop) {
  return llvm::any_of(map.getResults(),
                      [&](AffineExpr e) { return e.isFunctionOfDim(loop); });
}

/// The output's innermost loop, if it is parallel.
static std::optional<unsigned> outputInnermostLoop(linalg::LinalgOp op) {
  if (op.getNumDpsInits() == 0)
    return std::nullopt;
  std::optional<unsigned> p =
      innermostLoop(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  if (p && op.getIteratorTypesArray()[*p] != utils::IteratorType::parallel)
    return std::nullopt;
  return p;
}

SmallVector<unsigned> vmapc::transposedLoops(linalg::LinalgOp op) {
  SmallVector<unsigned> loops;
  std::optional<unsigned> p = outputInnermostLoop(op);
  if (!p)
    return loops;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    std::optional<unsigned> q = innermostLoop(map);
    if (q && *q != *p && readsAlong(map, *p) && ranges[*q] > 1 &&
        !llvm::is_contained(loops, *q))
      loops.push_back(*q);
  }
  return loops;
}

bool vmapc::reducesAlongOutput(linalg::LinalgOp op) {
  std::optional<unsigned> p = outputInnermostLoop(op);
  if (!p || op.getNumReductionLoops() == 0)
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (readsAlong(map, *p) && innermostLoop(map) != p)
      return false;
  }
  return true;
}

bool vmapc::isGather(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  WalkResult found = op->walk([&](tensor::ExtractOp extract) {
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.filter = [&](Operation *def) { return def->getBlock() == body; };
    bool dataDependent = false;
    for (Value index : extract.getIndices()) {
      if (auto arg = dyn_cast<BlockArgument>(index)) {
        dataDependent |= arg.getOwner() == body;
        continue;
      }
      slice.clear();
      (void)getBackwardSlice(index, &slice, options);
      for (Operation *def : slice)
        for (Value operand : def->getOperands())
          if (auto arg = dyn_cast<BlockArgument>(operand))
            dataDependent |= arg.getOwner() == body;
    }
    return dataDependent ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool vmapc::readsRowsAlongInnermostLoop(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  int64_t innermost = int64_t(op.getNumLoops()) - 1;
  // What in the body `value` depends on: the innermost loop's index, and
  // anything else of the body (a block argument, another loop's index).
  auto dependencies = [&](Value value, bool &onInnermost, bool &onOther) {
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.filter = [&](Operation *def) { return def->getBlock() == body; };
    options.inclusive = true;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      onOther |= arg.getOwner() == body;
      return;
    }
    (void)getBackwardSlice(value, &slice, options);
    for (Operation *def : slice) {
      if (auto index = dyn_cast<linalg::IndexOp>(def)) {
        (int64_t(index.getDim()) == innermost ? onInnermost : onOther) = true;
        continue;
      }
      for (Value operand : def->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand))
          onOther |= arg.getOwner() == body;
    }
  };
  WalkResult result = op->walk([&](tensor::ExtractOp extract) {
    ValueRange indices = extract.getIndices();
    if (indices.empty())
      return WalkResult::interrupt();
    for (auto [i, index] : llvm::enumerate(indices)) {
      bool onInnermost = false, onOther = false;
      dependencies(index, onInnermost, onOther);
      bool last = i + 1 == indices.size();
      if (last ? (!onInnermost || onOther) : onInnermost)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

RegisterTiling vmapc::chooseRegisterTiling(linalg::LinalgOp op,
                                           const VectorIsa &isa) {
  RegisterTiling tiling;
  if (op.getNumDpsInits() == 0 || op.hasDynamicShape())
    return tiling;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = ranges.size();
  int64_t v = isa.vectorWidth;
  std::optional<unsigned> p = outputInnermostLoop(op);
  auto clamp = [&](unsigned loop, int64_t size) {
    return std::min(size, ranges[loop]);
  };

  if (op.getNumReductionLoops() == 0) {
    if (!p)
      return tiling;
    tiling.kind = RegisterTiling::Kind::Tiles;
    // A fill of at most a register tile (the init of a contraction's
    // accumulators, fused into its tile): whole, one splat, which the read
    // of the accumulators then folds into a constant (cut into rows, it was
    // a loop of stores for LLVM to unroll and forward to that read: MLP 64's
    // first layer).
    if (llvm::isa<linalg::FillOp>(op) &&
        iterations(op) <= isa.rowTile * 4 * v) {
      tiling.tileSizes.assign(numLoops, 0);
      return tiling;
    }
    tiling.tileSizes.assign(numLoops, 1);
    tiling.tileSizes[*p] = clamp(*p, 4 * v);
    // A gather reads its indices, not data, through its maps: one row of
    // the operand per tile, a vector load when the row is contiguous.
    if (isGather(op))
      return tiling;
    // A transpose: an input contiguous along another loop q gets V x V
    // tiles (a vector.transpose of registers).
    for (unsigned q : transposedLoops(op)) {
      tiling.tileSizes[*p] = clamp(*p, v);
      tiling.tileSizes[q] = clamp(q, v);
    }
    return tiling;
  }

  if (p && reducesAlongOutput(op)) {
    tiling.kind = RegisterTiling::Kind::Tiles;
    tiling.tileSizes.assign(numLoops, 1);
    SmallVector<unsigned> rows;
    for (unsigned l = 0; l < numLoops; ++l)
      if (l != *p && iterators[l] == utils::IteratorType::parallel &&
          ranges[l] > 1)
        rows.push_back(l);
    // A multiply-accumulate that streams a weight panel takes the taller
    // tile where a slab holds at least four (16 rows stay 2 x 8). Against a
    // small operand (the RNN's 64 x 64, K = 64) it gains nothing measurable
    // and costs compile time (bench/RESULTS.md, 2026-12-04): those keep
    // rowTile. Of the taller tiles, the tallest whose last tile may overlap
    // the one before (it recomputes at most 1 / kOverlapWorkDivisor of the
    // rows), so that no peeled remainder tile makes a second loop nest: a
    // 64-row slab is 5 tiles of 13 rows at AVX-512 (rows 51 to 63 last, 1
    // row computed twice), not 4 x 14 and a tile of 8; 11 tiles of 6 rows at
    // AVX2 and SSE2 (2 rows twice), not 10 x 6 and a tile of 4. Where none
    // does, the tallest, its remainder peeled. MLP 784's three levels
    // compile 8-10% faster, MLP 256's 5%; their calls take 1.00-1.02x as
    // long (1.6% and 3.1% more FMAs), every output bit the same
    // (bench/RESULTS.md, 2026-12-07 fourteenth session).
    int64_t rowTile = isa.rowTile;
    if (isMultiplyAccumulate(op) && readsPanels(op) && rows.size() == 1 &&
        ranges[rows.front()] >= 4 * isa.mulAddRowTile) {
      int64_t range = ranges[rows.front()];
      rowTile = isa.mulAddRowTile;
      for (int64_t tile = isa.mulAddRowTile; tile > isa.rowTile; --tile) {
        int64_t recomputed = (tile - range % tile) % tile;
        if (recomputed * kOverlapWorkDivisor <= range) {
          rowTile = tile;
          if (recomputed > 0)
            tiling.overlappedRowLoop = rows.front();
          break;
        }
      }
    }
    for (unsigned l : rows)
      if (ranges[l] <= rowTile)
        tiling.tileSizes[l] = 0; // The rows of the register tile.
    // Columns in whole vectors where there are more than one: a tile of a
    // 10-wide output at AVX2 is 8 columns, and the last tile, columns 2 to
    // 9, overlaps the first (CpuVectorize), as the accumulators of a
    // 10-lane vector (one and a quarter registers) are scalarized by LLVM
    // into inserts and spills each step (the MLPs' last layer: a quarter of
    // MLP 256-256-10's time before).
    int64_t columns = clamp(*p, isa.colTile);
    if (columns > v && columns % v != 0)
      columns = columns / v * v;
    tiling.tileSizes[*p] = columns;
    // A last tile of fewer columns overlaps the one before instead of being
    // peeled where that costs no more vector instructions (the narrower tile
    // takes as many vectors a row: 2 columns of an 8-column tile at AVX2) or
    // recomputes at most 1/32 of the columns (kOverlapWorkDivisor), and the
    // op reads no weight panels (a tile must lie in one panel). A peeled
    // tile is a second register-tile loop nest for LLVM to compile: the
    // kNN's and the cosine's 1000 columns at AVX-512, 31 tiles of 32 and 8
    // left, compiled 6-13% faster with the last tile overlapped (24 columns
    // again, 2.4% more FMAs); their calls took 1.0-1.02x as long on two
    // threads, 0.96-1.035x on one (bench/RESULTS.md, 2026-12-07, thirteenth
    // session). SSE2's 2 of an MLP's 10 columns stay a peeled tile of one
    // vector: an overlap would compute 16 columns for 10.
    int64_t range = ranges[*p], left = range % columns;
    if (left != 0 && !readsPanels(op) &&
        (llvm::divideCeil(left, v) == llvm::divideCeil(columns, v) ||
         (columns - left) * kOverlapWorkDivisor <= range))
      tiling.overlappedColumnLoop = *p;
    // One loop of more rows than a register tile (a slab): tiles of
    // rowTile rows, the columns' loop outside them, so that each column
    // panel of the shared operand serves every row tile of the slab.
    if (rows.size() == 1 && ranges[rows.front()] > rowTile) {
      tiling.tileSizes[rows.front()] = rowTile;
      tiling.interchange.push_back(*p);
      for (unsigned l = 0; l < numLoops; ++l)
        if (l != *p)
          tiling.interchange.push_back(l);
    }
    return tiling;
  }

  // A reduction along a dimension every input reads contiguously.
  if (op.getNumReductionLoops() == 1) {
    unsigned k = 0;
    for (unsigned l = 0; l < numLoops; ++l)
      if (iterators[l] == utils::IteratorType::reduction)
        k = l;
    bool contiguous = true;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      bool reads = llvm::any_of(
          map.getResults(), [&](AffineExpr e) { return e.isFunctionOfDim(k); });
      if (reads && innermostLoop(map) != k)
        contiguous = false;
    }
    if (contiguous && ranges[k] > 1) {
      tiling.kind = RegisterTiling::Kind::PartialReduction;
      tiling.tileSizes.assign(numLoops, 0);
      tiling.tileSizes[k] = clamp(k, 4 * v);
      tiling.reductionDims = {k};
      // The rows, cut first: one at a time, or, when a row is shorter than
      // 4 vectors, as many rows of the output's innermost dimension as
      // fill them (`sum(x, axis=1)` of an f32[1000, 2]: 32 rows of 2 at
      // AVX-512). A row tile that covers its loop leaves it whole.
      tiling.rowTileSizes.assign(numLoops, 0);
      for (unsigned l = 0; l < numLoops; ++l) {
        if (iterators[l] != utils::IteratorType::parallel)
          continue;
        int64_t rows = 1;
        if (p && l == *p)
          rows = std::max<int64_t>(1, 4 * v / tiling.tileSizes[k]);
        if (ranges[l] > rows)
          tiling.rowTileSizes[l] = rows;
      }
      return tiling;
    }
  }

  // No strategy fits (several reduction loops, a reduction along a strided
  // dimension): an op of more than a few registers' worth of iterations
  // still gets register-sized tiles — the last loop in 4 vectors, every
  // other loop one step at a time — so that no shape becomes straight-line
  // code of its every element (vector unrolling is linear in the vector's
  // size, LLVM's compile time worse).
  if (iterations(op) > kMaxWholeVectorIterations) {
    tiling.kind = RegisterTiling::Kind::Tiles;
    tiling.tileSizes.assign(numLoops, 1);
    tiling.tileSizes.back() = clamp(numLoops - 1, 4 * v);
  }
  return tiling;
}
