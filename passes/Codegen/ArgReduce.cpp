//===- ArgReduce.cpp - vector code for argmin and argmax ------------------===//

#include "passes/Codegen/ArgReduce.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace vmapc;

std::optional<ArgReduction> vmapc::matchArgReduction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 2 ||
      op.getNumReductionLoops() != 1)
    return std::nullopt;
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 2)
    return std::nullopt;
  auto selValue = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  auto selIndex = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  Value in = body->getArgument(0), out = body->getArgument(1),
        outIndex = body->getArgument(2);
  if (!selValue || !selIndex ||
      selValue.getCondition() != selIndex.getCondition() ||
      selValue.getTrueValue() != in || selValue.getFalseValue() != out ||
      selIndex.getFalseValue() != outIndex || !selIndex.getType().isInteger(32))
    return std::nullopt;
  // The index: index_cast(linalg.index r).
  auto cast = selIndex.getTrueValue().getDefiningOp<arith::IndexCastOp>();
  auto index = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : nullptr;
  if (!index)
    return std::nullopt;
  ArgReduction kind;
  kind.loop = index.getDim();
  if (op.getIteratorTypesArray()[kind.loop] != utils::IteratorType::reduction)
    return std::nullopt;
  // The condition: strict(in, out) or (eq(in, out) and idx < outIndex).
  auto orOp = selValue.getCondition().getDefiningOp<arith::OrIOp>();
  if (!orOp)
    return std::nullopt;
  Operation *strict = orOp.getLhs().getDefiningOp();
  auto andOp = orOp.getRhs().getDefiningOp<arith::AndIOp>();
  if (!strict || !andOp)
    return std::nullopt;
  auto isOnInputs = [&](Operation *cmp) {
    return cmp && cmp->getNumOperands() == 2 && cmp->getOperand(0) == in &&
           cmp->getOperand(1) == out;
  };
  if (!isOnInputs(strict) || !isOnInputs(andOp.getLhs().getDefiningOp()))
    return std::nullopt;
  if (auto f = dyn_cast<arith::CmpFOp>(strict)) {
    kind.isFloat = true;
    if (f.getPredicate() == arith::CmpFPredicate::OLT)
      kind.isMin = true;
    else if (f.getPredicate() == arith::CmpFPredicate::OGT)
      kind.isMin = false;
    else
      return std::nullopt;
  } else if (auto i = dyn_cast<arith::CmpIOp>(strict)) {
    kind.isFloat = false;
    if (i.getPredicate() == arith::CmpIPredicate::slt)
      kind.isMin = true;
    else if (i.getPredicate() == arith::CmpIPredicate::sgt)
      kind.isMin = false;
    else
      return std::nullopt;
  } else {
    return std::nullopt;
  }
  return kind;
}

namespace {
/// The compares and combiners of one arg-reduction, on scalars or vectors.
struct Ops {
  ArgReduction kind;
  OpBuilder &b;
  Location loc;

  Value better(Value x, Value best) {
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
    auto step = [&](Value start, Value best, Value bestIdx,
                    bool inBounds) -> std::pair<Value, Value> {
      Value x = vector::TransferReadOp::create(b, loc, valueVec, input->get(),
                                               indicesOf(inputMap, start),
                                               worst, ArrayRef<bool>{inBounds});
      Value startI32 = arith::IndexCastOp::create(b, loc, i32, start);
      Value j = arith::AddIOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, indexVec, startI32),
          iota);
      Value better = ops.better(x, best);
      return {arith::SelectOp::create(b, loc, better, x, best),
              arith::SelectOp::create(b, loc, better, j, bestIdx)};
    };
    int64_t full = length / vectorWidth * vectorWidth;
    Value best = worstVec, bestIdx = zeroIdx;
    if (full > 0) {
      Value ub = arith::ConstantIndexOp::create(b, loc, full);
      Value stepSize = arith::ConstantIndexOp::create(b, loc, vectorWidth);
      auto scan = scf::ForOp::create(b, loc, c0, ub, stepSize,
                                     ValueRange{best, bestIdx});
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(scan.getBody());
      auto [nb, ni] = step(scan.getInductionVar(), scan.getRegionIterArgs()[0],
                           scan.getRegionIterArgs()[1], /*inBounds=*/true);
      scf::YieldOp::create(b, loc, ValueRange{nb, ni});
      b.setInsertionPointAfter(scan);
      best = scan.getResult(0);
      bestIdx = scan.getResult(1);
    }
    if (full < length) {
      // The tail: lanes past the end read the worst value, which never wins.
      Value start = arith::ConstantIndexOp::create(b, loc, full);
      std::tie(best, bestIdx) = step(start, best, bestIdx, /*inBounds=*/false);
    }
    Value m = vector::ReductionOp::create(b, loc, ops.bestKind(), best);
    Value atBest =
        ops.equal(best, vector::BroadcastOp::create(b, loc, valueVec, m));
    Value candidates = arith::SelectOp::create(b, loc, atBest, bestIdx, intMax);
    Value idx = vector::ReductionOp::create(
        b, loc, vector::CombiningKind::MINSI, candidates);
    // Combine with the init by the scalar rule.
    AffineMap valueMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    AffineMap indexMap = op.getMatchingIndexingMap(op.getDpsInitOperand(1));
    SmallVector<Value> valueAt = indicesOf(valueMap, Value());
    SmallVector<Value> indexAt = indicesOf(indexMap, Value());
    Value init = tensor::ExtractOp::create(b, loc, carried[0], valueAt);
    Value initIdx = tensor::ExtractOp::create(b, loc, carried[1], indexAt);
    Value strictly = ops.better(m, init);
    Value tie = arith::AndIOp::create(
        b, loc, ops.equal(m, init),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, initIdx));
    Value wins = arith::OrIOp::create(b, loc, strictly, tie);
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
