//===- CudaDriver.cpp - The CUDA driver calls of the GPU hosts ------------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <utility>

namespace vmapc::gpuhost {

#define VMAPC_STRINGIFY_EXPANDED(x) VMAPC_STRINGIFY(x)
#define VMAPC_STRINGIFY(x) #x

std::unique_ptr<CudaDriver> CudaDriver::open(int ordinal, std::string *error) {
  const char *env = std::getenv("VMAPC_CUDA_DRIVER");
  std::string path = env && *env ? env : "libcuda.so.1";
  std::unique_ptr<CudaDriver> d(new CudaDriver());
  d->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!d->library) {
    const char *why = dlerror();
    *error = path + " could not be loaded (" + (why ? why : "unknown") + ")";
    return nullptr;
  }
  // The versioned symbol each name maps to in cuda.h (cuMemAlloc_v2, ...).
#define VMAPC_CUDA_RESOLVE(name)                                               \
  d->name = reinterpret_cast<decltype(d->name)>(                               \
      dlsym(d->library, VMAPC_STRINGIFY_EXPANDED(name)));                      \
  if (!d->name) {                                                              \
    *error =                                                                   \
        path +                                                                 \
        " has no " VMAPC_STRINGIFY_EXPANDED(                                   \
            name) " (a driver "                                                \
                  "older than the CUDA " VMAPC_STRINGIFY_EXPANDED(             \
                      CUDA_VERSION) " headers these hosts were built with?)";  \
    return nullptr;                                                            \
  }
  VMAPC_CUDA_DRIVER_CALLS(VMAPC_CUDA_RESOLVE)
#undef VMAPC_CUDA_RESOLVE
#define VMAPC_CUDA_RESOLVE_OPTIONAL(name)                                      \
  d->name = reinterpret_cast<decltype(d->name)>(                               \
      dlsym(d->library, VMAPC_STRINGIFY_EXPANDED(name)));
  VMAPC_CUDA_DRIVER_OPTIONAL_CALLS(VMAPC_CUDA_RESOLVE_OPTIONAL)
#undef VMAPC_CUDA_RESOLVE_OPTIONAL

  if (!d->check(d->cuInit(0), "cuInit", error))
    return nullptr;
  int count = 0;
  if (!d->check(d->cuDeviceGetCount(&count), "cuDeviceGetCount", error))
    return nullptr;
  if (ordinal < 0 || ordinal >= count) {
    *error =
        "device " + std::to_string(ordinal) + " of " + std::to_string(count);
    return nullptr;
  }
  if (!d->check(d->cuDeviceGet(&d->device, ordinal), "cuDeviceGet", error) ||
      !d->check(d->cuDevicePrimaryCtxRetain(&d->context, d->device),
                "cuDevicePrimaryCtxRetain", error))
    return nullptr;
  if (!d->check(d->cuCtxPushCurrent(d->context), "cuCtxPushCurrent", error))
    return nullptr;
  return d;
}

CudaDriver::~CudaDriver() {
  if (context)
    cuDevicePrimaryCtxRelease(device);
  // The library stays loaded: the runtime may hold its own handle to it,
  // and unloading a driver at exit gains nothing.
}

bool CudaDriver::check(CUresult result, const std::string &what,
                       std::string *error) const {
  if (result == CUDA_SUCCESS)
    return true;
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  *error = what + ": " +
           (name ? std::string(name)
                 : "CUDA error " + std::to_string(static_cast<int>(result))) +
           (text ? " (" + std::string(text) + ")" : "");
  return false;
}

bool CudaDriver::upload(CUdeviceptr to, const void *from, size_t bytes,
                        CUstream stream, std::string *error) const {
  return bytes == 0 ||
         (check(cuMemcpyHtoDAsync(to, from, bytes, stream),
                "cuMemcpyHtoDAsync(" + std::to_string(bytes) + " bytes)",
                error) &&
          check(cuStreamSynchronize(stream), "cuStreamSynchronize", error));
}

CudaDeviceInfo CudaDriver::describe() const {
  CudaDeviceInfo info;
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name - 1, device) == CUDA_SUCCESS)
    info.name = name;
  cuDriverGetVersion(&info.driverVersion);
  auto attribute = [&](CUdevice_attribute a) {
    int value = 0;
    return cuDeviceGetAttribute(&value, a, device) == CUDA_SUCCESS ? value : 0;
  };
  info.computeMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.computeMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2Bytes =
      static_cast<uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  info.memoryBusBits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  info.memoryClockKHz = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  size_t total = 0;
  if (cuDeviceTotalMem && cuDeviceTotalMem(&total, device) == CUDA_SUCCESS)
    info.totalBytes = total;
  return info;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr)
    driver->cuMemFree(ptr);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : driver(other.driver), ptr(std::exchange(other.ptr, 0)),
      bytes(std::exchange(other.bytes, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    if (ptr)
      driver->cuMemFree(ptr);
    driver = other.driver;
    ptr = std::exchange(other.ptr, 0);
    bytes = std::exchange(other.bytes, 0);
  }
  return *this;
}

bool DeviceBuffer::allocate(const CudaDriver &d, size_t size,
                            std::string *error) {
  driver = &d;
  bytes = size;
  if (size == 0)
    return true;
  return d.check(d.cuMemAlloc(&ptr, size),
                 "cuMemAlloc(" + std::to_string(size) + " bytes)", error);
}

} // namespace vmapc::gpuhost
