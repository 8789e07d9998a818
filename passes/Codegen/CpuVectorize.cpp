//===- CpuVectorize.cpp - CPU kernels tiled for registers and vectorized --===//
//
// `--arr-cpu-vectorize`: in every kernel (on tensors, after
// `--arr-tile-workgroups`), the workgroup's tile is cut into static register
// tiles and turned into vector code, the way IREE's LLVMCPU pipeline does:
//
// 1. Rows. The root is tiled by `m` rows along its batch loop (or its first
//    parallel loop) with `scf.for`, every producer fused into the row loop
//    (one slice each): a row of the kNN's distances with its argmin, a row
//    of softmax's max, exponentials, sum and quotient, `m` rows of an MLP's
//    layers. `m` is a slab of kContractionSlabRows rows when the kernel
//    contracts (a weight panel is loaded once for the slab's register
//    tiles), 8 (4 at SSE2) for a kernel of a static workgroup count that
//    transposes along its rows (its register tiles 8 x 8), else 1. A slab of a
//    dynamic row count (a partial chunk's last workgroup) is computed in the
//    static code of a full one, its inputs padded, each op's loop over its
//    register tiles of rows stopped at the rows it needs (PadSlab.h); any other
//    partial row loop is peeled (register tiles of rowTile rows while they
//    last, then single rows), so that every op in a row loop has a static
//    shape.
// 2. Per op, a strategy by kind (passes/Codegen/TileSizes.h):
//    - argmin/argmax: vector code of our own (ArgReduce.h);
//    - elementwise: the output's innermost dimension in tiles of 4 vectors
//      (a fill of at most a register tile, the init of accumulators: whole);
//    - contraction along the output's innermost dimension (every input is
//      contiguous along it or does not depend on it: x @ W, a packed
//      operand): `m` x `n` register tiles of accumulators, the reduction
//      loops innermost, one step at a time (a broadcast and an FMA);
//    - other reductions whose reduced dimension is contiguous: the rows
//      cut into register tiles first (one row, or as many short rows as
//      fill 4 vectors), then partial reduction into 4 vectors of lanes
//      (upstream's PartialReductionOuterReduction) and one horizontal
//      reduction;
//    - any other op of more than kMaxWholeVectorIterations iterations:
//      its last loop in 4 vectors, every other loop one step at a time,
//      so that no op is vectorized (and unrolled) whole;
//    tiles that do not divide a dimension are peeled, so the remainder tile
//    is static too (a contraction's last column tile overlaps the one before
//    instead, where that costs no more vectors a row or little more work).
//    A small copy of a slice (a transpose's tile that keeps the innermost
//    dimension: the weight panels' pack) is one vector read and write.
//    A register tile of an operand packed in column panels
//    (`--arr-pack-operands`) reads one panel: its panel index is resolved. Unit
//    dimensions are folded away and every static op is vectorized by upstream
//    `linalg::vectorize`, a generic that writes its output across its loop
//    order with its loops interchanged first (the vectors take the output's
//    layout: `w @ h` batched over h); loop-invariant transfers (the
//    accumulators) are hoisted into loop-carried vectors.
//
// Ops that fit no strategy stay linalg ops and become scalar loops.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Codegen/ArgReduce.h"
#include "passes/Codegen/FastMath.h"
#include "passes/Codegen/PadSlab.h"
#include "passes/Codegen/TileSizes.h"
#include "passes/Dispatch/Fusion.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRCPUVECTORIZE
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;
using namespace vmapc;

namespace {

/// The fewest rows of a slab that padSlabRows pads (a smaller slab keeps its
/// peeled partial version).
constexpr int64_t kMinPaddedSlabRows = 16;

/// Attribute on the tile loops of one op that may need peeling.
constexpr llvm::StringLiteral kPeelAttr = "arr.peel";

/// The op the workgroup's results come from: the linalg op in `scope`'s
/// block that no other linalg op there reads.
linalg::LinalgOp findRootIn(Block &block) {
  linalg::LinalgOp root;
  for (Operation &op : block) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp)
      continue;
    if (llvm::none_of(op.getUsers(), [](Operation *u) {
          return llvm::isa<linalg::LinalgOp>(u);
        }))
      root = linalgOp;
  }
  return root;
}

/// Whether some op in `block` reduces along its output (TileSizes.h), so
/// that rows share the loads of the other operand.
bool hasContraction(Block &block) {
  bool found = false;
  block.walk([&](linalg::LinalgOp op) { found |= reducesAlongOutput(op); });
  return found;
}

