//===- FastMath.cpp - the one fast-math liberty: FMA contraction ----------===//

#include "passes/Codegen/FastMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

void vmapc::allowFmaContraction(Operation *root, ContractionScope scope) {
  root->walk([&](arith::ArithFastMathInterface op) {
    if (scope == ContractionScope::MulAddSub &&
        !isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
      return;
    arith::FastMathFlags flags = arith::FastMathFlags::contract;
    if (arith::FastMathFlagsAttr old = op.getFastMathFlagsAttr())
      flags = flags | old.getValue();
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), flags));
  });
}
