//===- TestDialect.h - test-only ops ----------------------------*- C++ -*-===//

#ifndef VMAPC_TEST_LIB_TESTDIALECT_H
#define VMAPC_TEST_LIB_TESTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "test/lib/TestDialect.h.inc"

#define GET_OP_CLASSES
#include "test/lib/TestOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace vmapc::arr_test {
void registerTestDialect(mlir::DialectRegistry &registry);
} // namespace vmapc::arr_test

#endif // VMAPC_TEST_LIB_TESTDIALECT_H
