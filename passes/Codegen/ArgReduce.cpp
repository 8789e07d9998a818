//===- ArgReduce.cpp - vector code for argmin and argmax ------------------===//

#include "passes/Codegen/ArgReduce.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace vmapc;

namespace {
/// The compares and combiners of one arg-reduction, on scalars or vectors.
struct Ops {
  ArgReduction kind;
  OpBuilder &b;
  Location loc;

  /// Strictly better, with ordered compares: a NaN never wins the lane scan
  /// (NaN is found apart, off the scan's dependency chain).
  Value orderedBetter(Value x, Value best) {
    if (kind.isFloat)
      return arith::CmpFOp::create(b, loc,
                                   kind.isMin ? arith::CmpFPredicate::OLT
                                              : arith::CmpFPredicate::OGT,
                                   x, best);
    return arith::CmpIOp::create(b, loc,
                                 kind.isMin ? arith::CmpIPredicate::slt
                                            : arith::CmpIPredicate::sgt,
                                 x, best);
  }
  Value equal(Value x, Value y) {
    if (kind.isFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, y);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
  }
  /// The value no element beats: +inf / -inf, INT_MAX / INT_MIN.
  TypedAttr worst(Type elementType) {
    if (kind.isFloat)
      return b.getFloatAttr(elementType,
                            kind.isMin ? APFloat::getInf(APFloat::IEEEsingle())
                                       : APFloat::getInf(APFloat::IEEEsingle(),
                                                         /*Negative=*/true));
    return b.getIntegerAttr(elementType, kind.isMin
                                             ? APInt::getSignedMaxValue(32)
                                             : APInt::getSignedMinValue(32));
  }
  vector::CombiningKind bestKind() {
    if (kind.isFloat)
      return kind.isMin ? vector::CombiningKind::MINIMUMF
                        : vector::CombiningKind::MAXIMUMF;
    return kind.isMin ? vector::CombiningKind::MINSI
                      : vector::CombiningKind::MAXSI;
  }
};
} // namespace

