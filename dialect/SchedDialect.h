//===- SchedDialect.h - the sched dialect -----------------------*- C++ -*-===//
//
// Entry points as schedules of kernel dispatches (SchedDialect.td): the ops,
// the dialect with its discardable attributes, and the bufferization model
// of `sched.dispatch`.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_DIALECT_SCHEDDIALECT_H
#define VMAPC_DIALECT_SCHEDDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialect/SchedDialect.h.inc"

#define GET_OP_CLASSES
#include "dialect/SchedOps.h.inc"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace vmapc::sched {

/// Attaches the one-shot bufferization model of `sched.dispatch`
/// (destination-passing style: result i is equivalent to init i).
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

/// Whether `fn` is a kernel (`sched.kernel`).
bool isKernel(mlir::Operation *fn);

/// Whether the kernel of `dispatch` reads the prior contents of its output
/// binding `output` (an update in place: a scatter's destination, a loop
/// carry updated with `.at[]`) rather than only writing a result into it.
/// True for an external or missing kernel.
bool readsOutput(DispatchOp dispatch, unsigned output);

/// Whether `kernel` only copies one binding into another (a copy that
/// bufferization made, outlined by arr-copies-to-dispatches).
bool isCopyKernel(mlir::func::FuncOp kernel);

/// The bytes of a binding of type `type` (a statically shaped memref; an
/// i1 takes one byte), or nullopt for a dynamic shape.
std::optional<uint64_t> bindingBytes(mlir::MemRefType type);

/// The number of workgroups along one grid dimension for a chunk of
/// `numExamples` examples, from an entry of `sched.workgroup_count`: a
/// positive constant c, or -T for ceil(n / T).
int64_t workgroupCount(int64_t encoded, int64_t numExamples);

} // namespace vmapc::sched

#endif // VMAPC_DIALECT_SCHEDDIALECT_H
