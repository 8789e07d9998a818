//===- PadSlab.cpp - partial slabs computed at full size ------------------===//

#include "passes/Codegen/PadSlab.h"
#include "passes/Codegen/TileSizes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SetVector.h"

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
/// S rows for each slice of rows it holds (an intermediate, a destination,
/// an input's padded copy).
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
    bytes += slabRows * rowBytes;
  });
  return bytes;
}

FailureOr<PaddedSlab> vmapc::padSlabRows(RewriterBase &rewriter,
                                         scf::ForOp loop, int64_t slabRows,
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

  Location loc = loop.getLoc();
  rewriter.setInsertionPointAfter(rowsDef);
  Value slab = arith::ConstantIndexOp::create(rewriter, loc, slabRows);
  auto partialSlab = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::slt, rows, slab);
  PaddedSlab result;

  // Ops that keep the real row count: the test for a partial slab, the
  // slices of the inputs' real rows, the insertion of the results' real
  // rows, and the roots that need not be padded (below) with the fills of
  // their outputs.
  llvm::SmallPtrSet<Operation *, 16> realRows;
  realRows.insert(partialSlab);
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
  for (Value yielded : yield.getOperands()) {
    auto insert = yielded.getDefiningOp<tensor::InsertSliceOp>();
    auto root = insert.getSource().getDefiningOp<linalg::LinalgOp>();
    if (!root || root->getBlock() != body || reducesAlongOutput(root) ||
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
  for (Value yielded : yield.getOperands()) {
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
  for (auto slice : body->getOps<tensor::ExtractSliceOp>()) {
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
      // One op writes the copy into a fresh tensor: row i of the input's
      // slice below r, else its row 0, and only as far as the slab's ops
      // read (boundSlabRowTiles). (A broadcast of row 0 and then an
      // insert_slice of the r real rows was two writes to the tensor that
      // the scf.if joins with the read-only input: one-shot bufferization
      // copied all S rows once more before the second.)
      int64_t rank = slice.getType().getRank();
      SmallVector<Value> offsets = getValueOrCreateConstantIndexOp(
          rewriter, loc, slice.getMixedOffsets());
      SmallVector<Value> strides = getValueOrCreateConstantIndexOp(
          rewriter, loc, slice.getMixedStrides());
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value source = slice.getSource();
      auto copyIn = linalg::GenericOp::create(
          rewriter, loc, TypeRange{init.getType()}, ValueRange{},
          ValueRange{init},
          ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(rank)},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &b, Location bodyLoc, ValueRange) {
            SmallVector<Value> indices;
            for (int64_t d = 0; d < rank; ++d) {
              Value index = linalg::IndexOp::create(b, bodyLoc, d);
              if (d == int64_t(dim)) {
                auto real = arith::CmpIOp::create(
                    b, bodyLoc, arith::CmpIPredicate::ult, index, rows);
                realRows.insert(real);
                index = arith::SelectOp::create(b, bodyLoc, real, index, zero);
              }
              indices.push_back(arith::AddIOp::create(
                  b, bodyLoc, offsets[d],
                  arith::MulIOp::create(b, bodyLoc, index, strides[d])));
            }
            Value element =
                tensor::ExtractOp::create(b, bodyLoc, source, indices);
            linalg::YieldOp::create(b, bodyLoc, element);
          });
      copyIn->setAttr(kSlabRowLoopAttr,
                      rewriter.getDenseI64ArrayAttr({int64_t(dim), slabRows}));
      copyIn->setAttr(kPaddedCopyAttr, rewriter.getUnitAttr());
      scf::YieldOp::create(rewriter, loc, copyIn.getResult(0));
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
  // Every other size of rows in the slab is S.
  rewriter.replaceUsesWithIf(rows, slab, [&](OpOperand &use) {
    Operation *owner = use.getOwner();
    return body->findAncestorOpInBlock(*owner) && !realRows.contains(owner);
  });
  // Each op of the slab with its loop over the rows (its one dynamic loop
  // until the types are folded) and S, and the slab loop itself, for
  // boundSlabRowTiles.
  for (auto op : body->getOps<linalg::LinalgOp>()) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (llvm::count_if(ranges, ShapedType::isDynamic) != 1)
      continue;
    int64_t rowLoop =
        llvm::find_if(ranges, ShapedType::isDynamic) - ranges.begin();
    op->setAttr(kSlabRowLoopAttr,
                rewriter.getDenseI64ArrayAttr({rowLoop, slabRows}));
  }
  loop->setAttr(kPaddedSlabAttr, rewriter.getUnitAttr());
  return result;
}

