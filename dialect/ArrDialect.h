//===- ArrDialect.h - the arr dialect ---------------------------*- C++ -*-===//
//
// Ops, the dialect and the batching interface, generated from ArrDialect.td,
// ArrOps.td and BatchingOpInterface.td.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_DIALECT_ARRDIALECT_H
#define VMAPC_DIALECT_ARRDIALECT_H

#include "dialect/Batching.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/ArrDialect.h.inc"
#include "dialect/ArrEnums.h.inc"
#include "dialect/BatchingOpInterface.h.inc"

#define GET_OP_CLASSES
#include "dialect/ArrOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace vmapc::arr {
/// Attaches the batching rules of ops from other dialects (`func.call`:
/// batch the callee for the call's batching signature).
void registerExternalBatchingModels(mlir::DialectRegistry &registry);
} // namespace vmapc::arr

#endif // VMAPC_DIALECT_ARRDIALECT_H