/// The most elements of a slice copy that VectorizeSliceCopy makes one
/// transfer: 256 bytes of f32, 4 AVX-512 vectors (16 SSE2 ones).
constexpr int64_t kMaxSliceCopyElements = 64;

/// `tensor.insert_slice` of a `tensor.extract_slice` of a static shape of at
/// most kMaxSliceCopyElements → vector code (a transfer_read of the
/// extracted slice and a transfer_write at the insert's offsets). Such a copy
/// is what a register tile of a transpose that keeps the innermost dimension
/// folds to (the weight panels' pack, [K, N] to [N / 32, K, 32]: 1 x 1 x 32
/// tiles); bufferized, it was a strided memref.copy, a scalar loop that LLVM
/// unrolled into 32 loads and stores, where one vector load and store do.
/// Only the MLPs' packs change: MLP 784's three levels compile in 13% less
/// time (25% at B = 1), MLP 256's 6% (16%), their calls unchanged
/// (bench/RESULTS.md, 2026-12-07 fourteenth session).
struct VectorizeSliceCopy : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto extract = insert.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    RankedTensorType type = insert.getSourceType();
    if (!extract || !type.hasStaticShape() ||
        type.getNumElements() > kMaxSliceCopyElements ||
        type.getRank() != insert.getDestType().getRank() ||
        !insert.hasUnitStride() ||
        !VectorType::isValidElementType(type.getElementType()))
      return rewriter.notifyMatchFailure(insert, "not a small slice copy");
    // Upstream's vectorization of an insert_slice: a transfer_read of its
    // source, a transfer_write into its destination.
    FailureOr<linalg::VectorizationResult> result =
        linalg::vectorize(rewriter, insert);
    if (failed(result))
      return failure();
    rewriter.replaceOp(insert, result->replacements);
    return success();
  }
};

/// What tiling one op made: its loops (outermost first) and the tiled op.
struct Tiled {
  SmallVector<LoopLikeOpInterface> loops;
  Operation *tiledOp = nullptr;
};

/// The loop that tiling with `tileSizes` and `interchange` made for the
/// op's loop `loop`, among `loops` (the tiled loops: the op's loops of a
/// tile size, outermost first, in `interchange`'s order), or null.
LoopLikeOpInterface tileLoopOf(ArrayRef<LoopLikeOpInterface> loops,
                               ArrayRef<int64_t> tileSizes,
                               ArrayRef<int64_t> interchange, int64_t loop) {
  SmallVector<int64_t> order =
      interchange.empty()
          ? llvm::to_vector(llvm::seq<int64_t>(tileSizes.size()))
          : llvm::to_vector(interchange);
  llvm::erase_if(order, [&](int64_t l) { return tileSizes[l] == 0; });
  auto at = llvm::find(order, loop);
  if (at == order.end() || order.size() != loops.size())
    return nullptr;
  return loops[at - order.begin()];
}

/// Tiles `op` with `tileSizes` (0: untiled) into nested scf.for loops marked
/// for peeling, and replaces it. No loops when nothing was tiled.
FailureOr<Tiled> tileWithLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                               ArrayRef<int64_t> tileSizes,
                               bool partialReduction = false,
                               ArrayRef<unsigned> reductionDims = {},
                               ArrayRef<int64_t> interchange = {}) {
  if (llvm::all_of(tileSizes, [](int64_t t) { return t == 0; }))
    return Tiled{{}, op};
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  SmallVector<OpFoldResult> sizes;
  for (int64_t t : tileSizes)
    sizes.push_back(rewriter.getIndexAttr(t));
  options.setTileSizes(sizes);
  if (!interchange.empty())
    options.setInterchange(interchange);
  if (partialReduction) {
    options.setReductionTilingStrategy(
        ReductionTilingStrategy::PartialReductionOuterReduction);
    options.setReductionDims(reductionDims);
  }
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  // The loop over a padded slab's rows (PadSlab.h).
  if (auto rowLoop = op->getAttrOfType<DenseI64ArrayAttr>(kSlabRowLoopAttr)) {
    int64_t row = rowLoop[0];
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (row < int64_t(ranges.size()) &&
        (ranges[row] == rowLoop[1] || ShapedType::isDynamic(ranges[row])))
      if (LoopLikeOpInterface loop =
              tileLoopOf(tiled->loops, tileSizes, interchange, row))
        loop->setAttr(kSlabRowTilesAttr, rewriter.getUnitAttr());
  }
  rewriter.replaceOp(op, tiled->replacements);
  for (LoopLikeOpInterface loop : tiled->loops)
    loop->setAttr(kPeelAttr, rewriter.getUnitAttr());
  return Tiled{tiled->loops,
               tiled->tiledOps.empty() ? nullptr : tiled->tiledOps.back()};
}