/// A top-level op of a slab's body that reads rows of its operands where
/// its result has them (a view of them).
static bool isRowView(Operation *op) {
  return isa<tensor::CastOp, tensor::ExtractSliceOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp>(op);
}

void vmapc::boundSlabRowTiles(RewriterBase &rewriter, scf::ForOp slabLoop) {
  Block *body = slabLoop.getBody();
  Location loc = slabLoop.getLoc();
  std::optional<int64_t> slabRows = getConstantIntValue(slabLoop.getStep());
  if (!slabRows)
    return;
  SmallVector<Operation *> ops;
  for (Operation &op : body->without_terminator())
    ops.push_back(&op);
  // The slab's real rows, r = min(S, ub - iv), and the index arithmetic of
  // each op's bound, at the start of the body.
  rewriter.setInsertionPointToStart(body);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value slab = constant(*slabRows);
  Value rows = arith::MinSIOp::create(
      rewriter, loc, slab,
      arith::SubIOp::create(rewriter, loc, slabLoop.getUpperBound(),
                            slabLoop.getInductionVar()));
  OpBuilder::InsertPoint arithmetic = rewriter.saveInsertionPoint();

  // A count of rows, at least r and at most S: `multiple` m when it is
  // min(S, roundup(r, m)) for an m that divides S (0 when it is not known
  // to be), and a `tile` t that it is a multiple of unless it is S. The
  // kernels' tiles of rows are mostly multiples of one another that divide
  // S (1, 4, 8, 16), and on them the bounds fold (below): an op's bound is
  // then one of a few values, not a chain of min, max and round-up per op,
  // whose ranges LLVM's scalar evolution works out again for every loop
  // (MLP 64 at x86-64-v3: 11% of LLVM's optimization time, 7% of its code
  // generation).
  struct Rows {
    Value count;
    int64_t multiple = 0;
    int64_t tile = 1;
  };
  auto roundUp = [&](Value count, int64_t multiple) -> Value {
    Value tile = constant(multiple);
    Value roundedUp = arith::MulIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(
            rewriter, loc,
            arith::AddIOp::create(rewriter, loc, count, constant(multiple - 1)),
            tile),
        tile);
    return arith::MinSIOp::create(rewriter, loc, slab, roundedUp);
  };
  DenseMap<int64_t, Value> multiplesOfRows{{1, rows}};
  auto roundRowsUp = [&](int64_t multiple) -> Value {
    Value &count = multiplesOfRows[multiple];
    if (!count)
      count = roundUp(rows, multiple);
    return count;
  };
  // Whether a divides b, two known multiples.
  auto divides = [](int64_t a, int64_t b) {
    return a > 0 && b > 0 && b % a == 0;
  };

  // The rows each top-level op computes of its results (absent: all S),
  // last op first, so that an op's users are known before it.
  DenseMap<Operation *, Rows> computed;
  for (Operation *op : llvm::reverse(ops)) {
    auto insert = dyn_cast<tensor::InsertSliceOp>(op);
    if (insert && !insert.getSourceType().hasStaticShape()) {
      computed[op] = {rows, 1, 1}; // A result's real rows.
      continue;
    }
    // The rows its users read: the most any of them computes (each at
    // least r). Of counts min(S, roundup(r, m)) whose multiples divide one
    // another, the most is the one of the largest multiple.
    rewriter.restoreInsertionPoint(arithmetic);
    llvm::SetVector<Operation *> users;
    for (Value result : op->getResults())
      if (isa<RankedTensorType>(result.getType()))
        for (Operation *user : result.getUsers())
          users.insert(body->findAncestorOpInBlock(*user));
    if (!llvm::all_of(users,
                      [&](Operation *user) { return computed.contains(user); }))
      continue;
    std::optional<Rows> read;
    for (Operation *user : users) {
      Rows rowsOfUser = computed[user];
      if (read && read->count == rowsOfUser.count)
        continue;
      if (!read || divides(read->multiple, rowsOfUser.multiple))
        read = rowsOfUser;
      else if (!divides(rowsOfUser.multiple, read->multiple))
        read = Rows{arith::MaxSIOp::create(rewriter, loc, read->count,
                                           rowsOfUser.count)};
    }
    Rows need = read.value_or(Rows{rows, 1, 1});
    if (isRowView(op)) {
      computed[op] = need;
      continue;
    }
    // Its loops over register tiles of rows: from 0 in steps of t, and the
    // peeled remainder tile.
    SmallVector<scf::ForOp> rowTiles;
    bool staticSteps = true;
    op->walk([&](scf::ForOp loop) {
      if (!loop->hasAttr(kSlabRowTilesAttr))
        return;
      loop->removeAttr(kSlabRowTilesAttr);
      rowTiles.push_back(loop);
      staticSteps &= getConstantIntValue(loop.getStep()) &&
                     getConstantIntValue(loop.getLowerBound());
    });
    if (rowTiles.empty() || !staticSteps)
      continue;
    // Each loop over its rows' register tiles runs its tiles of t rows up
    // to the first that ends at or past `need`: the op computes
    // min(S, roundup(need, t)) rows, of which those past r are discarded.
    // That is `need` itself where t divides need's tile (need is a multiple
    // of t, or S), and min(S, roundup(r, t)) where need's multiple m
    // divides t and t divides S (rounding r up to m first changes nothing
    // that rounding up to t does not).
    int64_t tileRows = 1;
    for (scf::ForOp loop : rowTiles)
      tileRows = std::max(tileRows, *getConstantIntValue(loop.getStep()));
    if (divides(tileRows, need.tile))
      computed[op] = need;
    else if (divides(tileRows, *slabRows) && divides(need.multiple, tileRows))
      computed[op] = {roundRowsUp(tileRows), tileRows, tileRows};
    else
      computed[op] = {roundUp(need.count, tileRows), 0, tileRows};
    for (scf::ForOp loop : rowTiles) {
      rewriter.setInsertionPoint(loop);
      if (*getConstantIntValue(loop.getLowerBound()) == 0) {
        // `need` is at most S, the bound of a loop over all S rows.
        std::optional<int64_t> upper =
            getConstantIntValue(loop.getUpperBound());
        Value bound =
            upper && *upper >= *slabRows
                ? need.count
                : arith::MinSIOp::create(rewriter, loc, loop.getUpperBound(),
                                         need.count);
        rewriter.modifyOpInPlace(
            loop, [&] { loop.getUpperBoundMutable().assign(bound); });
        continue;
      }
      // A peeled remainder tile (static): only where it holds rows needed.
      Value run =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                need.count, loop.getLowerBound());
      auto guard = scf::IfOp::create(rewriter, loc, loop.getResultTypes(), run,
                                     /*withElseRegion=*/true);
      rewriter.replaceAllUsesWith(loop.getResults(), guard.getResults());
      if (guard.thenBlock()->empty()) {
        rewriter.setInsertionPointToEnd(guard.thenBlock());
        scf::YieldOp::create(rewriter, loc, loop.getResults());
        rewriter.setInsertionPointToEnd(guard.elseBlock());
        scf::YieldOp::create(rewriter, loc, loop.getInitArgs());
      }
      rewriter.moveOpBefore(loop, guard.thenBlock()->getTerminator());
    }
  }
}
