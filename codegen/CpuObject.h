//===- CpuObject.h - LLVM dialect to a loadable shared object ---*- C++ -*-===//

#ifndef VMAPC_CODEGEN_CPUOBJECT_H
#define VMAPC_CODEGEN_CPUOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace vmapc {

/// Translates `module` (LLVM dialect) to LLVM IR, optimises it at -O3 and
/// emits a position-independent object for generic x86-64 (`-mcpu=x86-64`)
/// with LLVM's TargetMachine, then links it into an ELF shared object with
/// the system `cc` (`-shared -lm`). `*sharedObject` gets the file's bytes.
mlir::LogicalResult emitCpuSharedObject(mlir::ModuleOp module,
                                        std::string *sharedObject);

} // namespace vmapc

#endif // VMAPC_CODEGEN_CPUOBJECT_H
