//===- CpuObject.h - LLVM dialect to a loadable shared object ---*- C++ -*-===//

#ifndef VMAPC_CODEGEN_CPUOBJECT_H
#define VMAPC_CODEGEN_CPUOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace vmapc {

/// Registers LLVM's x86-64 target; once, before emitCpuSharedObject runs
/// (on any number of threads at once).
void initializeCpuTarget();

/// Translates `module` (LLVM dialect) to LLVM IR, optimises it (LLVM's O2
/// pipeline with unrolling and the loop vectorizer, no SLP) and
/// emits a position-independent object for the x86-64 ISA level `level`
/// (x86-64, x86-64-v3 or x86-64-v4: LLVM's CPU of that name) with LLVM's
/// TargetMachine, then links it into an ELF shared object with the system
/// linker `ld` (`-shared`, no start files; plus `--as-needed -lm -lc
/// --no-undefined` when the object calls anything besides memcpy, memmove
/// and memset, which the process that dlopens it binds). `*sharedObject`
/// gets the file's bytes.
mlir::LogicalResult emitCpuSharedObject(mlir::ModuleOp module,
                                        llvm::StringRef level,
                                        std::string *sharedObject);

} // namespace vmapc

#endif // VMAPC_CODEGEN_CPUOBJECT_H
