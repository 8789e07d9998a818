//===- Shape.cpp - arr shape ops and constants to tensor/linalg/arith -----===//
//
// `arr.transpose` -> `linalg.transpose` (same permutation convention: result
// dimension i is operand dimension perm[i]).
// `arr.reshape` -> `tensor.collapse_shape` or `tensor.expand_shape` when the
// reshape is one (adjacent dimensions merged or split), else a collapse to
// 1-D followed by an expand to the result shape.
// `arr.constant` -> `arith.constant` of the same elements.
// `arr.slice` -> a `tensor.extract_slice` (a view), followed by a reversing
// `linalg.generic` (reading element `n - 1 - d`) for dimensions with a
// negative stride, which fuses into its consumer.
// `arr.concat` -> per piece, a copy `linalg.generic` into an
// `extract_slice` of one destination, inserted back: a piece produced by a
// generic (a broadcast of an unbatched piece, say) fuses into its copy, and
// bufferization writes every piece in place into the one result buffer. A
// concat of more than 32 pieces joins groups of pieces in buffers of their
// own first (one more copy; see buildConcat), which keeps bufferization's
// analysis fast.
// `arr.iota` -> a `linalg.generic` yielding `linalg.index`.
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/ArrToLinalg/Utils.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace vmapc;

namespace {

struct TransposeOpLowering : OpConversionPattern<arr::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value init =
        createEmptyTensor(rewriter, op.getLoc(), op.getResult().getType());
    auto transpose = linalg::TransposeOp::create(
        rewriter, op.getLoc(), adaptor.getOperand(), init, op.getPerm());
    rewriter.replaceOp(op, transpose->getResults());
    return success();
  }
};

/// All dimensions of a rank-`rank` tensor in one group (to or from 1-D); no
/// group for rank 0 (to or from a 0-d tensor).
SmallVector<ReassociationIndices> allInOneGroup(int64_t rank) {
  if (rank == 0)
    return {};
  ReassociationIndices group;
  for (int64_t d = 0; d < rank; ++d)
    group.push_back(d);
  return {group};
}

/// `source` reshaped to `type`: a collapse when `type` has a lower rank and
/// merges adjacent groups, an expand when it has a higher rank and splits
/// them; failure otherwise.
FailureOr<Value> collapseOrExpand(OpBuilder &b, Location loc, Value source,
                                  RankedTensorType type) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  if (sourceType.getRank() > type.getRank()) {
    if (auto groups = getReassociationIndicesForReshape(sourceType, type))
      return tensor::CollapseShapeOp::create(b, loc, type, source, *groups)
          .getResult();
  } else if (sourceType.getRank() < type.getRank()) {
    if (auto groups = getReassociationIndicesForReshape(type, sourceType))
      return tensor::ExpandShapeOp::create(b, loc, type, source, *groups)
          .getResult();
  }
  return failure();
}

struct ReshapeOpLowering : OpConversionPattern<arr::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value source = adaptor.getOperand();
    auto sourceType = cast<RankedTensorType>(source.getType());
    auto resultType = op.getResult().getType();
    if (sourceType == resultType) {
      rewriter.replaceOp(op, source);
      return success();
    }
    if (FailureOr<Value> direct =
            collapseOrExpand(rewriter, loc, source, resultType);
        succeeded(direct)) {
      rewriter.replaceOp(op, *direct);
      return success();
    }
    // Through 1-D: collapse (or expand a 0-d tensor) to [n], then expand (or
    // collapse to a 0-d tensor) to the result shape.
    auto flatType = RankedTensorType::get({sourceType.getNumElements()},
                                          sourceType.getElementType());
    Value flat = source;
    if (sourceType.getRank() == 0)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, flatType, source,
                                           allInOneGroup(0));
    else if (sourceType.getRank() > 1)
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc, flatType, source, allInOneGroup(sourceType.getRank()));
    Value result = flat;
    if (resultType.getRank() == 0)
      result = tensor::CollapseShapeOp::create(rewriter, loc, resultType, flat,
                                               allInOneGroup(0));
    else if (resultType.getRank() > 1)
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType, flat, allInOneGroup(resultType.getRank()));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConstantOpLowering : OpConversionPattern<arr::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getValue());
    return success();
  }
};

