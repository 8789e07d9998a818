//===- KernelDescriptor.h - a kernel's descriptor as a module global -*- C++
//-*-===//
//
// Every kernel of an artifact, CPU or CUDA, carries
// `vmapc_kernel_NAME_descriptor`: the runtime's KernelDescriptor
// (runtime/vmapc/ArtifactFormat.h), which it reads from the loaded code (dlsym
// on the CPU, cuModuleGetGlobal on CUDA) and checks against the manifest before
// any launch.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_KERNELDESCRIPTOR_H
#define VMAPC_PASSES_CODEGEN_KERNELDESCRIPTOR_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace vmapc {

/// Creates, at `b`'s insertion point, the constant external global
/// `KERNEL_descriptor` (KERNEL = `kernelSymbol`, e.g.
/// "vmapc_kernel_f_dispatch_0") holding the KernelDescriptor of a kernel with
/// `bindingBytes.size()` bindings (each the bytes the kernel accesses through
/// it) and `numScalars` scalars: the magic "VMK4", the binding count, the
/// scalar count, 0 (u32 each), then one u64 per binding. It is written as an
/// array of little-endian i64 words (the u32 fields in pairs), 8-byte aligned:
/// the same bytes on every target.
mlir::LLVM::GlobalOp
createKernelDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                       llvm::StringRef kernelSymbol, unsigned numScalars,
                       llvm::ArrayRef<int64_t> bindingBytes);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_KERNELDESCRIPTOR_H