LogicalResult vmapc::vectorizeArgReduction(RewriterBase &rewriter,
                                           linalg::GenericOp op,
                                           const ArgReduction &kind,
                                           int64_t vectorWidth) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape())
    return failure();
  OpOperand *input = op.getDpsInputOperand(0);
  AffineMap inputMap = op.getMatchingIndexingMap(input);
  if (inputMap.getNumResults() == 0 ||
      inputMap.getResults().back() !=
          getAffineDimExpr(kind.loop, op.getContext()) ||
      !inputMap.isProjectedPermutation())
    return failure();
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isProjectedPermutation())
      return failure();

  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t length = ranges[kind.loop];
  Type elementType = getElementTypeOrSelf(input->get().getType());
  Type i32 = rewriter.getI32Type();
  auto valueVec = VectorType::get({vectorWidth}, elementType);
  auto indexVec = VectorType::get({vectorWidth}, i32);
  auto maskVec = VectorType::get({vectorWidth}, rewriter.getI1Type());

  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  Ops ops{kind, b, loc};
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  Value worst = arith::ConstantOp::create(b, loc, ops.worst(elementType));
  Value worstVec = vector::BroadcastOp::create(b, loc, valueVec, worst);
  Value zeroIdx = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(indexVec, b.getI32IntegerAttr(0)));
  SmallVector<int32_t> lanes;
  for (int64_t l = 0; l < vectorWidth; ++l)
    lanes.push_back(int32_t(l));
  Value iota = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(indexVec, ArrayRef<int32_t>(lanes)));
  Value intMax = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          indexVec, b.getI32IntegerAttr(std::numeric_limits<int32_t>::max())));

  // Loops over the parallel dimensions, carrying the two result tensors.
  SmallVector<unsigned> parallel;
  for (unsigned l = 0; l < ranges.size(); ++l)
    if (l != kind.loop)
      parallel.push_back(l);
  SmallVector<Value> ivs(ranges.size());
  SmallVector<Value> results(op.getDpsInits());
  std::function<SmallVector<Value>(unsigned, ValueRange)> build =
      [&](unsigned depth, ValueRange carried) -> SmallVector<Value> {
    if (depth < parallel.size()) {
      unsigned l = parallel[depth];
      Value ub = arith::ConstantIndexOp::create(b, loc, ranges[l]);
      auto loop = scf::ForOp::create(b, loc, c0, ub, c1, carried);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      ivs[l] = loop.getInductionVar();
      SmallVector<Value> inner = build(depth + 1, loop.getRegionIterArgs());
      scf::YieldOp::create(b, loc, inner);
      return SmallVector<Value>(loop.getResults());
    }
    // One row: the per-lane scan, then across lanes.
    auto indicesOf = [&](AffineMap map, Value reductionIndex) {
      SmallVector<Value> indices;
      for (AffineExpr expr : map.getResults()) {
        unsigned dim = cast<AffineDimExpr>(expr).getPosition();
        indices.push_back(dim == kind.loop ? reductionIndex : ivs[dim]);
      }
      return indices;
    };
    // One vector of the row: each lane keeps its strictly better element;
    // `nan` accumulates whether any element is NaN (f32 only).
    struct Scan {
      Value best, bestIdx, nan;
    };
    auto step = [&](Value start, Scan scan, bool inBounds) -> Scan {
      Value x = vector::TransferReadOp::create(b, loc, valueVec, input->get(),
                                               indicesOf(inputMap, start),
                                               worst, ArrayRef<bool>{inBounds});
      Value startI32 = arith::IndexCastOp::create(b, loc, i32, start);
      Value j = arith::AddIOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, indexVec, startI32),
          iota);
      Value better = ops.orderedBetter(x, scan.best);
      Scan next{arith::SelectOp::create(b, loc, better, x, scan.best),
                arith::SelectOp::create(b, loc, better, j, scan.bestIdx),
                scan.nan};
      if (kind.isFloat)
        next.nan = arith::OrIOp::create(
            b, loc, scan.nan,
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x));
      return next;
    };
    auto carriedOf = [&](const Scan &scan) {
      SmallVector<Value> values = {scan.best, scan.bestIdx};
      if (scan.nan)
        values.push_back(scan.nan);
      return values;
    };
    auto scanOf = [&](ValueRange values) {
      return Scan{values[0], values[1],
                  values.size() > 2 ? values[2] : Value()};
    };
    int64_t full = length / vectorWidth * vectorWidth;
    Scan scan{worstVec, zeroIdx, Value()};
    if (kind.isFloat)
      scan.nan = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(maskVec, false));
    if (full > 0) {
      Value ub = arith::ConstantIndexOp::create(b, loc, full);
      Value stepSize = arith::ConstantIndexOp::create(b, loc, vectorWidth);
      auto loop = scf::ForOp::create(b, loc, c0, ub, stepSize, carriedOf(scan));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Scan next = step(loop.getInductionVar(), scanOf(loop.getRegionIterArgs()),
                       /*inBounds=*/true);
      scf::YieldOp::create(b, loc, carriedOf(next));
      b.setInsertionPointAfter(loop);
      scan = scanOf(loop.getResults());
    }
    if (full < length) {
      // The tail: lanes past the end read the worst value, which never wins.
      Value start = arith::ConstantIndexOp::create(b, loc, full);
      scan = step(start, scan, /*inBounds=*/false);
    }
    // Across lanes: the best value, then the lowest index among its lanes.
    auto acrossLanes = [&]() -> SmallVector<Value> {
      Value m = vector::ReductionOp::create(b, loc, ops.bestKind(), scan.best);
      Value atBest = ops.equal(
          scan.best, vector::BroadcastOp::create(b, loc, valueVec, m));
      Value candidates =
          arith::SelectOp::create(b, loc, atBest, scan.bestIdx, intMax);
      Value idx = vector::ReductionOp::create(
          b, loc, vector::CombiningKind::MINSI, candidates);
      return {m, idx};
    };
    Value m, idx;
    if (!kind.isFloat) {
      SmallVector<Value> lanes = acrossLanes();
      m = lanes[0];
      idx = lanes[1];
    } else {
      // A row with a NaN: its first NaN wins. Rare, so found by a scalar
      // rescan of that row only.
      Value anyNaN = vector::ReductionOp::create(
          b, loc, vector::CombiningKind::OR, scan.nan);
      auto ifNaN = scf::IfOp::create(b, loc, TypeRange{elementType, i32},
                                     anyNaN, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(ifNaN.thenBlock());
        Value len = arith::ConstantIndexOp::create(b, loc, length);
        Value notFound = arith::ConstantOp::create(
            b, loc, b.getI32IntegerAttr(std::numeric_limits<int32_t>::max()));
        auto rescan = scf::ForOp::create(b, loc, c0, len, c1, notFound);
        b.setInsertionPointToStart(rescan.getBody());
        Value k = rescan.getInductionVar(),
              found = rescan.getRegionIterArgs()[0];
        Value x = tensor::ExtractOp::create(b, loc, input->get(),
                                            indicesOf(inputMap, k));
        Value isNaN =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
        Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            found, notFound);
        Value take = arith::AndIOp::create(b, loc, isNaN, first);
        Value kI32 = arith::IndexCastOp::create(b, loc, i32, k);
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(b, loc, take, kI32, found)});
        b.setInsertionPointAfter(rescan);
        Value nan = arith::ConstantOp::create(
            b, loc,
            b.getFloatAttr(elementType,
                           APFloat::getQNaN(APFloat::IEEEsingle())));
        scf::YieldOp::create(b, loc, ValueRange{nan, rescan.getResult(0)});
        b.setInsertionPointToStart(ifNaN.elseBlock());
        scf::YieldOp::create(b, loc, acrossLanes());
      }
      m = ifNaN.getResult(0);
      idx = ifNaN.getResult(1);
    }
    // Combine with the init by the rule.
    AffineMap valueMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    AffineMap indexMap = op.getMatchingIndexingMap(op.getDpsInitOperand(1));
    SmallVector<Value> valueAt = indicesOf(valueMap, Value());
    SmallVector<Value> indexAt = indicesOf(indexMap, Value());
    Value init = tensor::ExtractOp::create(b, loc, carried[0], valueAt);
    Value initIdx = tensor::ExtractOp::create(b, loc, carried[1], indexAt);
    Value wins = buildArgBeats(b, loc, kind, m, idx, init, initIdx);
    Value newValue = arith::SelectOp::create(b, loc, wins, m, init);
    Value newIdx = arith::SelectOp::create(b, loc, wins, idx, initIdx);
    Value r0 = tensor::InsertOp::create(b, loc, newValue, carried[0], valueAt);
    Value r1 = tensor::InsertOp::create(b, loc, newIdx, carried[1], indexAt);
    return {r0, r1};
  };
  (void)ctx;
  SmallVector<Value> replaced = build(0, results);
  rewriter.replaceOp(op, replaced);
  return success();
}
