//===- Contraction.cpp - arr.dot_general to linalg ------------------------===//
//
// `arr.dot_general` becomes a contraction over the loops
//   [batch..., lhs free..., rhs free..., contract...]
// (parallel, parallel, parallel, reduction), into a zero-`linalg.fill`ed
// init. Each operand is read through its own projected map: batch dimension
// i at loop i, contracting dimension i at the i-th contract loop, a free
// dimension at its free loop. An operand without a batch dimension (one side
// batched by `--arr-vmap`) is thus read through a broadcast map and never
// copied. The plain cases use the named ops: `linalg.matmul` for
// [m,k]x[k,n] and `linalg.batch_matmul` for [b,m,k]x[b,k,n] with batch
// [0]x[0] and contract [2]x[1].
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/ArrToLinalg/Utils.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace vmapc;

namespace {

/// True for `lhs` [m,k] x `rhs` [k,n] with no batch dims, contract [1]x[0].
bool isPlainMatmul(arr::DotGeneralOp op) {
  return op.getLhs().getType().getRank() == 2 &&
         op.getRhs().getType().getRank() == 2 && op.getLhsBatch().empty() &&
         op.getLhsContract() == ArrayRef<int64_t>{1} &&
         op.getRhsContract() == ArrayRef<int64_t>{0};
}

/// True for `lhs` [b,m,k] x `rhs` [b,k,n], batch [0]x[0], contract [2]x[1].
bool isPlainBatchMatmul(arr::DotGeneralOp op) {
  return op.getLhs().getType().getRank() == 3 &&
         op.getRhs().getType().getRank() == 3 &&
         op.getLhsBatch() == ArrayRef<int64_t>{0} &&
         op.getRhsBatch() == ArrayRef<int64_t>{0} &&
         op.getLhsContract() == ArrayRef<int64_t>{2} &&
         op.getRhsContract() == ArrayRef<int64_t>{1};
}

/// The indexing map of one operand of rank `rank` over `numLoops` loops:
/// batch[i] -> loop i, contract[i] -> loop contractBase + i, and the free
/// dimensions, in order, -> loops freeBase, freeBase + 1, ...
AffineMap getOperandMap(MLIRContext *ctx, unsigned numLoops, int64_t rank,
                        ArrayRef<int64_t> batch, ArrayRef<int64_t> contract,
                        unsigned freeBase, unsigned contractBase) {
  SmallVector<AffineExpr> exprs;
  unsigned nextFree = freeBase;
  for (int64_t d = 0; d < rank; ++d) {
    const auto *b = llvm::find(batch, d);
    const auto *c = llvm::find(contract, d);
    unsigned loop;
    if (b != batch.end())
      loop = std::distance(batch.begin(), b);
    else if (c != contract.end())
      loop = contractBase + std::distance(contract.begin(), c);
    else
      loop = nextFree++;
    exprs.push_back(getAffineDimExpr(loop, ctx));
  }
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

struct DotGeneralOpLowering : OpConversionPattern<arr::DotGeneralOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::DotGeneralOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resultType = op.getResult().getType();
    Type elementType = resultType.getElementType();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    Value init =
        createFilledTensor(rewriter, loc, resultType,
                           cast<TypedAttr>(rewriter.getZeroAttr(elementType)));

    if (isPlainMatmul(op)) {
      rewriter.replaceOp(
          op, linalg::MatmulOp::create(rewriter, loc, TypeRange{resultType},
                                       ValueRange{lhs, rhs}, ValueRange{init})
                  ->getResults());
      return success();
    }
    if (isPlainBatchMatmul(op)) {
      rewriter.replaceOp(op, linalg::BatchMatmulOp::create(
                                 rewriter, loc, TypeRange{resultType},
                                 ValueRange{lhs, rhs}, ValueRange{init})
                                 ->getResults());
      return success();
    }

    int64_t lhsRank = op.getLhs().getType().getRank();
    int64_t rhsRank = op.getRhs().getType().getRank();
    unsigned numBatch = op.getLhsBatch().size();
    unsigned numContract = op.getLhsContract().size();
    unsigned numLhsFree = lhsRank - numBatch - numContract;
    unsigned numRhsFree = rhsRank - numBatch - numContract;
    unsigned numParallel = numBatch + numLhsFree + numRhsFree;
    unsigned numLoops = numParallel + numContract;

    // The result is read at the parallel loops, in order (none for 0-d).
    SmallVector<AffineExpr> resultExprs;
    for (unsigned i = 0; i < numParallel; ++i)
      resultExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {
        getOperandMap(ctx, numLoops, lhsRank, op.getLhsBatch(),
                      op.getLhsContract(), numBatch, numParallel),
        getOperandMap(ctx, numLoops, rhsRank, op.getRhsBatch(),
                      op.getRhsContract(), numBatch + numLhsFree, numParallel),
        AffineMap::get(numLoops, 0, resultExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(numParallel,
                                               utils::IteratorType::parallel);
    iterators.append(numContract, utils::IteratorType::reduction);

    bool isFloat = isa<FloatType>(elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, ValueRange{lhs, rhs},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value v;
          if (isFloat)
            v = arith::AddFOp::create(
                b, l, args[2], arith::MulFOp::create(b, l, args[0], args[1]));
          else
            v = arith::AddIOp::create(
                b, l, args[2], arith::MulIOp::create(b, l, args[0], args[1]));
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void vmapc::populateContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<DotGeneralOpLowering>(patterns.getContext());
}
