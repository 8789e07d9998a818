//===- PadSlab.cpp - partial slabs computed at full size ------------------===//

#include "passes/Codegen/PadSlab.h"
#include "passes/Codegen/TileSizes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace vmapc;

/// Whether some user of `value` reads its elements: anything but the
/// output of a structured op whose payload ignores it (a fill's, a
/// contraction's init).
static bool elementsRead(Value value) {
  for (OpOperand &use : value.getUses()) {
    auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!op || !op.isDpsInit(&use) || op.payloadUsesValueFromOperand(&use))
      return true;
  }
  return false;
}

/// The position of `rows` among `slice`'s sizes, if it is there once.
static std::optional<unsigned> rowDim(tensor::ExtractSliceOp slice,
                                      Value rows) {
  std::optional<unsigned> dim;
  for (auto [d, size] : llvm::enumerate(slice.getMixedSizes())) {
    if (dyn_cast<Value>(size) != rows)
      continue;
    if (dim)
      return std::nullopt;
    dim = d;
  }
  return dim;
}

/// `sizes` with the one at `dim` set to `size`.
static SmallVector<OpFoldResult> withSize(ArrayRef<OpFoldResult> sizes,
                                          unsigned dim, OpFoldResult size) {
  SmallVector<OpFoldResult> result(sizes);
  result[dim] = size;
  return result;
}

/// An upper bound on the bytes of per-workgroup scratch that the slab loop
/// `loop` (rows of count `rows`) needs once padded to `slabRows` = S rows:
/// each slice of rows it writes before it reads (an intermediate, a
/// destination) S rows, and one row more for the branch of few rows; each
/// input slice it reads 2 S rows (its padded copy, and the second copy that
/// one-shot bufferization makes of it: the scf.if that joins the copy with
/// the in-place view of the input puts both in one alias set, so the
/// copy's write counts as a write to the read-only input).
static int64_t paddedScratchBytes(scf::ForOp loop, Value rows,
                                  int64_t slabRows) {
  int64_t bytes = 0;
  loop.getBody()->walk([&](tensor::ExtractSliceOp slice) {
    std::optional<unsigned> dim = rowDim(slice, rows);
    RankedTensorType type = slice.getType();
    if (!dim || !type.getElementType().isIntOrFloat())
      return;
    int64_t rowBytes = std::max<int64_t>(type.getElementTypeBitWidth() / 8, 1);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != int64_t(*dim))
        rowBytes *= ShapedType::isDynamic(type.getDimSize(d))
                        ? int64_t(1) << 20
                        : type.getDimSize(d);
    bool written = slice.getSource().getDefiningOp<tensor::EmptyOp>() ||
                   !elementsRead(slice.getResult());
    bytes += (written ? slabRows + 1 : 2 * slabRows) * rowBytes;
  });
  return bytes;
}

