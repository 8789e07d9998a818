//===- BindingAccess.h - what a kernel does through each binding -*- C++
//-*-===//
//
// A kernel's bindings (its memref arguments) are read, written, or both; the
// artifact records which (runtime/include/vmapc/Schedule.h, BindingAccess),
// in the manifest and in the kernel's descriptor in the code, so that the
// loader refuses a schedule that binds a caller's input to a binding the
// kernel writes, or leaves an output unwritten.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_BINDINGACCESS_H
#define VMAPC_PASSES_CODEGEN_BINDINGACCESS_H

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/SmallVector.h"

namespace vmapc {

/// Per memref argument of `kernel` (bindings, in order), its access as a
/// BindingAccess value (1 read, 2 write, 3 read-write), read off the
/// memory effects (MemoryEffectOpInterface) of every op that uses the
/// argument or a view of it (any memref an op without memory effects makes
/// from it: subview, cast, reshape). An op that uses one without declaring
/// its effects counts as reading and writing it: the record errs towards
/// "writes", never the other way. A binding nothing touches reads as read.
llvm::SmallVector<int64_t> bindingAccess(mlir::FunctionOpInterface kernel);

/// Sets `sched.binding_access` (SchedDialect.td) on `kernel` from
/// bindingAccess.
void setBindingAccess(mlir::FunctionOpInterface kernel);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_BINDINGACCESS_H
