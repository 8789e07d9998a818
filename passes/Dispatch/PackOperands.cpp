//===- PackOperands.cpp - layouts that vectorize along the output ---------===//
//
// `--arr-pack-operands`, on each entry's linalg on tensors, before
// dispatches are formed. Two layout changes (never an algebraic one: every
// value is computed by the same operations in the same order):
//
// 1. A `linalg.transpose` of a linalg op's only result is folded into the
//    op, which then writes the transposed layout directly (its output map
//    permuted): `--arr-vmap` puts the batch dimension of `W @ h` last, and
//    moving it back to the front then costs a pass over memory per use.
// 2. A reduction whose output's innermost loop `p` is read by an input
//    along a dimension that is not that input's innermost one (the kNN's
//    `refs[r, d]` for distances `[b, r]`, `W[i, k]` for `[b, i]`) reads it
//    through a transposed copy with `p` innermost, made by a
//    `linalg.transpose` of its own — when the input is shared by every
//    example (unbatched), so that one copy serves the whole batch. Then
//    every input of the reduction is contiguous along `p` or does not read
//    it, and the reduction vectorizes along its output (a broadcast and a
//    multiply-add per step) instead of reducing within vectors. Reductions
//    of the same value share one copy (the cosine's dot products and its
//    set's norms).
// 3. Panels (IREE's data tiling, BLIS's packed B), with option `panels` (the
//    CPU's schedule): an unbatched [K, N] operand of a contraction over the
//    batch, contiguous along the output (`x @ W`, or after 2), over
//    kPanelMinBytes with N a multiple of w = kPanelWidth over w, is read
//    from a copy in column panels, [N / w, K, w] (a `tensor.expand_shape`
//    and a `linalg.transpose`), through the map
//    (.., p, k) -> (p floordiv w, k, p mod w). Every ISA's column tile
//    divides w (passes/Codegen/TileSizes.h), so a register tile's columns
//    lie in one panel and its walk over K is one contiguous stream instead
//    of a row of W per step, 4N bytes apart (a new page every few steps).
//    `--arr-cpu-vectorize` resolves each tile's panel index. The copy reads
//    only unbatched values: it is made once per call
//    (`--arr-hoist-per-call`). Rule 2's transposed copy of a [N, K] value is
//    packed from that value (one copy, not two). (A padded last panel for
//    other N made the cosine's 64 x 1000 set 1.1x slower: not done.)
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "passes/Codegen/TileSizes.h"
#include "passes/Dispatch/BatchDims.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRPACKOPERANDS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;
using namespace vmapc;

namespace {

/// `op` as a linalg.generic (named ops generalized in place).
FailureOr<linalg::GenericOp> asGeneric(RewriterBase &rewriter,
                                       linalg::LinalgOp op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return generic;
  rewriter.setInsertionPoint(op);
  return linalg::generalizeNamedOp(rewriter, op);
}

/// The new init of `op`'s output for a result of `type`: an empty tensor,
/// filled as the old init was when it was a fill.
Value rebuildInit(OpBuilder &b, Location loc, Value oldInit,
                  RankedTensorType type) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  if (auto fill = oldInit.getDefiningOp<linalg::FillOp>())
    return linalg::FillOp::create(b, loc, fill.getInputs(), ValueRange{empty})
        .getResult(0);
  return empty;
}

/// `op` reads its operand `index` as `copy`, through `map` (rules 2 and 3).
void readThrough(RewriterBase &rewriter, linalg::GenericOp op, unsigned index,
                 Value copy, AffineMap map) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[index] = map;
  rewriter.modifyOpInPlace(op, [&] {
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    op->setOperand(index, copy);
  });
}

/// 1. transpose(op) → op writing the transposed layout.
bool foldTranspose(linalg::TransposeOp transpose) {
  auto producer = transpose.getInput().getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer->getNumResults() != 1 ||
      !producer->getResult(0).hasOneUse() ||
      isa<linalg::TransposeOp>(producer.getOperation()))
    return false;
  OpOperand *init = producer.getDpsInitOperand(0);
  if (producer.payloadUsesValueFromOperand(init) &&
      !init->get().getDefiningOp<linalg::FillOp>())
    return false;
  OpBuilder b(transpose);
  IRRewriter rewriter(b);
  FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, producer);
  if (failed(generic))
    return false;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  SmallVector<AffineMap> maps = generic->getIndexingMapsArray();
  AffineMap outMap = maps.back();
  SmallVector<AffineExpr> permuted;
  for (int64_t p : perm)
    permuted.push_back(outMap.getResult(p));
  maps.back() =
      AffineMap::get(outMap.getNumDims(), 0, permuted, b.getContext());
  auto resultType = cast<RankedTensorType>(transpose.getResult()[0].getType());
  Location loc = generic->getLoc();
  rewriter.setInsertionPoint(*generic);
  Value newInit = rebuildInit(rewriter, loc,
                              generic->getDpsInitOperand(0)->get(), resultType);
  auto packed = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, generic->getInputs(),
      ValueRange{newInit}, maps, generic->getIteratorTypesArray());
  rewriter.inlineRegionBefore(generic->getRegion(), packed.getRegion(),
                              packed.getRegion().begin());
  rewriter.replaceOp(transpose, packed.getResults());
  rewriter.eraseOp(*generic);
  return true;
}

