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

namespace vmapc::arr {
/// Checks that every operand and result of `op` is a statically shaped
/// tensor within the size limits of dialect/Limits.h.
mlir::LogicalResult verifyWithinSizeLimits(mlir::Operation *op);

/// The op trait of every arr op (ArrDialect.td): verifyWithinSizeLimits.
template <typename ConcreteType>
class WithinSizeLimits
    : public mlir::OpTrait::TraitBase<ConcreteType, WithinSizeLimits> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyWithinSizeLimits(op);
  }
};
} // namespace vmapc::arr

#include "dialect/ArrDialect.h.inc"
#include "dialect/ArrEnums.h.inc"
#include "dialect/BatchingOpInterface.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/ArrAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialect/ArrOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace vmapc::arr {
/// Whether `op` is an entry point: a function marked `arr.batch` (which the
/// dialect verifies is a public func.func with a body).
bool isEntry(mlir::Operation *op);

/// Whether argument `arg` of entry `fn` is donated (an output is marked
/// `arr.donated_from` with its index): writable, and computed in place.
bool isDonated(mlir::func::FuncOp fn, unsigned arg);

/// Whether argument `arg` of entry `fn` is an input its `arr.in_axes` marks
/// unmapped (`unit`: shared by every example, never written).
bool isUnmappedInput(mlir::func::FuncOp fn, unsigned arg);

/// Attaches the batching rules of ops from other dialects (`func.call`:
/// batch the callee for the call's batching signature).
void registerExternalBatchingModels(mlir::DialectRegistry &registry);
} // namespace vmapc::arr

#endif // VMAPC_DIALECT_ARRDIALECT_H