/// Peels every loop marked for peeling under `scope` whose trip count is
/// not a whole number of steps, until none is left: each op inside gets
/// static sizes (the full tile, or the static remainder).
void peelMarkedLoops(RewriterBase &rewriter, Operation *scope) {
  while (true) {
    scf::ForOp marked;
    scope->walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(kPeelAttr))
        return WalkResult::advance();
      marked = loop;
      return WalkResult::interrupt();
    });
    if (!marked)
      return;
    marked->removeAttr(kPeelAttr);
    scf::ForOp partial;
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, marked, partial);
  }
}

/// Makes the last tile of `loop` (a loop over a contraction's columns or
/// rows, 0 to `range` in steps of `tile`, `range` not a multiple of `tile`)
/// a full tile that overlaps the one before: it starts at `range - tile`, so
/// that every tile has the same static shape and the loop needs no peeled
/// copy for a narrower remainder (the 10-column layer of an MLP at AVX2: one
/// 4 x 8 register tile loop, not a 4 x 8 and a 4 x 2; a 64-row slab at
/// AVX-512: five 13-row tiles, not 4 x 13 and a 12-row one). The columns or
/// rows the two share are computed twice and stored twice with the same
/// value: each tile's accumulators start from its own fill (`tiledOp`'s
/// inits, fused into the loop), and the tile reads nothing it writes.
/// Returns whether it did.
static bool overlapLastTile(RewriterBase &rewriter, scf::ForOp loop,
                            linalg::LinalgOp tiledOp, int64_t range,
                            int64_t tile) {
  if (range <= tile || range % tile == 0)
    return false;
  if (!llvm::all_of(tiledOp.getDpsInits(), [](Value init) {
        return init.getDefiningOp<linalg::FillOp>();
      }))
    return false;
  MLIRContext *context = loop.getContext();
  Value iv = loop.getInductionVar();
  AffineExpr d0 = getAffineDimExpr(0, context);
  // The tile's size, min(tile, range - iv), is `tile` once the tile starts
  // at min(iv, range - tile).
  SmallVector<affine::AffineMinOp> sizes;
  loop.getBody()->walk([&](affine::AffineMinOp min) {
    AffineMap map = min.getAffineMap();
    if (min.getMapOperands().size() != 1 || min.getMapOperands()[0] != iv ||
        map.getNumResults() != 2)
      return;
    AffineExpr full = getAffineConstantExpr(tile, context);
    AffineExpr rest = getAffineConstantExpr(range, context) - d0;
    if ((map.getResult(0) == full && map.getResult(1) == rest) ||
        (map.getResult(0) == rest && map.getResult(1) == full))
      sizes.push_back(min);
  });
  if (sizes.empty())
    return false;
  for (affine::AffineMinOp min : sizes) {
    rewriter.setInsertionPoint(min);
    rewriter.replaceOp(
        min, arith::ConstantIndexOp::create(rewriter, min.getLoc(), tile));
  }
  rewriter.setInsertionPointToStart(loop.getBody());
  auto start = affine::AffineMinOp::create(
      rewriter, loop.getLoc(),
      AffineMap::get(1, 0, {d0, getAffineConstantExpr(range - tile, context)},
                     context),
      ValueRange{iv});
  rewriter.replaceUsesWithIf(iv, start, [&](OpOperand &use) {
    return use.getOwner() != start.getOperation();
  });
  loop->removeAttr(kPeelAttr);
  return true;
}

/// Whether `op` reads or writes a tensor of i1, as an operand or by
/// `tensor.extract` in its body (a gather). A bool is one byte in memory,
/// but LLVM stores a vector of i1 as packed bits: such ops stay scalar loops
/// (no bench program has one).
static bool readsOrWritesBools(linalg::LinalgOp op) {
  auto isBoolTensor = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.getElementType().isInteger(1);
  };
  return llvm::any_of(op->getOperandTypes(), isBoolTensor) ||
         llvm::any_of(op->getRegion(0).getOps<tensor::ExtractOp>(),
                      [&](tensor::ExtractOp extract) {
                        return isBoolTensor(extract.getTensor().getType());
                      });
}

