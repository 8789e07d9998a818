//===- CpuObject.h - LLVM dialect to a loadable shared object ---*- C++ -*-===//

#ifndef VMAPC_CODEGEN_CPUOBJECT_H
#define VMAPC_CODEGEN_CPUOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <string>

namespace vmapc {

/// Registers LLVM's x86-64 target; once, before emitCpuObjectFile runs (on
/// any number of threads at once).
void initializeCpuTarget();

/// Translates `module` (LLVM dialect) to LLVM IR, optimises it (LLVM's O2
/// pipeline with unrolling and the loop vectorizer, no SLP) and returns a
/// position-independent ELF relocatable object for the x86-64 ISA level
/// `level` (x86-64, x86-64-v3 or x86-64-v4: LLVM's CPU of that name), made
/// by LLVM's TargetMachine in an LLVMContext of its own (any number of
/// modules at once, on their own threads). With `withLevelSymbol`, the
/// object defines kCodeLevelSymbol (ArtifactFormat.h), the level's name,
/// which exactly one object of a shared object must. Errors are emitted on
/// `module`. The translation, LLVM's optimisation and its code generation
/// are timed under `timing` (`--mlir-timing`; an empty scope times nothing).
mlir::FailureOr<std::string> emitCpuObjectFile(mlir::ModuleOp module,
                                               llvm::StringRef level,
                                               bool withLevelSymbol,
                                               mlir::TimingScope timing = {});

/// Runs the kernels' LLVM pass pipeline, what emitCpuObjectFile runs between
/// translating and generating code, on `module` (LLVM IR of kernels) for
/// the ISA level `level`, and sets the module's triple and data layout to
/// the level's. The pipeline is O2's passes for code the MLIR pipeline has
/// vectorized, less what finds nothing there; LLVM's loop vectorizer and
/// run-time unrolling take the loops that hold no vector code and no block
/// move, and a row's later passes prefetch the next row and the rows that
/// later loops store (KernelLoopPasses.h; CpuObject.cpp has the list and the
/// measurements).
/// initializeCpuTarget must have run.
llvm::Error optimizeCpuKernels(llvm::Module &module, llvm::StringRef level);

/// Links `objects` (emitCpuObjectFile's, in this order) into one ELF shared
/// object with the system linker `ld` (`-shared`, no start files; plus
/// `--as-needed -lm -lc --no-undefined` when an object calls anything
/// besides memcpy, memmove and memset, which the process that dlopens it
/// binds). `*sharedObject` gets the file's bytes; errors (no `ld`, a failed
/// link with its log) are emitted on `op`.
mlir::LogicalResult linkCpuSharedObject(mlir::Operation *op,
                                        llvm::ArrayRef<std::string> objects,
                                        std::string *sharedObject);

} // namespace vmapc

#endif // VMAPC_CODEGEN_CPUOBJECT_H
