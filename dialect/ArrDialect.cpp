//===- ArrDialect.cpp - the arr dialect -----------------------------------===//

#include "dialect/ArrDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace vmapc::arr;

#include "dialect/ArrDialect.cpp.inc"
#include "dialect/ArrEnums.cpp.inc"
#include "dialect/BatchingOpInterface.cpp.inc"

void ArrDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/ArrOps.cpp.inc"
      >();
}

Operation *ArrDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