/// Whether `op`'s body reads a tensor by loop index only (a reversed
/// slice): upstream's vectorizer can emit an invalid `vector.gather` for it,
/// so it stays a loop. A gather (isGather) is vectorized.
static bool readsByIndex(linalg::LinalgOp op) {
  return !op->getRegion(0).getOps<tensor::ExtractOp>().empty() && !isGather(op);
}

/// A gather register tile reads one row: every loop but the innermost has
/// extent 1, so the indices it reads are one scalar per tile. Each such
/// input is read once, before the op, and its element used from there: the
/// row's index is then loop-invariant, and upstream's vectorizer turns the
/// row into a contiguous `vector.transfer_read` instead of a
/// `vector.gather` of consecutive addresses.
static void hoistUniformInputs(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges.empty())
    return;
  unsigned innermost = ranges.size() - 1;
  for (auto [loop, range] : llvm::enumerate(ranges))
    if (loop != innermost && range != 1)
      return;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || map.isFunctionOfDim(innermost))
      continue;
    BlockArgument arg = op.getMatchingBlockArgument(input);
    if (arg.use_empty())
      continue;
    rewriter.setInsertionPoint(op);
    Value zero = arith::ConstantIndexOp::create(rewriter, op.getLoc(), 0);
    SmallVector<Value> at(type.getRank(), zero);
    Value element =
        tensor::ExtractOp::create(rewriter, op.getLoc(), input->get(), at);
    rewriter.replaceAllUsesWith(arg, element);
  }
}

