//===- CodeObjectChecks.cpp - code kinds to their backends' checks --------===//
//
// Like Backend.cpp for device names: the one place that lists the backends,
// here by the kind of code object each runs. The CUDA checks are built with
// or without the CUDA backend (they need no cuda.h): the compiler writes
// CUDA artifacts, and a runtime without CUDA still reads them.
//
//===----------------------------------------------------------------------===//

#include "vmapc/CodeObjectCheck.h"

#include "vmapc/cpu/CpuCodeCheck.h"
#include "vmapc/cuda/CudaCodeCheck.h"

namespace vmapc {

const CodeObjectCheck *codeObjectCheck(CodeKind kind) {
  switch (kind) {
  case CodeKind::CpuElf:
    return &cpu::kCpuElfCheck;
  case CodeKind::CudaCubin:
    return &cuda::kCudaCubinCheck;
  case CodeKind::CudaPtx:
    return &cuda::kCudaPtxCheck;
  }
  return nullptr;
}

} // namespace vmapc
