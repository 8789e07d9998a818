//===- CudaCodeCheck.cpp - what a CUDA code object must be ----------------===//

#include "vmapc/cuda/CudaCodeCheck.h"

#include "vmapc/ElfObject.h"

#include <algorithm>
#include <cctype>

namespace vmapc {
namespace cuda {

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}
static Status outOfRange(std::string message) {
  return Status::error(StatusCode::kOutOfRange, std::move(message));
}

/// A cubin: a little-endian ELF64 object for NVIDIA GPUs (EM_CUDA, 190).
/// PTX: text without a NUL byte.
static Status validateCudaCode(const std::string &where, CodeKind kind,
                               std::string_view c) {
  if (kind == CodeKind::CudaPtx) {
    size_t nul = c.find('\0');
    if (nul != std::string_view::npos)
      return invalid(where + " is PTX with a NUL byte at offset " +
                     std::to_string(nul));
    return Status();
  }
  uint16_t type = 0, machine = 0;
  if (!readElfHeader(c, &type, &machine) || machine != 190 /*EM_CUDA*/)
    return invalid(where + " is not a CUDA cubin (an ELF object for NVIDIA "
                           "GPUs, EM_CUDA)");
  return validateElfLayout(where, c, /*needsLoad=*/false);
}

/// "sm_" and 2 or 3 digits.
static bool isSmArchitecture(const std::string &level) {
  if (level.size() < 5 || level.size() > 6 || level.compare(0, 3, "sm_") != 0)
    return false;
  return std::all_of(level.begin() + 3, level.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

/// The launch records of CUDA object `where` against the kernels.
static Status validateLaunches(const std::string &where, const CodeObject &o,
                               const std::vector<KernelInfo> &kernels) {
  if (o.launches.size() != kernels.size())
    return invalid(where + ": " + std::to_string(o.launches.size()) +
                   " launch records for " + std::to_string(kernels.size()) +
                   " kernels");
  for (size_t k = 0; k < kernels.size(); ++k) {
    const GpuLaunch &l = o.launches[k];
    std::string at = where + ": kernel '" + kernels[k].name + "': ";
    for (int d = 0; d < 3; ++d)
      if (l.block[d] == 0)
        return invalid(at + "block dimension " + "xyz"[d] +
                       " is 0 (each is at least 1)");
    // Each dimension past the limit makes the product pass it too; below
    // it, the product fits in 64 bits.
    uint64_t threads = 1;
    for (uint32_t b : l.block)
      threads *= std::min<uint64_t>(b, kMaxGpuThreadsPerBlock + 1);
    if (threads > kMaxGpuThreadsPerBlock)
      return outOfRange(at + "a block of " + std::to_string(l.block[0]) +
                        " x " + std::to_string(l.block[1]) + " x " +
                        std::to_string(l.block[2]) + " threads, more than " +
                        std::to_string(kMaxGpuThreadsPerBlock));
    if (l.sharedBytes > kMaxGpuSharedBytes)
      return outOfRange(at + std::to_string(l.sharedBytes) +
                        " bytes of dynamic shared memory, more than " +
                        std::to_string(kMaxGpuSharedBytes));
  }
  return Status();
}

static Status checkLevel(const std::string &where, const std::string &level) {
  if (!isSmArchitecture(level))
    return invalid(where + ": SM architecture '" + level +
                   "' is not sm_ and 2 or 3 digits (sm_90)");
  return Status();
}

static Status checkObject(const std::string &where, const CodeObject &o,
                          std::string_view code,
                          const std::vector<KernelInfo> &kernels) {
  if (!o.cpuFeatures.empty())
    return invalid(where + ": a CUDA object has no CPU features, it has " +
                   std::to_string(o.cpuFeatures.size()));
  VMAPC_RETURN_IF_ERROR(validateLaunches(where, o, kernels));
  return validateCudaCode(where, o.kind, code);
}

const CodeObjectCheck kCudaCubinCheck = {checkLevel, "CUDA cubin object",
                                         checkObject, "a CUDA code object"};
const CodeObjectCheck kCudaPtxCheck = {checkLevel, "CUDA PTX object",
                                       checkObject, "a CUDA code object"};

} // namespace cuda
} // namespace vmapc
