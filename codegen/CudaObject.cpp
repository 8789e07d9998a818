//===- CudaObject.cpp - NVVM kernels to PTX and an sm_XX cubin ------------===//

#include "codegen/CudaObject.h"

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

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

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
  TempFile ptxFile, cubinFile, logFile;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("vmapc", "ptx", fd, ptxFile.path))
    return module.emitError("cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << *ptx;
  }
  if (llvm::sys::fs::createTemporaryFile("vmapc", "cubin", cubinFile.path) ||
      llvm::sys::fs::createTemporaryFile("vmapc", "log", logFile.path))
    return module.emitError("cannot create a temporary file");
  std::string arch = ("-arch=" + chip).str();
  llvm::SmallVector<StringRef> args = {ptxas, "-O3",          arch,
                                       "-o",  cubinFile.path, ptxFile.path};
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.path,
                                          logFile.path};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0,
                                     &error);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(logFile.path);
    return module.emitError("ptxas ")
           << arch << " failed: " << error << (log ? (*log)->getBuffer() : "");
  }
  auto bytes = llvm::MemoryBuffer::getFile(cubinFile.path);
  if (!bytes || (*bytes)->getBufferSize() == 0)
    return module.emitError("cannot read the cubin ptxas wrote");
  *cubin = (*bytes)->getBuffer().str();
  return success();
}
