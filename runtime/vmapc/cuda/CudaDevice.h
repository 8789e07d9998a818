//===- CudaDevice.h - the CUDA backend (internal) ---------------*- C++ -*-===//
//
// The `cuda` device: GPU N through the CUDA driver API, loaded at run time
// (cuda/CudaDriver.h), so that the runtime links nothing of CUDA.
//
// Device string: "cuda" (GPU 0) or "cuda:N". Opening loads the driver,
// calls cuInit, and retains the GPU's primary context (the one the CUDA
// runtime and most libraries share), released when the last Executable and
// copy of the Device are gone. Every call that touches the GPU pushes that
// context onto the calling thread and pops it before returning, so any
// thread may call, and the caller's current context, if any, is current
// again afterwards.
//
// Loading an artifact (CudaExecutable):
//  - the CUDA code object: a cubin for the GPU's architecture first
//    (cuModuleLoadData); if the driver refuses every cubin, the PTX through
//    the driver's JIT (cuModuleLoadDataEx), whose error log and the driver
//    version are in the error if that fails too;
//  - every kernel (cuModuleGetFunction) and the kernel and entry
//    descriptors, module globals read back (cuModuleGetGlobal, cuMemcpyDtoH)
//    and checked against the manifest (kDataLoss on a mismatch);
//  - each kernel's launch record against the GPU's limits (block dims,
//    threads, dynamic shared memory, for which it opts in past 48 KiB) and
//    every dispatch's grid for a full chunk (x <= 2^31 - 1, y, z <= 65535):
//    kFailedPrecondition past them;
//  - one cuMemAlloc of the arena, one cuMemHostAlloc of pinned staging
//    (the largest sum of an entry's staging slots), one stream
//    (cuStreamCreate, non-blocking) and one event. Nothing more is
//    allocated, on the host or the GPU, by later calls.
//
// Running (Runtime.cpp walks the schedule; this backend):
//  - host arrays are copied row by row into pinned staging and from there
//    into the staging slots (cuMemcpyHtoDAsync or cuMemcpy2DAsync), outputs
//    back the same way; the stream is synchronized before the run returns;
//  - a dispatch is one cuLaunchKernel: grid = the workgroup counts for the
//    chunk (none when one is 0), block and dynamic shared bytes = the launch
//    record, parameters = each binding's device address then each scalar
//    (int64);
//  - on the executable's stream, or the caller's (RunOptions::stream); with
//    device arrays on the caller's stream, the run returns once enqueued. An
//    event recorded at the end of each run makes a run on another stream
//    wait for the one before.
//
// Errors name the CUDA call and the error (cuGetErrorName): "cuLaunchKernel
// of kernel 'k': CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)", with
// the code CudaDriver.h's statusCodeFor gives.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CUDA_CUDADEVICE_H
#define VMAPC_CUDA_CUDADEVICE_H

#include "vmapc/Backend.h"

namespace vmapc {
namespace cuda {

/// Opens the CUDA device from the options after "cuda:" ("" or an ordinal
/// N). Errors: kInvalidArgument for an ordinal that is not a number;
/// kUnavailable "no CUDA device: ..." without a driver library, or when
/// cuInit fails; kNotFound "no CUDA device: cuda:N does not exist (M
/// devices)"; the driver's errors of retaining the primary context;
/// kUnimplemented "no CUDA device: this runtime was built without CUDA
/// support ..." in a runtime built without cuda.h.
Status openCudaDevice(std::string_view options,
                      std::shared_ptr<backend::Device> *out);

} // namespace cuda
} // namespace vmapc

#endif // VMAPC_CUDA_CUDADEVICE_H
