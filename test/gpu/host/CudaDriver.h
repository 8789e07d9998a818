//===- CudaDriver.h - The CUDA driver calls of the GPU hosts ----*- C++ -*-===//
//
// The few CUDA driver API entry points that vmapc-gpu-check and
// vmapc-gpu-bench call themselves (device memory for device-array runs,
// streams and events for timing, copies for the copy bandwidth), loaded with
// dlopen("libcuda.so.1") as the runtime loads them, so that the hosts start
// and run their CPU path on a machine without a driver. The types and
// prototypes come from the toolkit's cuda.h; each pointer is resolved by the
// versioned symbol that cuda.h maps the name to (cuMemAlloc -> cuMemAlloc_v2).
//
// `CudaDriver::open` loads the library (or the file named by
// VMAPC_CUDA_DRIVER), calls cuInit(0), takes device `ordinal` and pushes its
// primary context on the calling thread: the context the runtime's `cuda:N`
// device retains too, so device pointers made here are valid for the
// runtime (which pushes and pops it around its calls, leaving this one
// current). Every call that fails yields a message naming the call and
// the CUDA error ("cuMemAlloc(1073741824 bytes): CUDA_ERROR_OUT_OF_MEMORY
// (out of memory)").
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_GPU_HOST_CUDADRIVER_H
#define VMAPC_GPU_HOST_CUDADRIVER_H

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace vmapc::gpuhost {

// X(name): the entry points used, by their unversioned cuda.h names. The
// hosts need the first list; the second only adds facts to what they print
// (null where a driver, or the runtime's fake driver, lacks them).
#define VMAPC_CUDA_DRIVER_CALLS(X)                                             \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxPushCurrent)                                                          \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)
#define VMAPC_CUDA_DRIVER_OPTIONAL_CALLS(X)                                    \
  X(cuDeviceTotalMem)                                                          \
  X(cuMemGetInfo)

/// What `CudaDriver::describe` reports about the device.
struct CudaDeviceInfo {
  std::string name;      ///< "NVIDIA H200"
  int driverVersion = 0; ///< 13000 for CUDA 13.0
  int computeMajor = 0;  ///< 9 for sm_90
  int computeMinor = 0;
  int multiprocessors = 0;
  uint64_t totalBytes = 0; ///< Device memory.
  uint64_t l2Bytes = 0;    ///< L2 cache.
  int memoryBusBits = 0;   ///< Memory bus width.
  int memoryClockKHz = 0;  ///< Peak memory clock (0 where not reported).
};

/// The loaded driver with device `ordinal`'s primary context current.
class CudaDriver {
public:
  /// Loads the driver and makes the device's primary context current.
  /// Returns null with `error` set: "libcuda.so.1 could not be loaded
  /// (...)", "cuInit: CUDA_ERROR_NO_DEVICE (...)", "device 3 of 1".
  static std::unique_ptr<CudaDriver> open(int ordinal, std::string *error);
  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  /// True for CUDA_SUCCESS; else false with `error` = "WHAT: NAME (text)".
  bool check(CUresult result, const std::string &what,
             std::string *error) const;
  CudaDeviceInfo describe() const;
  /// Copies `bytes` from host memory to `to` through `stream` and waits.
  bool upload(CUdeviceptr to, const void *from, size_t bytes, CUstream stream,
              std::string *error) const;

#define VMAPC_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  VMAPC_CUDA_DRIVER_CALLS(VMAPC_CUDA_DECLARE)
  VMAPC_CUDA_DRIVER_OPTIONAL_CALLS(VMAPC_CUDA_DECLARE)
#undef VMAPC_CUDA_DECLARE

private:
  CudaDriver() = default;
  void *library = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
};

/// `bytes` of device memory (none for 0 bytes), freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;

  /// Allocates with cuMemAlloc; false with `error` set on failure.
  bool allocate(const CudaDriver &driver, size_t bytes, std::string *error);
  CUdeviceptr address() const { return ptr; }
  /// The address as the runtime takes a device array's `data`.
  void *pointer() const { return reinterpret_cast<void *>(ptr); }
  size_t size() const { return bytes; }

private:
  const CudaDriver *driver = nullptr;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
};

} // namespace vmapc::gpuhost

#endif // VMAPC_GPU_HOST_CUDADRIVER_H
