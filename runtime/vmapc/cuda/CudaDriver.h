//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The entry points of the CUDA driver API (cuda.h) that the CUDA backend
// calls, resolved with dlopen + dlsym from libcuda.so.1 (or the library the
// environment variable VMAPC_CUDA_DRIVER names, e.g. the tests' fake
// driver). Nothing links CUDA: a host program built with the runtime starts
// on a machine without a driver, and only opening a "cuda" device fails
// there. Each entry point is looked up under the versioned name that
// cuda.h's macros give it (cuMemAlloc is cuMemAlloc_v2, ...), so the
// behaviour is that of the header the runtime was built with, whatever
// driver is installed (as the CUDA runtime does it).
//
// Statuses from failed calls carry the CUDA error's name and description
// ("cuMemAlloc of the arena (1048576 bytes): CUDA_ERROR_OUT_OF_MEMORY (out of
// memory)") and a code chosen from it (`statusCodeFor`).
//
// Internal (not installed); needs cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CUDA_CUDADRIVER_H
#define VMAPC_CUDA_CUDADRIVER_H

#include "vmapc/Status.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace vmapc {
namespace cuda {

/// The driver functions the backend uses (cuda.h documents each).
struct DriverApi {
  decltype(&::cuInit) init;
  decltype(&::cuDriverGetVersion) driverGetVersion;
  decltype(&::cuGetErrorName) getErrorName;
  decltype(&::cuGetErrorString) getErrorString;
  decltype(&::cuDeviceGetCount) deviceGetCount;
  decltype(&::cuDeviceGet) deviceGet;
  decltype(&::cuDeviceGetName) deviceGetName;
  decltype(&::cuDeviceGetAttribute) deviceGetAttribute;
  decltype(&::cuDevicePrimaryCtxRetain) devicePrimaryCtxRetain;
  decltype(&::cuDevicePrimaryCtxRelease_v2) devicePrimaryCtxRelease;
  decltype(&::cuCtxPushCurrent_v2) ctxPushCurrent;
  decltype(&::cuCtxPopCurrent_v2) ctxPopCurrent;
  decltype(&::cuMemAlloc_v2) memAlloc;
  decltype(&::cuMemFree_v2) memFree;
  decltype(&::cuMemHostAlloc) memHostAlloc;
  decltype(&::cuMemFreeHost) memFreeHost;
  decltype(&::cuMemcpyDtoH_v2) memcpyDtoH;
  decltype(&::cuMemcpyHtoDAsync_v2) memcpyHtoDAsync;
  decltype(&::cuMemcpyDtoHAsync_v2) memcpyDtoHAsync;
  decltype(&::cuMemcpyDtoDAsync_v2) memcpyDtoDAsync;
  decltype(&::cuMemcpy2DAsync_v2) memcpy2DAsync;
  decltype(&::cuStreamCreate) streamCreate;
  decltype(&::cuStreamDestroy_v2) streamDestroy;
  decltype(&::cuStreamSynchronize) streamSynchronize;
  decltype(&::cuStreamWaitEvent) streamWaitEvent;
  decltype(&::cuEventCreate) eventCreate;
  decltype(&::cuEventDestroy_v2) eventDestroy;
  decltype(&::cuEventRecord) eventRecord;
  decltype(&::cuEventSynchronize) eventSynchronize;
  decltype(&::cuModuleLoadData) moduleLoadData;
  decltype(&::cuModuleLoadDataEx) moduleLoadDataEx;
  decltype(&::cuModuleUnload) moduleUnload;
  decltype(&::cuModuleGetFunction) moduleGetFunction;
  decltype(&::cuModuleGetGlobal_v2) moduleGetGlobal;
  decltype(&::cuFuncSetAttribute) funcSetAttribute;
  decltype(&::cuLaunchKernel) launchKernel;
};

/// The StatusCode for a CUDA error: kResourceExhausted for out of memory
/// (or resources for a launch), kUnavailable for no device or a driver that
/// does not work, kNotFound for an invalid device or a missing symbol,
/// kFailedPrecondition for code the device or driver cannot run (no binary
/// for the GPU, invalid PTX, an unsupported PTX version, JIT unavailable),
/// kInvalidArgument for an invalid value (a bad device address),
/// kPermissionDenied, kUnimplemented for not permitted or not supported,
/// kInternal for the rest, among them the errors that leave the context
/// unusable (illegal address, launch failure, ...).
StatusCode statusCodeFor(CUresult result);

/// A loaded driver library and its entry points. Loaded once per path and
/// process, never unloaded (a CUDA driver is not made to be unloaded).
class Driver {
public:
  /// Loads the driver: dlopen of $VMAPC_CUDA_DRIVER when set and not
  /// empty, else of libcuda.so.1; resolves every entry point of DriverApi.
  /// Errors: kUnavailable "no CUDA device: PATH could not be loaded
  /// (dlerror)", "no CUDA device: PATH lacks cuMemAlloc_v2 (...)".
  static Status load(std::shared_ptr<const Driver> *out);

  const DriverApi &api() const { return functions; }
  /// The library as opened ("libcuda.so.1").
  const std::string &path() const { return libraryPath; }

  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or "CUDA error N" for a
  /// value the driver does not name.
  std::string describe(CUresult result) const;
  /// An error for `result` (not CUDA_SUCCESS): "WHAT: NAME (description)",
  /// its code from statusCodeFor.
  Status error(CUresult result, const std::string &what) const;
  /// Ok for CUDA_SUCCESS, else error(result, what). Builds no string on
  /// success.
  Status check(CUresult result, const char *what) const {
    return result == CUDA_SUCCESS ? Status() : error(result, what);
  }
  /// "13.0" for the version cuDriverGetVersion gives (13000), "unknown"
  /// when it fails.
  std::string versionString() const;

private:
  Driver() = default;
  DriverApi functions{};
  std::string libraryPath;
};

/// Makes `context` current on the calling thread for its lifetime
/// (cuCtxPushCurrent), then makes the caller's current again
/// (cuCtxPopCurrent): whatever context the thread had, if any, is the one
/// it has afterwards.
class ContextScope {
public:
  ContextScope(const Driver &driver, CUcontext context);
  ~ContextScope();
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;
  /// Whether the push worked; else the error.
  const Status &status() const { return pushed; }

private:
  const Driver &driver;
  Status pushed;
};

} // namespace cuda
} // namespace vmapc

#endif // VMAPC_CUDA_CUDADRIVER_H
