//===- NoCudaDevice.cpp - the cuda device of a runtime without CUDA -------===//
//
// Built instead of the CUDA backend when CMake found no cuda.h (or
// VMAPC_CUDA=OFF): opening "cuda" says so.
//
//===----------------------------------------------------------------------===//

#include "vmapc/cuda/CudaDevice.h"

namespace vmapc {
namespace cuda {

Status openCudaDevice(std::string_view, std::shared_ptr<backend::Device> *) {
  return Status::error(StatusCode::kUnimplemented,
                       "no CUDA device: this runtime was built without CUDA "
                       "support (no cuda.h at build time, or VMAPC_CUDA=OFF)");
}

} // namespace cuda
} // namespace vmapc
