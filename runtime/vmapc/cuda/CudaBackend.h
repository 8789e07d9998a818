//===- CudaBackend.h - the CUDA device and executable -----------*- C++ -*-===//
//
// The classes behind cuda/CudaDevice.h: CudaDevice (the GPU, its primary
// context and limits; loading in CudaDevice.cpp) and CudaExecutable (one
// loaded artifact: module, kernels, arena, pinned staging, stream; the run
// in CudaExecutable.cpp). Internal; needs cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CUDA_CUDABACKEND_H
#define VMAPC_CUDA_CUDABACKEND_H

#include "vmapc/Backend.h"
#include "vmapc/cuda/CudaDriver.h"

#include <memory>
#include <string>
#include <vector>

namespace vmapc {
namespace cuda {

/// What the loader checks of a GPU (cuDeviceGetAttribute).
struct DeviceLimits {
  int computeMajor = 0, computeMinor = 0;
  uint64_t maxGrid[3] = {0, 0, 0};
  uint32_t maxBlock[3] = {0, 0, 0};
  uint32_t maxThreadsPerBlock = 0;
  /// Dynamic shared memory a block may opt in to (bytes).
  uint32_t maxSharedOptIn = 0;
  /// The largest pitch of a 2-D copy (bytes).
  uint64_t maxPitch = 0;

  /// "sm_90".
  std::string architecture() const {
    return "sm_" + std::to_string(computeMajor * 10 + computeMinor);
  }
};

/// One GPU, opened: the driver, the retained primary context.
class CudaDevice final : public backend::Device {
public:
  std::shared_ptr<const Driver> driver;
  int ordinal = 0;
  CUdevice device = 0;
  /// Retained at open, released in the destructor.
  CUcontext context = nullptr;
  std::string name;
  DeviceLimits limits;

  ~CudaDevice() override;
  Status load(const Artifact &artifact,
              const std::vector<std::string_view> &code, uint64_t arenaBytes,
              std::unique_ptr<backend::Executable> *out) override;
  /// "cuda:0: NVIDIA H200 (sm_90), CUDA driver 13.0".
  std::string describe() const override;
  /// "cuda:0".
  std::string spec() const { return "cuda:" + std::to_string(ordinal); }
};

/// One artifact loaded on a CudaDevice. The device outlives it (the
/// executable's owner holds the device).
class CudaExecutable final : public backend::Executable {
public:
  explicit CudaExecutable(const CudaDevice &device);
  ~CudaExecutable() override;

  /// Makes what a run needs: the arena, the pinned staging, the stream,
  /// the event, room for the kernels' parameters and pending downloads.
  /// The arena is `arenaAlignment` aligned (a power of two: arenaAlignmentOf).
  /// `pinnedBytes` and `maxPending` as CudaDevice::load computes them.
  Status allocate(uint64_t arenaBytes, size_t arenaAlignment,
                  uint64_t pinnedBytes, size_t maxParams, size_t maxPending);

  backend::Address arena() const override { return arenaAddress; }
  bool bindsHostMemory() const override { return false; }
  Status beginRun(const RunOptions &options) override;
  Status upload(backend::Address dst, uint64_t dstPitch, const void *src,
                uint64_t srcPitch, uint64_t rowBytes, uint64_t rows) override;
  Status download(void *dst, uint64_t dstPitch, backend::Address src,
                  uint64_t srcPitch, uint64_t rowBytes, uint64_t rows) override;
  Status copyOnDevice(backend::Address dst, uint64_t dstPitch,
                      backend::Address src, uint64_t srcPitch,
                      uint64_t rowBytes, uint64_t rows) override;
  Status dispatch(uint32_t kernel, const uint64_t grid[3],
                  const backend::Address *bindings,
                  const int64_t *scalars) override;
  Status endRun(Status status) override;
  const std::string &codeLevel() const override { return level; }
  uint64_t deviceAllocations() const override { return allocations; }

  /// Set by CudaDevice::load.
  CUmodule module = nullptr;
  std::string level;
  struct Kernel {
    std::string name;
    CUfunction function = nullptr;
    GpuLaunch launch;
    uint32_t numBindings = 0, numScalars = 0;
  };
  std::vector<Kernel> kernels;

private:
  /// A copy from pinned staging to a caller's host array, done once the
  /// stream has moved the bytes into the staging.
  struct PendingDownload {
    unsigned char *dst;
    uint64_t dstPitch;
    const unsigned char *staged;
    uint64_t rowBytes, rows;
  };

  /// A copy of `rows` rows of `rowBytes` bytes on the stream, between any
  /// two of host and device memory (rows `dstPitch` and `srcPitch` apart):
  /// one 1-D copy when the rows are contiguous on both sides, else one
  /// cuMemcpy2DAsync, else (a pitch past the GPU's limit) one per row.
  Status copyAsync(CUmemorytype dstType, uint64_t dst, uint64_t dstPitch,
                   CUmemorytype srcType, uint64_t src, uint64_t srcPitch,
                   uint64_t rowBytes, uint64_t rows);
  /// Waits for the stream, then completes the pending downloads; the
  /// pinned staging is free again.
  Status flush();
  /// `bytes` of pinned staging for the next copy, after a flush if it is
  /// full: at `*out`.
  Status reserve(uint64_t bytes, unsigned char **out);

  const CudaDevice &device;
  const DriverApi &api;
  CUdeviceptr arenaPointer = 0;
  backend::Address arenaAddress = 0;
  unsigned char *pinned = nullptr;
  uint64_t pinnedBytes = 0;
  uint64_t pinnedUsed = 0;
  CUstream ownStream = nullptr;
  /// Recorded at the end of each run on its stream.
  CUevent done = nullptr;
  uint64_t allocations = 0;
  std::vector<uint64_t> paramValues;
  std::vector<void *> paramPointers;
  std::vector<PendingDownload> pending;
  size_t numPending = 0;

  /// The run in progress.
  CUstream stream = nullptr;
  bool leaveOnStream = false;
  bool contextPushed = false;
  /// The stream of the last run, and whether one ran.
  CUstream lastStream = nullptr;
  bool ranBefore = false;
};

} // namespace cuda
} // namespace vmapc

#endif // VMAPC_CUDA_CUDABACKEND_H
