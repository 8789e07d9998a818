//===- CudaObject.h - NVVM kernels to PTX and an sm_XX cubin ----*- C++ -*-===//

#ifndef VMAPC_CODEGEN_CUDAOBJECT_H
#define VMAPC_CODEGEN_CUDAOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace vmapc {

/// The CUDA toolkit root: `$CUDA_HOME` if set, else /usr/local/cuda.
std::string defaultCudaToolkit();

/// Serializes the `gpu.module @vmapc_kernels` of `module` (NVVM dialect,
/// after buildCudaKernelPipeline; it carries an `#nvvm.target`) to PTX with
/// upstream's gpu-module-to-binary (LLVM's NVPTX back end, libdevice from
/// `toolkit` linked in), then assembles the PTX for `chip` (e.g. "sm_90")
/// with the toolkit's `ptxas -O3` into a cubin. Errors (emitted on
/// `module`): no such gpu.module, a missing ptxas ("vmapc needs the CUDA
/// toolkit's ptxas for --target=cuda: none at TOOLKIT/bin/ptxas; set
/// CUDA_HOME"), ptxas's own errors with its log.
mlir::LogicalResult emitCudaObjects(mlir::ModuleOp module, llvm::StringRef chip,
                                    llvm::StringRef toolkit, std::string *ptx,
                                    std::string *cubin);

} // namespace vmapc

#endif // VMAPC_CODEGEN_CUDAOBJECT_H
