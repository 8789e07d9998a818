//===- CudaObject.cpp - NVVM kernels to PTX and an sm_XX cubin ------------===//

#include "codegen/CudaObject.h"
#include "codegen/ExternalTool.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

std::string vmapc::defaultCudaToolkit() {
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    return home;
  return "/usr/local/cuda";
}

LogicalResult vmapc::emitCudaObjects(ModuleOp module, StringRef chip,
                                     StringRef toolkit, std::string *ptx,
                                     std::string *cubin) {
  if (!module.lookupSymbol<gpu::GPUModuleOp>("vmapc_kernels"))
    return module.emitError("has no gpu.module @vmapc_kernels to serialize");
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = toolkit.str();
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(module)))
    return failure();
  auto object = module.lookupSymbol<gpu::BinaryOp>("vmapc_kernels");
  if (!object || object.getObjects().size() != 1)
    return module.emitError("gpu-module-to-binary made no single PTX object");
  StringRef text =
      cast<gpu::ObjectAttr>(object.getObjects()[0]).getObject().getValue();
  *ptx = text.rtrim('\0').str();

  llvm::SmallString<128> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  if (!llvm::sys::fs::can_execute(ptxas))
    return module.emitError("vmapc needs the CUDA toolkit's ptxas for "
                            "--target=cuda: none at ")
           << ptxas << "; set CUDA_HOME";
  // Assemble: `ptxas -O3 -arch=CHIP -o CUBIN PTX`.
  std::string arch = ("-arch=" + chip).str();
  std::string failureMessage = "ptxas " + arch + " failed: ";
  auto commandLine = [&](ArrayRef<StringRef> ptxFiles, StringRef cubinFile) {
    return llvm::SmallVector<StringRef>{ptxas, "-O3",     arch,
                                        "-o",  cubinFile, ptxFiles.front()};
  };
  ExternalToolRun assemble{ptxas,          "ptx",
                           "cubin",        commandLine,
                           failureMessage, "cannot read the cubin ptxas wrote"};
  FailureOr<std::string> bytes =
      runExternalTool(module, assemble, StringRef(*ptx));
  if (failed(bytes))
    return failure();
  *cubin = std::move(*bytes);
  return success();
}