/// A register tile `op` of a contraction that reads a weight panel
/// (`--arr-pack-operands`): its panel index resolved (TileSizes.h), the
/// panel's unit dimension dropped, so that the tile is a plain `x @ W`
/// again, and made the named op it is (`linalg.matmul`), which upstream's
/// vectorizer turns into a `vector.contract` whose lowering broadcasts each
/// row's element (a generic with its unit reduction loop folded would read
/// the rows' column as a strided vector and transpose it).
/// Interchanges the loops of a generic whose output is written across its
/// loop order (its indexing map a permutation of its parallel loops, not in
/// order: `w @ h` batched over h's examples, out[m, n] over loops (n, m,
/// k)), so that the vectorizer makes vectors in the output's layout (4 x 16
/// accumulators and FMAs of rows of the weights) and not in the loops' (16
/// x 4, a transpose of the accumulators on every step). The parallel loops
/// take the output's order, the reduction loops follow in theirs: each
/// output element sums in the same order, so no result changes.
static void writeOutputInLoopOrder(RewriterBase &rewriter,
                                   linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (AffineExpr result : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || iterators[dim.getPosition()] != utils::IteratorType::parallel)
      return;
    order.push_back(dim.getPosition());
  }
  if (llvm::is_sorted(order) ||
      int64_t(order.size()) != op.getNumParallelLoops())
    return;
  for (auto [loop, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(loop);
  (void)linalg::interchangeGenericOp(rewriter, op, order);
}

static void resolvePanels(RewriterBase &rewriter, linalg::GenericOp op) {
  if (!resolvePanelIndices(op))
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap &map = maps[input->getOperandNumber()];
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    auto panel = map.getNumResults() == 3
                     ? dyn_cast<AffineConstantExpr>(map.getResult(0))
                     : AffineConstantExpr();
    if (!type || !panel || panel.getValue() != 0 || type.getDimSize(0) != 1)
      continue;
    rewriter.setInsertionPoint(op);
    Value column = tensor::CollapseShapeOp::create(
        rewriter, op.getLoc(), input->get(),
        SmallVector<ReassociationIndices>{{0, 1}, {2}});
    rewriter.modifyOpInPlace(op, [&] { input->set(column); });
    map = map.dropResult(0);
  }
  rewriter.modifyOpInPlace(op, [&] {
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  (void)linalg::specializeGenericOp(rewriter, op);
}

/// Upstream canonicalization (every loaded dialect's and registered op's
/// patterns, as `--canonicalize` collects them in its initialize()): after
/// peeling, it turns the sizes that became constants into static types.
FrozenRewritePatternSet canonicalizationPatterns(MLIRContext *ctx) {
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    name.getCanonicalizationPatterns(patterns, ctx);
  return FrozenRewritePatternSet(std::move(patterns));
}

struct ArrCpuVectorizePass
    : vmapc::impl::ArrCpuVectorizeBase<ArrCpuVectorizePass> {
  using ArrCpuVectorizeBase::ArrCpuVectorizeBase;

  /// Collected and frozen once per pass instance, not per use (four uses
  /// per kernel; collecting every registered op's patterns took about a
  /// fifth of this pass's time).
  FrozenRewritePatternSet canonicalization;

  LogicalResult initialize(MLIRContext *context) override {
    canonicalization = canonicalizationPatterns(context);
    return success();
  }

  void canonicalize(Operation *op) {
    (void)applyPatternsGreedily(op, canonicalization);
  }

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    std::optional<VectorIsa> vectorIsa = VectorIsa::named(isaLevel);
    if (!vectorIsa) {
      getOperation().emitError() << "unknown ISA level '" << isaLevel
                                 << "' (x86-64, x86-64-v3, x86-64-v4)";
      return signalPassFailure();
    }
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!sched::isKernel(kernel) || kernel.isExternal())
        continue;
      if (failed(vectorizeKernel(kernel, *vectorIsa)))
        return signalPassFailure();
    }
  }

  LogicalResult vectorizeKernel(func::FuncOp kernel, const VectorIsa &target) {
    IRRewriter rewriter(kernel.getContext());
    vmapc::allowFmaContraction(kernel, vmapc::ContractionScope::MulAddSub);
    Block *scope = &kernel.getBody().front();
    for (auto forall : scope->getOps<scf::ForallOp>())
      scope = forall.getBody();

    // 1. Rows.
    linalg::LinalgOp scopeRoot = findRootIn(*scope);
    int64_t slabRows = 0;
    // The register tiles' ISA: the target's, but for a kernel of a static
    // workgroup count that transposes along its row loop (the cosine's and
    // the kNN's per-call transposes of their 1000 x 64 sets): slabs of 8 rows
    // (4 at SSE2) and 8 x 8 tiles, AVX's 8 x 8 register transpose
    // (CpuLowerVectors) at AVX-512 too. Rows of one were a strided gather of
    // a column each (64 loads and inserts per 64 elements), and AVX-512's
    // 16 x 16 tiles 4x the code of 8 x 8 ones; in a per-example kernel
    // (attention's transposes) the wider tiles stay, as they run faster.
    VectorIsa isa = target;
    bool transposeSlabs = false;
    if (scopeRoot && hasStaticWorkgroupCount(kernel) && !hasContraction(*scope))
      if (std::optional<unsigned> rowLoop = chooseRowLoop(scopeRoot);
          rowLoop && llvm::is_contained(transposedLoops(scopeRoot), *rowLoop)) {
        isa.vectorWidth = std::min<int64_t>(isa.vectorWidth, 8);
        transposeSlabs = true;
      }
    if (linalg::LinalgOp root = scopeRoot) {
      int64_t rows = hasContraction(*scope) ? kContractionSlabRows : 1;
      if (transposeSlabs)
        rows = isa.vectorWidth;
      // No more rows than a workgroup has examples (-T: T examples).
      if (auto count = kernel->getAttrOfType<DenseI64ArrayAttr>(
              sched::SchedDialect::kWorkgroupCountAttrName);
          count && !count.empty() && count[0] < 0)
        rows = std::min(rows, -count[0]);
      slabRows = rows;
      FailureOr<scf::ForOp> slabLoop = tileRows(rewriter, root, rows);
      if (failed(slabLoop))
        return failure();
      // A slab's rows of a dynamic count (a static count's last slab is
      // peeled to its static size): one version for full and partial slabs
      // (PadSlab.h).
      if (*slabLoop && rows >= kMinPaddedSlabRows &&
          !getConstantIntValue(slabLoop->getUpperBound()) &&
          hasContraction(*slabLoop->getBody()))
        if (FailureOr<PaddedSlab> padded =
                padSlabRows(rewriter, *slabLoop, rows, kCpuMaxWorkgroupScratch);
            succeeded(padded)) {
          (*slabLoop)->removeAttr(kPeelAttr);
          (*slabLoop)->removeAttr(kRowLoopAttr);
          if (failed(tileRealRows(rewriter, *padded)))
            return failure();
        }
    }
    peelMarkedLoops(rewriter, kernel);
    canonicalize(kernel);
    // The rows a peeled remainder leaves, fewer than a slab: in register
    // tiles of rowTile rows while they last (a slab's remainder may hold
    // many), then one at a time. Row tiles only where they fit: not in the
    // remainder of a slab of at most rowTile rows (a workgroup of that few
    // examples: CUDA's tiling in an artifact for both targets, a small
    // batch), whose tile loop would never run, nor in a kernel that does
    // not contract (slabs of one row).
    auto dynamicRoots = [&] {
      SmallVector<linalg::LinalgOp> roots;
      kernel.walk([&](scf::ForOp loop) {
        if (loop->hasAttr(kRowLoopAttr))
          if (linalg::LinalgOp root = findRootIn(*loop.getBody()))
            if (root.hasDynamicShape())
              roots.push_back(root);
      });
      return roots;
    };
    for (int64_t rows : {target.rowTile, int64_t(1)}) {
      if (rows > 1 && rows >= slabRows)
        continue;
      for (linalg::LinalgOp root : dynamicRoots())
        if (failed(tileRows(rewriter, root, rows)))
          return failure();
      peelMarkedLoops(rewriter, kernel);
      canonicalize(kernel);
    }

    // 2. Each op by its kind; fills last, since an op's tiles take the fill
    // of their accumulators with them.
    for (bool fills : {false, true}) {
      SmallVector<linalg::LinalgOp> ops;
      kernel.walk([&](linalg::LinalgOp op) {
        if (op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
            llvm::isa<linalg::FillOp>(op.getOperation()) == fills)
          ops.push_back(op);
      });
      for (linalg::LinalgOp op : ops)
        if (failed(tileForRegisters(rewriter, op, isa)))
          return failure();
    }
    peelMarkedLoops(rewriter, kernel);
    // Before canonicalization inlines the peeled remainder tiles.
    SmallVector<scf::ForOp> paddedSlabs;
    kernel.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kPaddedSlabAttr))
        paddedSlabs.push_back(loop);
    });
    for (scf::ForOp slab : paddedSlabs)
      boundSlabRowTiles(rewriter, slab);
    canonicalize(kernel);

    // 3. Resolve panel indices, fold unit dimensions, vectorize, hoist.
    // An op the vectorizer declines stays a loop; its reasons are not the
    // user's errors. `ndExtract`: its reads by index (`tensor.extract`) of
    // a row become vector loads.
    auto vectorizeOp = [&](linalg::LinalgOp op, bool ndExtract) {
      rewriter.setInsertionPoint(op);
      ScopedDiagnosticHandler quiet(kernel.getContext(),
                                    [](Diagnostic &) { return success(); });
      FailureOr<linalg::VectorizationResult> result =
          linalg::vectorize(rewriter, op, /*inputVectorSizes=*/{},
                            /*inputScalableVecDims=*/{}, ndExtract);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
    };
    // A padded copy's tiles (a row of the input each, read by index) first:
    // folding their unit row dimension would drop the attribute that names
    // them. Only where the rows are not the innermost loop: a tile along
    // them reads through the select of row 0, no contiguous load (it stays
    // a loop).
    SmallVector<linalg::LinalgOp> paddedCopies;
    kernel.walk([&](linalg::LinalgOp op) {
      auto rowLoop = op->getAttrOfType<DenseI64ArrayAttr>(kSlabRowLoopAttr);
      if (op->hasAttr(kPaddedCopyAttr) && rowLoop &&
          rowLoop[0] + 1 < int64_t(op.getNumLoops()) &&
          op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
          isSmallEnough(op))
        paddedCopies.push_back(op);
    });
    for (linalg::LinalgOp op : paddedCopies)
      vectorizeOp(op, /*ndExtract=*/true);
    SmallVector<linalg::GenericOp> panelReaders;
    kernel.walk([&](linalg::GenericOp op) {
      if (readsPanels(op))
        panelReaders.push_back(op);
    });
    for (linalg::GenericOp op : panelReaders)
      resolvePanels(rewriter, op);
    {
      RewritePatternSet patterns(kernel.getContext());
      linalg::ControlDropUnitDims options;
      options.rankReductionStrategy = linalg::ControlDropUnitDims::
          RankReductionStrategy::ExtractInsertSlice;
      linalg::populateFoldUnitExtentDimsPatterns(patterns, options);
      linalg::populateFoldUnitExtentDimsCanonicalizationPatterns(patterns,
                                                                 options);
      if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
        return kernel.emitOpError("unit dimensions could not be folded");
    }
    SmallVector<linalg::LinalgOp> toVectorize;
    kernel.walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
          isSmallEnough(op) && !readsOrWritesBools(op) && !readsByIndex(op))
        toVectorize.push_back(op);
    });
    for (linalg::LinalgOp op : toVectorize) {
      bool gather = isGather(op);
      if (gather) {
        hoistUniformInputs(rewriter, op);
        if (!readsRowsAlongInnermostLoop(op))
          continue;
      }
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
          generic && !gather)
        writeOutputInLoopOrder(rewriter, generic);
      vectorizeOp(op, /*ndExtract=*/gather); // A gather's rows.
    }
    {
      RewritePatternSet patterns(kernel.getContext());
      patterns.add<VectorizeSliceCopy>(kernel.getContext());
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      vector::populateVectorReductionToContractPatterns(patterns);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns,
                                                          kernel.getContext());
      vector::TransferWriteOp::getCanonicalizationPatterns(patterns,
                                                           kernel.getContext());
      tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
      scf::ForOp::getCanonicalizationPatterns(patterns, kernel.getContext());
      if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
        return kernel.emitOpError("vector cleanup did not converge");
    }
    SmallVector<scf::ForOp> loops;
    kernel.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) // Innermost first (post-order walk).
      hoistLoopInvariantSubsets(rewriter,
                                cast<LoopLikeOpInterface>(loop.getOperation()));
    kernel.walk([](Operation *op) {
      for (StringRef name :
           {StringRef(kRowLoopAttr), StringRef(kPeelAttr),
            StringRef(kPaddedSlabAttr), StringRef(kSlabRowLoopAttr),
            StringRef(kSlabRowTilesAttr), StringRef(kPaddedCopyAttr)})
        op->removeAttr(name);
    });
    return success();
  }

  static constexpr llvm::StringLiteral kRowLoopAttr = "arr.row_loop";

  /// Tiles what padSlabRows left of a dynamic row count one row at a time:
  /// its copies of real rows, and its roots with the fills of their
  /// outputs.
  LogicalResult tileRealRows(RewriterBase &rewriter, const PaddedSlab &slab) {
    for (linalg::LinalgOp copy : slab.rowCopies) {
      SmallVector<int64_t> sizes;
      for (int64_t range : copy.getStaticLoopRanges())
        sizes.push_back(ShapedType::isDynamic(range) ? 1 : 0);
      if (failed(tileWithLoops(rewriter, copy, sizes)))
        return copy.emitOpError("cannot be tiled into rows");
    }
    for (linalg::LinalgOp root : slab.realRowRoots)
      if (failed(tileRows(rewriter, root, 1, [](Operation *producer) {
            return isa<linalg::FillOp>(producer);
          })))
        return failure();
    return success();
  }

  /// Tiles `root` by `rows` along its row loop and fuses its producers in
  /// (those `shouldFuse` accepts, if given). Returns the row loop, or null
  /// where there is none.
  FailureOr<scf::ForOp>
  tileRows(RewriterBase &rewriter, linalg::LinalgOp root, int64_t rows,
           function_ref<bool(Operation *)> shouldFuse = nullptr) {
    std::optional<unsigned> rowLoop = chooseRowLoop(root);
    if (!rowLoop)
      return scf::ForOp();
    SmallVector<int64_t> sizes(root.getNumLoops(), 0);
    sizes[*rowLoop] = rows;
    FailureOr<Tiled> tiled = tileWithLoops(rewriter, root, sizes);
    if (failed(tiled))
      return root.emitOpError("cannot be tiled into rows");
    if (tiled->loops.empty())
      return scf::ForOp();
    LoopLikeOpInterface loop = tiled->loops.front();
    loop->setAttr(kRowLoopAttr, rewriter.getUnitAttr());
    if (failed(fuseProducersIntoLoop(rewriter, loop, shouldFuse)))
      return failure();
    return cast<scf::ForOp>(loop.getOperation());
  }

  /// The batch loop when its extent is dynamic or it is marked, else the
  /// first parallel loop longer than one iteration.
  static std::optional<unsigned> chooseRowLoop(linalg::LinalgOp root) {
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
    if (auto batch = root->getAttrOfType<IntegerAttr>(
            sched::SchedDialect::kBatchLoopAttrName))
      if (ShapedType::isDynamic(ranges[batch.getInt()]))
        return unsigned(batch.getInt());
    for (unsigned l = 0; l < ranges.size(); ++l)
      if (iterators[l] == utils::IteratorType::parallel &&
          (ShapedType::isDynamic(ranges[l]) || ranges[l] > 1))
        return l;
    return std::nullopt;
  }

  /// Whether `kernel`'s workgroup count is static (no dimension counts
  /// examples): a kernel hoisted to run once per call, or a small one of
  /// one workgroup.
  static bool hasStaticWorkgroupCount(func::FuncOp kernel) {
    auto count = kernel->getAttrOfType<DenseI64ArrayAttr>(
        sched::SchedDialect::kWorkgroupCountAttrName);
    return count &&
           llvm::all_of(count.asArrayRef(), [](int64_t n) { return n > 0; });
  }

  static bool isSmallEnough(linalg::LinalgOp op) {
    int64_t elements = 1;
    for (int64_t range : op.getStaticLoopRanges())
      elements *= std::max<int64_t>(range, 1);
    return elements <= 8192;
  }

  LogicalResult tileForRegisters(RewriterBase &rewriter, linalg::LinalgOp op,
                                 const VectorIsa &target) {
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
      if (std::optional<ArgReduction> arg = matchArgReduction(generic)) {
        if (succeeded(vectorizeArgReduction(rewriter, generic, *arg,
                                            target.vectorWidth)))
          return success();
        return success(); // Scalar loops.
      }
    RegisterTiling tiling = chooseRegisterTiling(op, target);
    switch (tiling.kind) {
    case RegisterTiling::Kind::None:
      return success();
    case RegisterTiling::Kind::Tiles:
    case RegisterTiling::Kind::PartialReduction: {
      bool partial = tiling.kind == RegisterTiling::Kind::PartialReduction;
      // An op upstream cannot tile this way (a reduction whose combiner it
      // does not recognise, such as an argmax of two elements) stays whole
      // (scalar loops); upstream's reasons are not the user's errors.
      if (partial) {
        ScopedDiagnosticHandler quiet(op.getContext(),
                                      [](Diagnostic &) { return success(); });
        // Upstream's partial reduction tiles no parallel loop: the rows
        // are cut first (tiling.rowTileSizes), so that a reduction of many
        // short rows (`sum(x, axis=1)` of an f32[1000, 2]) becomes a loop
        // of register tiles, not one vector of every row.
        FailureOr<Tiled> rowTiles =
            tileWithLoops(rewriter, op, tiling.rowTileSizes);
        if (failed(rowTiles))
          return success();
        auto tiledOp = dyn_cast_or_null<linalg::LinalgOp>(rowTiles->tiledOp);
        if (tiledOp &&
            llvm::any_of(tiling.tileSizes, [](int64_t t) { return t != 0; }))
          (void)tileWithLoops(rewriter, tiledOp, tiling.tileSizes, true,
                              tiling.reductionDims);
        return success();
      }
      // The parallel loops first, with the fill of the tile's accumulators
      // fused in (its zeros then start the registers instead of a pass over
      // memory), then the reduction loops inside.
      SmallVector<int64_t> parallelSizes(tiling.tileSizes);
      SmallVector<int64_t> reductionSizes(tiling.tileSizes.size(), 0);
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      for (auto [i, iterator] : llvm::enumerate(iterators))
        if (iterator == utils::IteratorType::reduction)
          std::swap(parallelSizes[i], reductionSizes[i]);
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      FailureOr<Tiled> outer = tileWithLoops(rewriter, op, parallelSizes, false,
                                             {}, tiling.interchange);
      if (failed(outer))
        return success();
      auto tiledOp = dyn_cast_or_null<linalg::LinalgOp>(outer->tiledOp);
      if (!outer->loops.empty() &&
          failed(fuseProducersIntoLoops(
              rewriter, outer->loops, [](Operation *producer) {
                return llvm::isa<linalg::FillOp>(producer);
              })))
        return failure();
      // The last tile of the columns or rows overlaps the one before where
      // the tiling chose so (chooseRegisterTiling).
      for (std::optional<unsigned> overlapped :
           {tiling.overlappedColumnLoop, tiling.overlappedRowLoop})
        if (tiledOp && overlapped)
          if (auto loop = dyn_cast_or_null<scf::ForOp>(
                  tileLoopOf(outer->loops, parallelSizes, tiling.interchange,
                             *overlapped)
                      .getOperation()))
            (void)overlapLastTile(rewriter, loop, tiledOp, ranges[*overlapped],
                                  parallelSizes[*overlapped]);
      if (tiledOp)
        (void)tileWithLoops(rewriter, tiledOp, reductionSizes);
      return success();
    }
    }
    return success();
  }
};

} // namespace
