//===- KernelDescriptor.h - a kernel's descriptor as a global ---*- C++ -*-===//
//
// Every kernel of an artifact, CPU or CUDA, carries
// `vmapc_kernel_NAME_descriptor`: the runtime's KernelDescriptor
// (runtime/include/vmapc/ArtifactFormat.h), which it reads from the loaded code
// (dlsym on the CPU, cuModuleGetGlobal on CUDA) and checks against the
// manifest before any launch.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_KERNELDESCRIPTOR_H
#define VMAPC_PASSES_CODEGEN_KERNELDESCRIPTOR_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace vmapc {

/// Creates, at `b`'s insertion point, the constant external global
/// `KERNEL_descriptor` (KERNEL = `kernelSymbol`, e.g.
/// "vmapc_kernel_f_dispatch_0") holding the KernelDescriptor (version 5,
/// "VMK5") of `kernel`, read off its attributes: `sched.binding_bytes`,
/// `sched.binding_access` and `sched.workgroup_count` (none: one
/// workgroup, 1 x 1 x 1), and with
/// `withScratch` (CPU) `sched.scratch_bytes` (else 0: a CUDA kernel's
/// scratch is its launch's shared memory), and the launch: without
/// `withScratch` (CUDA) the block of `known_block_size` and
/// `sched.scratch_bytes` of dynamic shared memory, as the launch record
/// says; on the CPU 1 x 1 x 1 and 0. Written as an array of
/// little-endian i64 words (u32 fields in pairs), 8-byte aligned: the same
/// bytes on every target. Fails, with an error on `kernel`, when the
/// binding attributes are missing or an attribute has the wrong size.
mlir::FailureOr<mlir::LLVM::GlobalOp>
createKernelDescriptor(mlir::OpBuilder &b, mlir::Operation *kernel,
                       llvm::StringRef kernelSymbol, unsigned numScalars,
                       bool withScratch);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_KERNELDESCRIPTOR_H