/// `arr.slice`: result element i reads operand element start + stride * i.
/// A `tensor.extract_slice` (a view after bufferization, never a copy) with
/// the strides' magnitudes; dimensions with a negative stride start at the
/// last element read and are then reversed by a `linalg.generic` that reads
/// element `n - 1 - d` there, which fuses into its consumer.
struct SliceOpLowering : OpConversionPattern<arr::SliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resultType = op.getResult().getType();
    unsigned rank = resultType.getRank();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    bool reversed = false;
    for (auto [d, start, stride] :
         llvm::enumerate(op.getStart(), op.getStride())) {
      int64_t n = resultType.getDimSize(d);
      sizes.push_back(rewriter.getIndexAttr(n));
      if (stride > 0) {
        offsets.push_back(rewriter.getIndexAttr(start));
        strides.push_back(rewriter.getIndexAttr(stride));
        continue;
      }
      reversed = true;
      offsets.push_back(
          rewriter.getIndexAttr(n == 0 ? start : start + stride * (n - 1)));
      strides.push_back(rewriter.getIndexAttr(-stride));
    }
    Value sliced = tensor::ExtractSliceOp::create(rewriter, loc, resultType,
                                                  adaptor.getOperand(), offsets,
                                                  sizes, strides);
    if (!reversed) {
      rewriter.replaceOp(op, sliced);
      return success();
    }
    // The reversed read is an indexed `tensor.extract` in the body rather
    // than an operand with map `n - 1 - d`: linalg's tiling computes an
    // operand's slice as if every map were increasing, so a tiled or fused
    // reversal would read the wrong (and too small) slice.
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{},
        ValueRange{createEmptyTensor(rewriter, loc, resultType)},
        SmallVector<AffineMap>{getIdentityMap(ctx, rank)}, iterators,
        [&](OpBuilder &b, Location bodyLoc, ValueRange) {
          SmallVector<Value> indices;
          for (unsigned d = 0; d < rank; ++d) {
            Value index = linalg::IndexOp::create(b, bodyLoc, d);
            if (op.getStride()[d] < 0)
              index = arith::SubIOp::create(
                  b, bodyLoc,
                  arith::ConstantIndexOp::create(b, bodyLoc,
                                                 resultType.getDimSize(d) - 1),
                  index);
            indices.push_back(index);
          }
          linalg::YieldOp::create(
              b, bodyLoc,
              tensor::ExtractOp::create(b, bodyLoc, sliced, indices)
                  .getResult());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// The most pieces one destination receives in place. Upstream's one-shot
/// bufferization analysis takes time about cubic in the number of
/// insertions into one buffer (llvm-project issue #81959: a concat of 100
/// pieces took 13 s to bufferize, of 500 over 5 minutes), so a longer
/// concat is built from groups (see buildConcat).
constexpr size_t kMaxPiecesInPlace = 32;

/// The concatenation of `pieces` along `dim`, of type `type`: each piece is
/// copied by a `linalg.generic` into an `extract_slice` of one destination
/// and inserted back (a piece produced by a generic fuses into its copy, and
/// bufferization writes it in place into the destination). The destination
/// is a `tensor.empty`, or with `ownBuffer` a `bufferization.alloc_tensor`,
/// a buffer of its own that empty-tensor elimination leaves alone.
///
/// Past kMaxPiecesInPlace pieces, consecutive pieces are first joined into
/// at most kMaxPiecesInPlace groups, each a concat into a buffer of its own,
/// and the groups are inserted into the destination (bufferized as one copy
/// each): the analysis then sees at most kMaxPiecesInPlace insertions into
/// any one buffer. Each level of groups copies the data once more; a group's
/// buffer lives only until its copy, so the plan gives all groups the same
/// bytes.
static Value buildConcat(OpBuilder &b, Location loc, ArrayRef<Value> pieces,
                         RankedTensorType type, int64_t dim, bool ownBuffer) {
  unsigned rank = type.getRank();
  Value dest = ownBuffer ? Value(bufferization::AllocTensorOp::create(
                               b, loc, type, ValueRange{}))
                         : createEmptyTensor(b, loc, type);
  // Inserts `part` at `offset` along `dim`; copied into the slot by an
  // identity generic unless it is a group.
  int64_t offset = 0;
  auto insert = [&](Value part, bool isGroup) {
    auto partType = cast<RankedTensorType>(part.getType());
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[dim] = b.getIndexAttr(offset);
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : partType.getShape())
      sizes.push_back(b.getIndexAttr(size));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    if (!isGroup) {
      Value slot = tensor::ExtractSliceOp::create(b, loc, partType, dest,
                                                  offsets, sizes, strides);
      SmallVector<AffineMap> maps(2, getIdentityMap(b.getContext(), rank));
      SmallVector<utils::IteratorType> iterators(rank,
                                                 utils::IteratorType::parallel);
      part = linalg::GenericOp::create(
                 b, loc, TypeRange{partType}, ValueRange{part},
                 ValueRange{slot}, maps, iterators,
                 [](OpBuilder &nb, Location bodyLoc, ValueRange args) {
                   linalg::YieldOp::create(nb, bodyLoc, args[0]);
                 })
                 .getResult(0);
    }
    dest = tensor::InsertSliceOp::create(b, loc, part, dest, offsets, sizes,
                                         strides);
    offset += partType.getDimSize(dim);
  };
  if (pieces.size() <= kMaxPiecesInPlace) {
    for (Value piece : pieces)
      insert(piece, /*isGroup=*/false);
    return dest;
  }
  // Each group is built and inserted before the next one starts, so that
  // only one group buffer is live at a time.
  size_t groupSize =
      (pieces.size() + kMaxPiecesInPlace - 1) / kMaxPiecesInPlace;
  for (size_t first = 0; first < pieces.size(); first += groupSize) {
    ArrayRef<Value> group =
        pieces.slice(first, std::min(groupSize, pieces.size() - first));
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = 0;
    for (Value piece : group)
      shape[dim] += cast<RankedTensorType>(piece.getType()).getDimSize(dim);
    insert(buildConcat(b, loc, group,
                       RankedTensorType::get(shape, type.getElementType()), dim,
                       /*ownBuffer=*/true),
           /*isGroup=*/true);
  }
  return dest;
}