FailureOr<PaddedSlab> vmapc::padSlabRows(RewriterBase &rewriter,
                                         scf::ForOp loop, int64_t slabRows,
                                         int64_t fewRowsBelow,
                                         int64_t maxScratchBytes) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() == 0)
    return failure();

  // The slab's row count: the one dynamic size of every slice the loop
  // inserts into its destination.
  Value rows;
  for (auto [result, iterArg] :
       llvm::zip_equal(yield.getOperands(), loop.getRegionIterArgs())) {
    auto insert = result.getDefiningOp<tensor::InsertSliceOp>();
    if (!insert || insert->getBlock() != body || insert.getDest() != iterArg ||
        insert.getSourceType().getRank() != insert.getDestType().getRank())
      return failure();
    Value size;
    for (OpFoldResult s : insert.getMixedSizes())
      if (auto value = dyn_cast<Value>(s)) {
        if (size)
          return failure();
        size = value;
      }
    if (!size || (rows && size != rows))
      return failure();
    rows = size;
  }
  Operation *rowsDef = rows.getDefiningOp();
  if (!rowsDef || rowsDef->getBlock() != body)
    return failure();
  // Every slice of rows is a plain one (no rank reduction), and nothing
  // reads a tensor of the kernel by index (a gather by row would read past
  // the real rows).
  WalkResult unsupported = body->walk([&](Operation *op) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      if (llvm::is_contained(slice.getSizes(), rows) &&
          (!rowDim(slice, rows) ||
           slice.getSourceType().getRank() != slice.getType().getRank()))
        return WalkResult::interrupt();
    if (auto extract = dyn_cast<tensor::ExtractOp>(op))
      if (loop.isDefinedOutsideOfLoop(extract.getTensor()))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return failure();
  if (paddedScratchBytes(loop, rows, slabRows) > maxScratchBytes)
    return failure();

  // if rows < fewRowsBelow { the body as it was } else { the body at S
  // rows }.
  Location loc = loop.getLoc();
  SmallVector<Operation *> slabOps;
  for (Operation *op = rowsDef->getNextNode(); op != yield;
       op = op->getNextNode())
    slabOps.push_back(op);
  rewriter.setInsertionPointAfter(rowsDef);
  Value slab = arith::ConstantIndexOp::create(rewriter, loc, slabRows);
  auto partialSlab = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::slt, rows, slab);
  Value bound = arith::ConstantIndexOp::create(rewriter, loc, fewRowsBelow);
  Value fewRows = arith::CmpIOp::create(rewriter, loc,
                                        arith::CmpIPredicate::slt, rows, bound);
  rewriter.setInsertionPoint(yield);
  auto branches = scf::IfOp::create(rewriter, loc, yield.getOperandTypes(),
                                    fewRows, /*withElseRegion=*/true);
  Block *padded = branches.elseBlock();
  for (Operation *op : slabOps)
    op->moveBefore(padded, padded->end());
  rewriter.setInsertionPointToEnd(padded);
  auto paddedYield = scf::YieldOp::create(rewriter, loc, yield.getOperands());
  rewriter.modifyOpInPlace(yield,
                           [&] { yield->setOperands(branches.getResults()); });
  {
    IRMapping mapping;
    rewriter.setInsertionPointToEnd(branches.thenBlock());
    for (Operation &op : padded->without_terminator())
      rewriter.clone(op, mapping);
    SmallVector<Value> results;
    for (Value value : paddedYield.getOperands())
      results.push_back(mapping.lookupOrDefault(value));
    scf::YieldOp::create(rewriter, loc, results);
  }
  PaddedSlab result;
  result.fewRows = branches;

  // The padded branch. Ops that keep the real row count: the slices of
  // the inputs' real rows, the insertion of the results' real rows, and
  // the roots that need not be padded (below) with the fills of their
  // outputs.
  llvm::SmallPtrSet<Operation *, 16> realRows;
  SmallVector<OpFoldResult> zeros, ones;
  auto unitOffsets = [&](int64_t rank) {
    zeros.assign(rank, rewriter.getIndexAttr(0));
    ones.assign(rank, rewriter.getIndexAttr(1));
  };
  // The first `rows` rows of `value` (a tensor of S rows once padded), in
  // its type: its one dynamic dimension is the rows'.
  auto realRowsOf = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      sizes.push_back(type.isDynamicDim(d) ? OpFoldResult(rows)
                                           : OpFoldResult(rewriter.getIndexAttr(
                                                 type.getDimSize(d))));
    unitOffsets(type.getRank());
    auto slice = tensor::ExtractSliceOp::create(rewriter, loc, value, zeros,
                                                sizes, ones);
    realRows.insert(slice);
    return slice;
  };
  // A root that is not a contraction (an epilogue: the bias and the
  // activation of the last layer, the cosine's quotient, the kNN's argmin)
  // computes the real rows only, into the destination itself: the padded
  // rows of the slab end at its inputs, and no copy of the results is
  // needed.
  auto atMostOneDynamicDim = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getNumDynamicDims() <= 1;
  };
  for (Value yielded : paddedYield.getOperands()) {
    auto insert = yielded.getDefiningOp<tensor::InsertSliceOp>();
    auto root = insert.getSource().getDefiningOp<linalg::LinalgOp>();
    if (!root || root->getBlock() != padded || reducesAlongOutput(root) ||
        !llvm::all_of(root->getOperandTypes(), atMostOneDynamicDim) ||
        llvm::is_contained(result.realRowRoots, root))
      continue;
    rewriter.setInsertionPoint(root);
    for (OpOperand &operand : root->getOpOperands()) {
      Value value = operand.get();
      if (cast<RankedTensorType>(value.getType()).hasStaticShape())
        continue; // Not per row.

      Operation *def = value.getDefiningOp();
      auto fill = dyn_cast_or_null<linalg::FillOp>(def);
      if (fill && fill->hasOneUse())
        def = fill.getOutputs().front().getDefiningOp();
      auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def);
      if (slice && rowDim(slice, rows)) {
        // A slice of the kernel's tensors (or a fill of one): the real rows
        // already.
        realRows.insert(slice);
        if (fill)
          realRows.insert(fill);
        continue;
      }
      Value real = realRowsOf(value);
      rewriter.modifyOpInPlace(root, [&] { operand.set(real); });
    }
    realRows.insert(root);
    result.realRowRoots.push_back(root);
  }
  // The other roots (contractions) compute S rows, the real ones copied
  // into the destination by a linalg.copy that the caller tiles one row at
  // a time (a vector copy per row, where an insert_slice of dynamic rows
  // would bufferize to a memref.copy of scalar loops).
  for (Value yielded : paddedYield.getOperands()) {
    auto insert = yielded.getDefiningOp<tensor::InsertSliceOp>();
    realRows.insert(insert);
    if (llvm::is_contained(result.realRowRoots,
                           insert.getSource().getDefiningOp()))
      continue;
    rewriter.setInsertionPoint(insert);
    Value real = realRowsOf(insert.getSource());
    auto destination = tensor::ExtractSliceOp::create(
        rewriter, loc, insert.getDest(), insert.getMixedOffsets(),
        insert.getMixedSizes(), insert.getMixedStrides());
    auto copy = linalg::CopyOp::create(rewriter, loc, ValueRange{real},
                                       ValueRange{destination});
    realRows.insert(destination);
    realRows.insert(copy);
    result.rowCopies.push_back(copy);
    rewriter.modifyOpInPlace(
        insert, [&] { insert.getSourceMutable().assign(copy->getResult(0)); });
  }
  SmallVector<tensor::ExtractSliceOp> slices;
  for (auto slice : padded->getOps<tensor::ExtractSliceOp>()) {
    Value source = slice.getSource();
    bool ofKernel = loop.isDefinedOutsideOfLoop(source) ||
                    llvm::is_contained(loop.getRegionIterArgs(), source);
    if (ofKernel && rowDim(slice, rows))
      slices.push_back(slice);
  }
  for (tensor::ExtractSliceOp slice : slices) {
    unsigned dim = *rowDim(slice, rows);
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    SmallVector<OpFoldResult> slabSizes =
        withSize(sizes, dim, rewriter.getIndexAttr(slabRows));
    Type elementType = slice.getType().getElementType();
    rewriter.setInsertionPointAfter(slice);
    Value full;
    if (slice.getSource().getDefiningOp<tensor::EmptyOp>() ||
        !elementsRead(slice.getResult())) {
      // Storage the slab writes before it reads: S rows of it.
      full = tensor::EmptyOp::create(rewriter, loc, slabSizes, elementType);
    } else {
      // A full slab's rows in place; a partial one's copied, then row 0
      // again (once per call: the copy is not vectorized). Bufferized, the
      // branches yield a copy and a view of the input, and
      // arr-bufferize-kernels gives the result the row stride both have.
      auto base = scf::IfOp::create(
          rewriter, loc,
          TypeRange{RankedTensorType::get(
              llvm::to_vector(llvm::map_range(
                  slabSizes,
                  [](OpFoldResult size) {
                    std::optional<int64_t> value = getConstantIntValue(size);
                    return value ? *value : ShapedType::kDynamic;
                  })),
              elementType)},
          partialSlab, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(base.thenBlock());
      Value init =
          tensor::EmptyOp::create(rewriter, loc, slabSizes, elementType);
      RankedTensorType rowType =
          RankedTensorType::Builder(slice.getType()).dropDim(dim);
      Value row0 = tensor::ExtractSliceOp::create(
          rewriter, loc, rowType, slice.getSource(), slice.getMixedOffsets(),
          withSize(sizes, dim, rewriter.getIndexAttr(1)),
          slice.getMixedStrides());
      Value repeated =
          linalg::BroadcastOp::create(rewriter, loc, row0, init,
                                      ArrayRef<int64_t>{int64_t(dim)})
              ->getResult(0);
      unitOffsets(slice.getType().getRank());
      auto copyIn = tensor::InsertSliceOp::create(
          rewriter, loc, slice.getResult(), repeated, zeros, sizes, ones);
      realRows.insert(copyIn);
      scf::YieldOp::create(rewriter, loc, copyIn.getResult());
      rewriter.setInsertionPointToStart(base.elseBlock());
      Value inPlace = tensor::ExtractSliceOp::create(
          rewriter, loc, slice.getSource(), slice.getMixedOffsets(), slabSizes,
          slice.getMixedStrides());
      scf::YieldOp::create(rewriter, loc, inPlace);
      full = base.getResult(0);
      realRows.insert(slice);
    }
    Value cast = tensor::CastOp::create(rewriter, loc, slice.getType(), full);
    rewriter.replaceUsesWithIf(slice.getResult(), cast, [&](OpOperand &use) {
      return !realRows.contains(use.getOwner());
    });
  }
  // Every other size of rows in the padded branch is S.
  Region &paddedRegion = branches.getElseRegion();
  rewriter.replaceUsesWithIf(rows, slab, [&](OpOperand &use) {
    Operation *owner = use.getOwner();
    return paddedRegion.isAncestor(owner->getParentRegion()) &&
           !realRows.contains(owner);
  });
  return result;
}
