//===- TestDialect.cpp - test-only ops ------------------------------------===//

#include "test/lib/TestDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace vmapc::arr_test;

#include "test/lib/TestDialect.cpp.inc"

#define GET_OP_CLASSES
#include "test/lib/TestOps.cpp.inc"

void ArrTestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "test/lib/TestOps.cpp.inc"
      >();
}

void vmapc::arr_test::registerTestDialect(DialectRegistry &registry) {
  registry.insert<ArrTestDialect>();
}
