//===- ArgReduction.cpp - the order of argmin and argmax ------------------===//

#include "passes/ArgReduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace vmapc;

using arith::CmpFPredicate;
using arith::CmpIPredicate;

static CmpFPredicate strictFloat(const ArgReduction &kind) {
  return kind.isMin ? CmpFPredicate::OLT : CmpFPredicate::OGT;
}

static CmpIPredicate strictInt(const ArgReduction &kind) {
  return kind.isMin ? CmpIPredicate::slt : CmpIPredicate::sgt;
}

/// `better` given `x`'s NaN test (f32 only).
static Value buildBetter(OpBuilder &b, Location loc, const ArgReduction &kind,
                         Value x, Value y, Value xIsNaN) {
  if (!kind.isFloat)
    return arith::CmpIOp::create(b, loc, strictInt(kind), x, y);
  Value strict = arith::CmpFOp::create(b, loc, strictFloat(kind), x, y);
  Value yIsNumber = arith::CmpFOp::create(b, loc, CmpFPredicate::ORD, y, y);
  Value nanWins = arith::AndIOp::create(b, loc, xIsNaN, yIsNumber);
  return arith::OrIOp::create(b, loc, strict, nanWins);
}

Value vmapc::buildArgBetter(OpBuilder &b, Location loc,
                            const ArgReduction &kind, Value x, Value y) {
  Value xIsNaN = kind.isFloat
                     ? arith::CmpFOp::create(b, loc, CmpFPredicate::UNO, x, x)
                     : Value();
  return buildBetter(b, loc, kind, x, y, xIsNaN);
}

Value vmapc::buildArgBeats(OpBuilder &b, Location loc, const ArgReduction &kind,
                           Value x, Value xIndex, Value y, Value yIndex) {
  Value better, same;
  if (kind.isFloat) {
    Value xIsNaN = arith::CmpFOp::create(b, loc, CmpFPredicate::UNO, x, x);
    better = buildBetter(b, loc, kind, x, y, xIsNaN);
    Value equal = arith::CmpFOp::create(b, loc, CmpFPredicate::OEQ, x, y);
    Value yIsNaN = arith::CmpFOp::create(b, loc, CmpFPredicate::UNO, y, y);
    Value bothNaN = arith::AndIOp::create(b, loc, xIsNaN, yIsNaN);
    same = arith::OrIOp::create(b, loc, equal, bothNaN);
  } else {
    better = buildBetter(b, loc, kind, x, y, Value());
    same = arith::CmpIOp::create(b, loc, CmpIPredicate::eq, x, y);
  }
  Value lower =
      arith::CmpIOp::create(b, loc, CmpIPredicate::slt, xIndex, yIndex);
  Value tie = arith::AndIOp::create(b, loc, same, lower);
  return arith::OrIOp::create(b, loc, better, tie);
}

//===----------------------------------------------------------------------===//
// Matching the payload
//===----------------------------------------------------------------------===//

namespace {
/// Structural matchers of the values buildArgBeats makes; `andi`/`ori`
/// match with their operands in either order (they are commutative, and a
/// canonicalization may swap them).
struct BeatsMatcher {
  ArgReduction kind;
  Value x, xIndex, y, yIndex;

  static bool isCmpF(Value v, CmpFPredicate p, Value lhs, Value rhs) {
    auto cmp = v.getDefiningOp<arith::CmpFOp>();
    return cmp && cmp.getPredicate() == p && cmp.getLhs() == lhs &&
           cmp.getRhs() == rhs;
  }
  static bool isCmpI(Value v, CmpIPredicate p, Value lhs, Value rhs) {
    auto cmp = v.getDefiningOp<arith::CmpIOp>();
    return cmp && cmp.getPredicate() == p && cmp.getLhs() == lhs &&
           cmp.getRhs() == rhs;
  }
  template <typename OpTy>
  static bool isPair(Value v, llvm::function_ref<bool(Value)> one,
                     llvm::function_ref<bool(Value)> other) {
    auto op = v.getDefiningOp<OpTy>();
    return op && ((one(op.getLhs()) && other(op.getRhs())) ||
                  (one(op.getRhs()) && other(op.getLhs())));
  }

  bool isBetter(Value v) const {
    if (!kind.isFloat)
      return isCmpI(v, strictInt(kind), x, y);
    return isPair<arith::OrIOp>(
        v, [&](Value s) { return isCmpF(s, strictFloat(kind), x, y); },
        [&](Value n) {
          return isPair<arith::AndIOp>(
              n, [&](Value a) { return isCmpF(a, CmpFPredicate::UNO, x, x); },
              [&](Value a) { return isCmpF(a, CmpFPredicate::ORD, y, y); });
        });
  }
  bool isSame(Value v) const {
    if (!kind.isFloat)
      return isCmpI(v, CmpIPredicate::eq, x, y);
    return isPair<arith::OrIOp>(
        v, [&](Value e) { return isCmpF(e, CmpFPredicate::OEQ, x, y); },
        [&](Value n) {
          return isPair<arith::AndIOp>(
              n, [&](Value a) { return isCmpF(a, CmpFPredicate::UNO, x, x); },
              [&](Value a) { return isCmpF(a, CmpFPredicate::UNO, y, y); });
        });
  }
  bool isBeats(Value v) const {
    return isPair<arith::OrIOp>(
        v, [&](Value b) { return isBetter(b); },
        [&](Value t) {
          return isPair<arith::AndIOp>(
              t, [&](Value s) { return isSame(s); },
              [&](Value l) {
                return isCmpI(l, CmpIPredicate::slt, xIndex, yIndex);
              });
        });
  }
};
} // namespace

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
  Value inIndex = selIndex.getTrueValue();
  auto cast = inIndex.getDefiningOp<arith::IndexCastOp>();
  auto index = cast ? cast.getIn().getDefiningOp<linalg::IndexOp>() : nullptr;
  if (!index)
    return std::nullopt;
  ArgReduction kind;
  kind.loop = index.getDim();
  if (op.getIteratorTypesArray()[kind.loop] != utils::IteratorType::reduction)
    return std::nullopt;
  Type elementType = in.getType();
  if (elementType.isF32())
    kind.isFloat = true;
  else if (elementType.isInteger(32))
    kind.isFloat = false;
  else
    return std::nullopt;
  for (bool isMin : {true, false}) {
    kind.isMin = isMin;
    BeatsMatcher matcher{kind, in, inIndex, out, outIndex};
    if (matcher.isBeats(selValue.getCondition()))
      return kind;
  }
  return std::nullopt;
}