/// 1b. An elementwise op that writes a permuted layout (after 1) and reads
/// a reduction's result in its own iteration order: the reduction writes
/// that layout too, and the elementwise op reads it there. `--arr-vmap`
/// gives `tanh(W @ h + b)` the batch dimension last in every value, and a
/// transpose at the end moves it first; after 1 and this, `W @ h` is
/// computed batch first, as `h @ W^T`, whose output is contiguous along
/// W's rows (which 2 then packs), instead of along the examples. Returns
/// whether `op` changed.
bool propagateLayoutToReductions(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !op.hasPureTensorSemantics() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return false;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isPermutation() || outMap.isIdentity())
    return false;
  bool changed = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    auto producer = value.getDefiningOp<linalg::LinalgOp>();
    if (!producer || producer.getNumReductionLoops() == 0 ||
        producer->getNumResults() != 1 || !value.hasOneUse() ||
        !op.getMatchingIndexingMap(input).isIdentity())
      continue;
    // The value in the output's layout: dimension i of the copy is
    // dimension outMap(i) of the value.
    SmallVector<int64_t> perm;
    for (AffineExpr e : outMap.getResults())
      perm.push_back(cast<AffineDimExpr>(e).getPosition());
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    auto transpose = linalg::TransposeOp::create(b, loc, value, empty, perm);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[input->getOperandNumber()] = outMap;
    op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
    input->set(transpose.getResult()[0]);
    if (!foldTranspose(transpose)) {
      // Undo: the producer cannot write the layout.
      input->set(value);
      maps[input->getOperandNumber()] = AffineMap::getMultiDimIdentityMap(
          outMap.getNumDims(), b.getContext());
      op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
      transpose.erase();
      empty.getDefiningOp()->erase();
      continue;
    }
    changed = true;
  }
  return changed;
}

/// A transposed copy rule 2 made: of `input`, its dimensions in `perm`'s
/// order.
struct TransposedCopy {
  Value input;
  SmallVector<int64_t> perm;
  Value packed;
};

/// 2. The input of `op` to read through a transposed copy, if any. A copy
/// an earlier reduction made of the same value in the same order (in
/// `copies`) is read again, not made twice: the cosine's dot products and
/// the set's norms read one transposed set.
bool packInput(linalg::LinalgOp op, const BatchDims &batchDims,
               SmallVectorImpl<TransposedCopy> &copies) {
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics())
    return false;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return false;
  auto p = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!p || op.getIteratorTypesArray()[p.getPosition()] !=
                utils::IteratorType::parallel)
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !map.isProjectedPermutation() || map.getNumResults() < 2)
      continue;
    std::optional<unsigned> at = map.getResultPosition(p);
    if (!at || *at == map.getNumResults() - 1)
      continue;
    // Only a layout every example shares: one copy serves the batch.
    if (batchDims.dimOf(input->get()).has_value() || !batchDims.succeeded())
      continue;
    unsigned index = input->getOperandNumber();
    Value inputValue = input->get();
    OpBuilder b(op);
    IRRewriter rewriter(b);
    FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
    if (failed(generic))
      return false;
    // The copy's dimensions: the input's, with dimension `at` moved last.
    SmallVector<int64_t> perm;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (i != *at)
        perm.push_back(i);
    perm.push_back(*at);
    SmallVector<int64_t> shape;
    for (int64_t i : perm)
      shape.push_back(type.getDimSize(i));
    // Where the input is defined: out of every loop it does not vary in,
    // so that the copy is made once, not per iteration.
    Location loc = generic->getLoc();
    Value packed;
    for (const TransposedCopy &copy : copies)
      if (copy.input == inputValue && ArrayRef(copy.perm) == ArrayRef(perm))
        packed = copy.packed;
    if (!packed) {
      rewriter.setInsertionPointAfterValue(inputValue);
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
      packed =
          linalg::TransposeOp::create(rewriter, loc, inputValue, empty, perm)
              .getResult()[0];
      copies.push_back({inputValue, perm, packed});
    }
    SmallVector<AffineExpr> exprs;
    for (int64_t i : perm)
      exprs.push_back(map.getResult(i));
    readThrough(rewriter, *generic, index, packed,
                AffineMap::get(map.getNumDims(), 0, exprs, b.getContext()));
    return true;
  }
  return false;
}

