//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//

#include "vmapc/cuda/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>

namespace vmapc {
namespace cuda {

StatusCode statusCodeFor(CUresult result) {
  switch (result) {
  case CUDA_SUCCESS:
    return StatusCode::kOk;
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    return StatusCode::kResourceExhausted;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_SYSTEM_NOT_READY:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_DEVICE_NOT_LICENSED:
    return StatusCode::kUnavailable;
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_NOT_FOUND:
    return StatusCode::kNotFound;
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_JIT_COMPILATION_DISABLED:
  case CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY:
  case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    return StatusCode::kFailedPrecondition;
  case CUDA_ERROR_INVALID_VALUE:
    return StatusCode::kInvalidArgument;
  case CUDA_ERROR_NOT_PERMITTED:
    return StatusCode::kPermissionDenied;
  case CUDA_ERROR_NOT_SUPPORTED:
    return StatusCode::kUnimplemented;
  default:
    return StatusCode::kInternal;
  }
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (functions.getErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "CUDA error " + std::to_string(int(result));
  std::string s = name;
  if (functions.getErrorString(result, &text) == CUDA_SUCCESS && text)
    s += std::string(" (") + text + ")";
  return s;
}

Status Driver::error(CUresult result, const std::string &what) const {
  return Status::error(statusCodeFor(result), what + ": " + describe(result));
}

std::string Driver::versionString() const {
  int version = 0;
  if (functions.driverGetVersion(&version) != CUDA_SUCCESS || version <= 0)
    return "unknown";
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

namespace {

/// Each entry point: where it goes in DriverApi and its exported name.
template <typename Fn> struct Symbol {
  Fn DriverApi::*member;
  const char *name;
};

/// Resolves `symbol` into `api`; false if the library lacks it.
template <typename Fn>
bool resolve(void *library, DriverApi &api, const Symbol<Fn> &symbol,
             const char **missing) {
  void *address = dlsym(library, symbol.name);
  if (!address) {
    *missing = symbol.name;
    return false;
  }
  api.*symbol.member = reinterpret_cast<Fn>(address);
  return true;
}

template <typename... Fns>
bool resolveAll(void *library, DriverApi &api, const char **missing,
                const Symbol<Fns> &...symbols) {
  return (resolve(library, api, symbols, missing) && ...);
}

#define VMAPC_CUDA_SYMBOL(member, name)                                        \
  Symbol<decltype(DriverApi::member)> { &DriverApi::member, name }

bool resolveDriverApi(void *library, DriverApi &api, const char **missing) {
  return resolveAll(
      library, api, missing, VMAPC_CUDA_SYMBOL(init, "cuInit"),
      VMAPC_CUDA_SYMBOL(driverGetVersion, "cuDriverGetVersion"),
      VMAPC_CUDA_SYMBOL(getErrorName, "cuGetErrorName"),
      VMAPC_CUDA_SYMBOL(getErrorString, "cuGetErrorString"),
      VMAPC_CUDA_SYMBOL(deviceGetCount, "cuDeviceGetCount"),
      VMAPC_CUDA_SYMBOL(deviceGet, "cuDeviceGet"),
      VMAPC_CUDA_SYMBOL(deviceGetName, "cuDeviceGetName"),
      VMAPC_CUDA_SYMBOL(deviceGetAttribute, "cuDeviceGetAttribute"),
      VMAPC_CUDA_SYMBOL(devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
      VMAPC_CUDA_SYMBOL(devicePrimaryCtxRelease,
                        "cuDevicePrimaryCtxRelease_v2"),
      VMAPC_CUDA_SYMBOL(ctxPushCurrent, "cuCtxPushCurrent_v2"),
      VMAPC_CUDA_SYMBOL(ctxPopCurrent, "cuCtxPopCurrent_v2"),
      VMAPC_CUDA_SYMBOL(memAlloc, "cuMemAlloc_v2"),
      VMAPC_CUDA_SYMBOL(memFree, "cuMemFree_v2"),
      VMAPC_CUDA_SYMBOL(memHostAlloc, "cuMemHostAlloc"),
      VMAPC_CUDA_SYMBOL(memFreeHost, "cuMemFreeHost"),
      VMAPC_CUDA_SYMBOL(memcpyDtoH, "cuMemcpyDtoH_v2"),
      VMAPC_CUDA_SYMBOL(memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
      VMAPC_CUDA_SYMBOL(memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
      VMAPC_CUDA_SYMBOL(memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
      VMAPC_CUDA_SYMBOL(memcpy2DAsync, "cuMemcpy2DAsync_v2"),
      VMAPC_CUDA_SYMBOL(streamCreate, "cuStreamCreate"),
      VMAPC_CUDA_SYMBOL(streamDestroy, "cuStreamDestroy_v2"),
      VMAPC_CUDA_SYMBOL(streamSynchronize, "cuStreamSynchronize"),
      VMAPC_CUDA_SYMBOL(streamWaitEvent, "cuStreamWaitEvent"),
      VMAPC_CUDA_SYMBOL(eventCreate, "cuEventCreate"),
      VMAPC_CUDA_SYMBOL(eventDestroy, "cuEventDestroy_v2"),
      VMAPC_CUDA_SYMBOL(eventRecord, "cuEventRecord"),
      VMAPC_CUDA_SYMBOL(eventSynchronize, "cuEventSynchronize"),
      VMAPC_CUDA_SYMBOL(moduleLoadData, "cuModuleLoadData"),
      VMAPC_CUDA_SYMBOL(moduleLoadDataEx, "cuModuleLoadDataEx"),
      VMAPC_CUDA_SYMBOL(moduleUnload, "cuModuleUnload"),
      VMAPC_CUDA_SYMBOL(moduleGetFunction, "cuModuleGetFunction"),
      VMAPC_CUDA_SYMBOL(moduleGetGlobal, "cuModuleGetGlobal_v2"),
      VMAPC_CUDA_SYMBOL(funcSetAttribute, "cuFuncSetAttribute"),
      VMAPC_CUDA_SYMBOL(launchKernel, "cuLaunchKernel"));
}

#undef VMAPC_CUDA_SYMBOL

} // namespace

Status Driver::load(std::shared_ptr<const Driver> *out) {
  const char *env = std::getenv("VMAPC_CUDA_DRIVER");
  std::string path = env && *env ? env : "libcuda.so.1";
  // One Driver per library and process: opening devices again finds it.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Driver>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(path);
  if (it != loaded.end()) {
    *out = it->second;
    return Status();
  }
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return Status::error(StatusCode::kUnavailable,
                         "no CUDA device: " + path + " could not be loaded (" +
                             (why ? why : "unknown error") + ")");
  }
  std::shared_ptr<Driver> driver(new Driver());
  driver->libraryPath = path;
  const char *missing = "";
  if (!resolveDriverApi(library, driver->functions, &missing)) {
    dlclose(library);
    return Status::error(StatusCode::kUnavailable,
                         "no CUDA device: " + path + " lacks " + missing +
                             " (not a CUDA driver, or one older than the "
                             "CUDA headers the runtime was built with)");
  }
  loaded.emplace(path, driver);
  *out = std::move(driver);
  return Status();
}

ContextScope::ContextScope(const Driver &driver, CUcontext context)
    : driver(driver) {
  pushed =
      driver.check(driver.api().ctxPushCurrent(context), "cuCtxPushCurrent");
}

ContextScope::~ContextScope() {
  if (!pushed.ok())
    return;
  CUcontext popped = nullptr;
  (void)driver.api().ctxPopCurrent(&popped);
}

} // namespace cuda
} // namespace vmapc
