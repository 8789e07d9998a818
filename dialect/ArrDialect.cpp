//===- ArrDialect.cpp - the arr dialect -----------------------------------===//

#include "dialect/ArrDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace vmapc::arr;

#include "dialect/ArrDialect.cpp.inc"
#include "dialect/ArrEnums.cpp.inc"
#include "dialect/BatchingOpInterface.cpp.inc"

namespace {
/// Every arr op is pure, so any of them may be inlined, and calls inside an
/// `arr.for` body may be inlined there: inlining turns each entry into one
/// schedule of ops and loops.
struct ArrInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void ArrDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/ArrOps.cpp.inc"
      >();
  addInterfaces<ArrInlinerInterface>();
}

Operation *ArrDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