/// 3. `op` reads its unbatched [K, N] input contiguous along the output
/// through a copy in column panels (see the file comment). Returns whether
/// `op` changed.
bool packPanels(linalg::LinalgOp op, const BatchDims &batchDims) {
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !batchDims.succeeded())
    return false;
  // Over the batch: the examples are the register tile's rows, and no
  // tiling but the register tile's cuts the columns.
  std::optional<int64_t> batchLoop = batchDims.loopOf(op);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!batchLoop || outMap.getNumResults() == 0)
    return false;
  auto p = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!p || int64_t(p.getPosition()) == *batchLoop ||
      op.getIteratorTypesArray()[p.getPosition()] !=
          utils::IteratorType::parallel)
    return false;
  int64_t n = ranges[p.getPosition()];
  // One panel is the operand itself.
  if (ShapedType::isDynamic(n) || n % kPanelWidth != 0 || n <= kPanelWidth)
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 2 ||
        !map.isProjectedPermutation() || map.getResult(1) != p)
      continue;
    // An operand that fits a core's L1 (48 KiB on the bench's Xeon) is read
    // at no cost along its rows: the copy would only take arena bytes.
    if (type.getNumElements() * type.getElementTypeBitWidth() / 8 <=
        kPanelMinBytes)
      continue;
    auto k = cast<AffineDimExpr>(map.getResult(0));
    if (op.getIteratorTypesArray()[k.getPosition()] !=
            utils::IteratorType::reduction ||
        batchDims.dimOf(input->get()).has_value())
      continue;
    unsigned index = input->getOperandNumber();
    Value inputValue = input->get();
    OpBuilder b(op);
    IRRewriter rewriter(b);
    FailureOr<linalg::GenericOp> generic = asGeneric(rewriter, op);
    if (failed(generic))
      return false;
    // [K, N] -> [K, N / w, w] -> [N / w, K, w], where the input is defined
    // (out of every loop it does not vary in). An input that is rule 2's
    // transposed copy of a [N, K] value is packed from that value instead,
    // [N, K] -> [N / w, w, K] -> [N / w, K, w]: one copy, not two.
    Location loc = generic->getLoc();
    int64_t kSize = type.getDimSize(0);
    Type element = type.getElementType();
    Value source = inputValue;
    SmallVector<int64_t> expandedShape{kSize, n / kPanelWidth, kPanelWidth};
    SmallVector<ReassociationIndices> groups{{0}, {1, 2}};
    SmallVector<int64_t> perm{1, 0, 2};
    auto transposed = inputValue.getDefiningOp<linalg::TransposeOp>();
    if (transposed && inputValue.hasOneUse() &&
        transposed.getPermutation() == ArrayRef<int64_t>{1, 0}) {
      source = transposed.getInput();
      expandedShape = {n / kPanelWidth, kPanelWidth, kSize};
      groups = {{0, 1}, {2}};
      perm = {0, 2, 1};
    }
    rewriter.setInsertionPointAfterValue(inputValue);
    Value expanded = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(expandedShape, element), source,
        groups);
    Value empty = tensor::EmptyOp::create(
        rewriter, loc,
        SmallVector<int64_t>{n / kPanelWidth, kSize, kPanelWidth}, element);
    Value packed =
        linalg::TransposeOp::create(rewriter, loc, expanded, empty, perm)
            .getResult()[0];
    readThrough(rewriter, *generic, index, packed,
                AffineMap::get(map.getNumDims(), 0,
                               {p.floorDiv(kPanelWidth), k, p % kPanelWidth},
                               b.getContext()));
    if (source != inputValue) {
      Value init = transposed.getInit();
      rewriter.eraseOp(transposed);
      if (Operation *def = init.getDefiningOp(); def && def->use_empty())
        rewriter.eraseOp(def);
    }
    return true;
  }
  return false;
}

struct ArrPackOperandsPass
    : vmapc::impl::ArrPackOperandsBase<ArrPackOperandsPass> {
  using ArrPackOperandsBase::ArrPackOperandsBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Linalg, vmapc::Stage::Linalg)))
      return signalPassFailure();
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::arr::isEntry(fn))
        continue;
      SmallVector<linalg::TransposeOp> transposes;
      fn.walk([&](linalg::TransposeOp t) { transposes.push_back(t); });
      for (linalg::TransposeOp t : transposes)
        foldTranspose(t);
      SmallVector<linalg::GenericOp> elementwise;
      fn.walk([&](linalg::GenericOp op) {
        if (op.getNumReductionLoops() == 0)
          elementwise.push_back(op);
      });
      for (linalg::GenericOp op : elementwise)
        propagateLayoutToReductions(op);
      BatchDims batchDims = BatchDims::analyze(fn);
      SmallVector<linalg::LinalgOp> reductions;
      fn.walk([&](linalg::LinalgOp op) {
        if (op.getNumReductionLoops() > 0)
          reductions.push_back(op);
      });
      SmallVector<TransposedCopy> copies;
      for (linalg::LinalgOp op : reductions)
        packInput(op, batchDims, copies);
      if (!panels)
        continue;
      // Rule 2 replaced ops the analysis knew: analyze again.
      batchDims = BatchDims::analyze(fn);
      reductions.clear();
      fn.walk([&](linalg::LinalgOp op) {
        if (op.getNumReductionLoops() > 0)
          reductions.push_back(op);
      });
      for (linalg::LinalgOp op : reductions)
        packPanels(op, batchDims);
    }
  }
};

} // namespace