/// `arr.concat`: each piece copied into its slice of one destination.
struct ConcatOpLowering : OpConversionPattern<arr::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> pieces(adaptor.getPieces());
    rewriter.replaceOp(op, buildConcat(rewriter, op.getLoc(), pieces,
                                       op.getResult().getType(),
                                       op.getDimAttr().getInt(),
                                       /*ownBuffer=*/false));
    return success();
  }
};

/// `arr.iota`: the loop index along `dim`, converted to the element type.
struct IotaOpLowering : OpConversionPattern<arr::IotaOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = op.getResult().getType();
    unsigned rank = resultType.getRank();
    int64_t dim = op.getDimAttr().getInt();
    Type elementType = resultType.getElementType();
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{},
        ValueRange{createEmptyTensor(rewriter, loc, resultType)},
        SmallVector<AffineMap>{getIdentityMap(op.getContext(), rank)},
        iterators, [&](OpBuilder &b, Location bodyLoc, ValueRange) {
          Value index = linalg::IndexOp::create(b, bodyLoc, dim);
          Value i32 =
              arith::IndexCastOp::create(b, bodyLoc, b.getI32Type(), index);
          Value v = i32;
          if (isa<FloatType>(elementType))
            v = arith::SIToFPOp::create(b, bodyLoc, elementType, i32);
          linalg::YieldOp::create(b, bodyLoc, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void vmapc::populateShapePatterns(RewritePatternSet &patterns) {
  patterns.add<TransposeOpLowering, ReshapeOpLowering, ConstantOpLowering,
               SliceOpLowering, ConcatOpLowering, IotaOpLowering>(
      patterns.getContext());
}
