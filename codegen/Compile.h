//===- Compile.h - from arr IR to a .vmapc artifact -------------*- C++ -*-===//
//
// The compiler's back half, shared by `vmapc compile`, `vmapc run` (which
// compiles a .arr in memory) and `vmapc plan`: run the pipelines of
// passes/Pipelines.h, read each entry's manifest off the planned program,
// emit native code and assemble the artifact of runtime/vmapc/ArtifactFormat.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEGEN_COMPILE_H
#define VMAPC_CODEGEN_COMPILE_H

#include "vmapc/ArtifactFormat.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace vmapc {

/// Runs arr-to-linalg and arr-bufferize on `module` (arr IR as imported from
/// .arr): afterwards every entry is a planned memref function with `arr.plan`.
/// Errors are emitted as diagnostics.
mlir::LogicalResult lowerToPlannedBuffers(mlir::ModuleOp module);

/// Reads the manifest of every entry (public function with `arr.batch`) of a
/// planned module: names, dtypes, per-example shapes, axes, B, arena and
/// staging offsets, plan figures. `entries` is filled in module order. An
/// entry that breaks a rule of the artifact format (validateEntry: a name
/// too long, too many arguments, a size past 2^62 bytes, ...) is an error
/// at its function's location, the export.
mlir::LogicalResult readManifest(mlir::ModuleOp module,
                                 std::vector<EntryInfo> &entries,
                                 const std::vector<KernelInfo> &kernels);

/// Compiles `module` (arr IR as imported) for the CPU into `artifact`: the
/// kernels and each entry's schedule, and one shared object per ISA level
/// of `isaLevels` (default: x86-64, x86-64-v3 and x86-64-v4), each
/// exporting `vmapc_kernel_NAME` and its descriptor per kernel. Needs a
/// system C compiler driver (`cc`) to link the objects.
mlir::LogicalResult compileForCpu(mlir::ModuleOp module, Artifact &artifact,
                                  llvm::ArrayRef<std::string> isaLevels = {});

} // namespace vmapc

#endif // VMAPC_CODEGEN_COMPILE_H
