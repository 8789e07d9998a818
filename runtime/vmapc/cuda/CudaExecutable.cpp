//===- CudaExecutable.cpp - a loaded artifact on a GPU: copies, launches --===//

#include "vmapc/cuda/CudaBackend.h"

#include <algorithm>
#include <cstring>

namespace vmapc {
namespace cuda {

namespace {
/// Each stretch of pinned staging starts at a multiple of this (bytes).
constexpr uint64_t kStagingAlignment = 16;
} // namespace

CudaExecutable::CudaExecutable(const CudaDevice &device)
    : device(device), api(device.driver->api()) {}

CudaExecutable::~CudaExecutable() {
  ContextScope scope(*device.driver, device.context);
  // Work a run left on a caller's stream may still use the arena.
  if (done) {
    (void)api.eventSynchronize(done);
    (void)api.eventDestroy(done);
  }
  if (ownStream) {
    (void)api.streamSynchronize(ownStream);
    (void)api.streamDestroy(ownStream);
  }
  if (module)
    (void)api.moduleUnload(module);
  if (arenaPointer)
    (void)api.memFree(arenaPointer);
  if (pinned)
    (void)api.memFreeHost(pinned);
}

Status CudaExecutable::allocate(uint64_t arenaBytes, size_t arenaAlignment,
                                uint64_t stagingBytes, size_t maxParams,
                                size_t maxPending) {
  const Driver &driver = *device.driver;
  // cuMemAlloc aligns to 256 bytes at least; past that, room to align up
  // (both below 2^62 + 4096: no wrap).
  uint64_t slack = arenaAlignment > kArenaAlignment ? arenaAlignment - 1 : 0;
  VMAPC_RETURN_IF_ERROR(
      driver.check(api.memAlloc(&arenaPointer, arenaBytes + slack),
                   ("cuMemAlloc of the arena (" +
                    std::to_string(arenaBytes + slack) + " bytes)")
                       .c_str()));
  ++allocations;
  arenaAddress = (backend::Address(arenaPointer) + slack) /
                 std::max<size_t>(arenaAlignment, 1) *
                 std::max<size_t>(arenaAlignment, 1);
  void *host = nullptr;
  VMAPC_RETURN_IF_ERROR(driver.check(api.memHostAlloc(&host, stagingBytes, 0),
                                     ("cuMemHostAlloc of the pinned staging (" +
                                      std::to_string(stagingBytes) + " bytes)")
                                         .c_str()));
  ++allocations;
  pinned = static_cast<unsigned char *>(host);
  pinnedBytes = stagingBytes;
  VMAPC_RETURN_IF_ERROR(driver.check(
      api.streamCreate(&ownStream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"));
  VMAPC_RETURN_IF_ERROR(driver.check(
      api.eventCreate(&done, CU_EVENT_DISABLE_TIMING), "cuEventCreate"));
  paramValues.assign(maxParams, 0);
  paramPointers.resize(maxParams);
  for (size_t i = 0; i < maxParams; ++i)
    paramPointers[i] = &paramValues[i];
  pending.resize(maxPending);
  return Status();
}

Status CudaExecutable::beginRun(const RunOptions &options) {
  const Driver &driver = *device.driver;
  VMAPC_RETURN_IF_ERROR(
      driver.check(api.ctxPushCurrent(device.context), "cuCtxPushCurrent"));
  contextPushed = true;
  stream = options.stream ? static_cast<CUstream>(options.stream) : ownStream;
  leaveOnStream = options.deviceArrays && options.stream;
  pinnedUsed = 0;
  numPending = 0;
  // The run before, on another stream, may still use the arena.
  if (ranBefore && lastStream != stream)
    if (CUresult r = api.streamWaitEvent(stream, done, 0))
      return endRun(driver.error(r, "cuStreamWaitEvent (the run before)"));
  return Status();
}

Status CudaExecutable::endRun(Status status) {
  const Driver &driver = *device.driver;
  if (status.ok()) {
    if (CUresult r = api.eventRecord(done, stream))
      status = driver.error(r, "cuEventRecord");
  }
  if (status.ok()) {
    ranBefore = true;
    lastStream = stream;
    if (!leaveOnStream || numPending)
      status = flush();
  }
  // After an error, nothing this run enqueued may still touch the staging
  // or the arena once it returns.
  if (!status.ok())
    (void)api.streamSynchronize(stream);
  numPending = 0;
  pinnedUsed = 0;
  if (contextPushed) {
    CUcontext popped = nullptr;
    CUresult r = api.ctxPopCurrent(&popped);
    contextPushed = false;
    if (r && status.ok())
      status = driver.error(r, "cuCtxPopCurrent");
  }
  return status;
}

Status CudaExecutable::flush() {
  VMAPC_RETURN_IF_ERROR(device.driver->check(
      api.streamSynchronize(stream),
      "cuStreamSynchronize (an error of a copy or kernel of this run)"));
  for (size_t i = 0; i < numPending; ++i) {
    const PendingDownload &d = pending[i];
    if (d.dstPitch == d.rowBytes) {
      std::memcpy(d.dst, d.staged, d.rowBytes * d.rows);
      continue;
    }
    for (uint64_t r = 0; r < d.rows; ++r)
      std::memcpy(d.dst + r * d.dstPitch, d.staged + r * d.rowBytes,
                  d.rowBytes);
  }
  numPending = 0;
  pinnedUsed = 0;
  return Status();
}

Status CudaExecutable::reserve(uint64_t bytes, unsigned char **out) {
  if (bytes > pinnedBytes - pinnedUsed)
    VMAPC_RETURN_IF_ERROR(flush());
  *out = pinned + pinnedUsed;
  pinnedUsed += std::min(pinnedBytes - pinnedUsed,
                         (bytes + kStagingAlignment - 1) / kStagingAlignment *
                             kStagingAlignment);
  return Status();
}

Status CudaExecutable::copyAsync(CUmemorytype dstType, uint64_t dst,
                                 uint64_t dstPitch, CUmemorytype srcType,
                                 uint64_t src, uint64_t srcPitch,
                                 uint64_t rowBytes, uint64_t rows) {
  const Driver &driver = *device.driver;
  if (rowBytes == 0 || rows == 0)
    return Status();
  auto linear = [&](uint64_t to, uint64_t from, uint64_t bytes) -> Status {
    if (dstType == CU_MEMORYTYPE_DEVICE && srcType == CU_MEMORYTYPE_HOST)
      return driver.check(api.memcpyHtoDAsync(CUdeviceptr(to),
                                              reinterpret_cast<void *>(from),
                                              bytes, stream),
                          "cuMemcpyHtoDAsync");
    if (dstType == CU_MEMORYTYPE_HOST)
      return driver.check(api.memcpyDtoHAsync(reinterpret_cast<void *>(to),
                                              CUdeviceptr(from), bytes, stream),
                          "cuMemcpyDtoHAsync");
    return driver.check(
        api.memcpyDtoDAsync(CUdeviceptr(to), CUdeviceptr(from), bytes, stream),
        "cuMemcpyDtoDAsync");
  };
  if (rows == 1 || (dstPitch == rowBytes && srcPitch == rowBytes))
    return linear(dst, src, rowBytes * rows);
  const uint64_t maxPitch = device.limits.maxPitch;
  if (dstPitch <= maxPitch && srcPitch <= maxPitch) {
    CUDA_MEMCPY2D copy;
    std::memset(&copy, 0, sizeof(copy));
    copy.srcMemoryType = srcType;
    copy.srcPitch = srcPitch;
    copy.dstMemoryType = dstType;
    copy.dstPitch = dstPitch;
    if (srcType == CU_MEMORYTYPE_HOST)
      copy.srcHost = reinterpret_cast<const void *>(src);
    else
      copy.srcDevice = CUdeviceptr(src);
    if (dstType == CU_MEMORYTYPE_HOST)
      copy.dstHost = reinterpret_cast<void *>(dst);
    else
      copy.dstDevice = CUdeviceptr(dst);
    copy.WidthInBytes = rowBytes;
    copy.Height = rows;
    return driver.check(api.memcpy2DAsync(&copy, stream), "cuMemcpy2DAsync");
  }
  for (uint64_t r = 0; r < rows; ++r)
    VMAPC_RETURN_IF_ERROR(
        linear(dst + r * dstPitch, src + r * srcPitch, rowBytes));
  return Status();
}

Status CudaExecutable::upload(backend::Address dst, uint64_t dstPitch,
                              const void *src, uint64_t srcPitch,
                              uint64_t rowBytes, uint64_t rows) {
  if (rowBytes == 0 || rows == 0)
    return Status();
  if (rowBytes > pinnedBytes)
    return Status::error(StatusCode::kInternal,
                         "a row of " + std::to_string(rowBytes) +
                             " bytes does not fit the pinned staging of " +
                             std::to_string(pinnedBytes));
  const auto *from = static_cast<const unsigned char *>(src);
  // As many rows at a time as the staging holds; the host side packs them.
  for (uint64_t done = 0; done < rows;) {
    if (pinnedBytes - pinnedUsed < rowBytes)
      VMAPC_RETURN_IF_ERROR(flush());
    uint64_t n = std::min(rows - done, (pinnedBytes - pinnedUsed) / rowBytes);
    unsigned char *staged = nullptr;
    VMAPC_RETURN_IF_ERROR(reserve(n * rowBytes, &staged));
    if (srcPitch == rowBytes)
      std::memcpy(staged, from + done * srcPitch, n * rowBytes);
    else
      for (uint64_t r = 0; r < n; ++r)
        std::memcpy(staged + r * rowBytes, from + (done + r) * srcPitch,
                    rowBytes);
    VMAPC_RETURN_IF_ERROR(copyAsync(CU_MEMORYTYPE_DEVICE, dst + done * dstPitch,
                                    dstPitch, CU_MEMORYTYPE_HOST,
                                    uint64_t(uintptr_t(staged)), rowBytes,
                                    rowBytes, n));
    done += n;
  }
  return Status();
}

Status CudaExecutable::download(void *dst, uint64_t dstPitch,
                                backend::Address src, uint64_t srcPitch,
                                uint64_t rowBytes, uint64_t rows) {
  if (rowBytes == 0 || rows == 0)
    return Status();
  if (rowBytes > pinnedBytes)
    return Status::error(StatusCode::kInternal,
                         "a row of " + std::to_string(rowBytes) +
                             " bytes does not fit the pinned staging of " +
                             std::to_string(pinnedBytes));
  auto *to = static_cast<unsigned char *>(dst);
  for (uint64_t done = 0; done < rows;) {
    if (pinnedBytes - pinnedUsed < rowBytes || numPending == pending.size())
      VMAPC_RETURN_IF_ERROR(flush());
    uint64_t n = std::min(rows - done, (pinnedBytes - pinnedUsed) / rowBytes);
    unsigned char *staged = nullptr;
    VMAPC_RETURN_IF_ERROR(reserve(n * rowBytes, &staged));
    VMAPC_RETURN_IF_ERROR(copyAsync(
        CU_MEMORYTYPE_HOST, uint64_t(uintptr_t(staged)), rowBytes,
        CU_MEMORYTYPE_DEVICE, src + done * srcPitch, srcPitch, rowBytes, n));
    pending[numPending++] = {to + done * dstPitch, dstPitch, staged, rowBytes,
                             n};
    done += n;
  }
  return Status();
}

Status CudaExecutable::copyOnDevice(backend::Address dst, uint64_t dstPitch,
                                    backend::Address src, uint64_t srcPitch,
                                    uint64_t rowBytes, uint64_t rows) {
  return copyAsync(CU_MEMORYTYPE_DEVICE, dst, dstPitch, CU_MEMORYTYPE_DEVICE,
                   src, srcPitch, rowBytes, rows);
}

Status CudaExecutable::dispatch(uint32_t kernel, const uint64_t grid[3],
                                const backend::Address *bindings,
                                const int64_t *scalars) {
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    return Status();
  const Kernel &k = kernels[kernel];
  const DeviceLimits &limits = device.limits;
  // Checked at load for a full chunk; a chunk has at most as many blocks.
  if (grid[0] > limits.maxGrid[0] || grid[1] > limits.maxGrid[1] ||
      grid[2] > limits.maxGrid[2])
    return Status::error(
        StatusCode::kFailedPrecondition,
        "kernel '" + k.name + "': a grid of " + std::to_string(grid[0]) +
            " x " + std::to_string(grid[1]) + " x " + std::to_string(grid[2]) +
            " blocks, past what the GPU launches");
  for (uint32_t i = 0; i < k.numBindings; ++i)
    paramValues[i] = uint64_t(bindings[i]);
  for (uint32_t i = 0; i < k.numScalars; ++i)
    paramValues[k.numBindings + i] = uint64_t(scalars[i]);
  const GpuLaunch &l = k.launch;
  CUresult r =
      api.launchKernel(k.function, unsigned(grid[0]), unsigned(grid[1]),
                       unsigned(grid[2]), l.block[0], l.block[1], l.block[2],
                       l.sharedBytes, stream, paramPointers.data(), nullptr);
  if (r)
    return device.driver->error(r, "cuLaunchKernel of kernel '" + k.name + "'");
  return Status();
}

} // namespace cuda
} // namespace vmapc
