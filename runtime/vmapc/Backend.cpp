//===- Backend.cpp - device names to backends -----------------------------===//

#include "vmapc/Backend.h"

#include "vmapc/cpu/CpuDevice.h"
#include "vmapc/cuda/CudaDevice.h"

namespace vmapc {

Status backend::openDevice(std::string_view spec,
                           std::shared_ptr<backend::Device> *out) {
  std::string_view name = spec.substr(0, spec.find(':'));
  std::string_view options =
      name.size() < spec.size() ? spec.substr(name.size() + 1) : "";
  if (name == "cpu")
    return cpu::openCpuDevice(options, out);
  if (name == "cuda")
    return cuda::openCudaDevice(options, out);
  return Status::error(StatusCode::kNotFound, "unknown device '" +
                                                  std::string(spec) +
                                                  "' (available: cpu, cuda)");
}

} // namespace vmapc
