//===- Backend.h - devices behind one interface (internal) ------*- C++ -*-===//
//
// The executable (Runtime.cpp) checks a call's arrays, cuts the examples into
// chunks, stages what cannot be bound in place and walks the entry's
// schedule; everything that depends on the device sits behind this
// interface, the way IREE's HAL puts drivers behind device, executable and
// command buffer. Backends: cpu/CpuDevice.h (a thread pool running each
// dispatch's workgroups), cuda/CudaDevice.h (a kernel launch per dispatch on
// a stream, through the CUDA driver API).
//
// Not a public header: the runtime's API is Runtime.h and vmapc_runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_BACKEND_H
#define VMAPC_BACKEND_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Runtime.h"
#include "vmapc/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vmapc {
namespace backend {

/// Where a binding points: a host pointer on the CPU, a device address on
/// a GPU.
using Address = uintptr_t;

/// One artifact loaded on one device: its code and its arena.
///
/// A run (Executable::run) is one beginRun, then uploads, downloads,
/// device copies and dispatches in the order they must happen, then one
/// endRun. Copies and dispatches may be asynchronous (a GPU's stream): each
/// sees the effects of those before it, and all are done, their bytes in
/// the caller's host arrays, when endRun returns (except work the caller
/// asked to leave on its own stream, RunOptions::stream). Nothing here
/// allocates memory after load.
class Executable {
public:
  virtual ~Executable() = default;

  /// The arena: `arenaBytes` (as loaded) at this address, aligned to
  /// arenaAlignmentOf(artifact). Allocated once, at load.
  virtual Address arena() const = 0;
  /// Whether the code reads and writes host memory, so that a caller's host
  /// array may be bound directly (else it is staged through the arena).
  virtual bool bindsHostMemory() const = 0;
  /// Starts a run on the calling thread with `options`: refuses options
  /// the device does not take (kInvalidArgument), makes the device current
  /// (CUDA: pushes its context) and picks the stream. After an ok
  /// beginRun, the caller calls endRun exactly once.
  virtual Status beginRun(const RunOptions &options) = 0;
  /// Copies `rows` rows of `rowBytes` bytes from host memory (rows
  /// `srcPitch` bytes apart) to `dst` on the device (rows `dstPitch` bytes
  /// apart). `src` may change once this returns.
  virtual Status upload(Address dst, uint64_t dstPitch, const void *src,
                        uint64_t srcPitch, uint64_t rowBytes,
                        uint64_t rows) = 0;
  /// The other way: the bytes are in `dst` once endRun returns ok.
  virtual Status download(void *dst, uint64_t dstPitch, Address src,
                          uint64_t srcPitch, uint64_t rowBytes,
                          uint64_t rows) = 0;
  /// Copies rows between two device addresses (device arrays and staging
  /// slots). Only called in a run with RunOptions::deviceArrays.
  virtual Status copyOnDevice(Address dst, uint64_t dstPitch, Address src,
                              uint64_t srcPitch, uint64_t rowBytes,
                              uint64_t rows) = 0;
  /// Runs every workgroup of kernel `kernel` (an index into the
  /// artifact's kernels) over `grid` (x, y, z counts; a count of 0 runs
  /// nothing), with `bindings` and `scalars` as the kernel ABI of
  /// ArtifactFormat.h says.
  virtual Status dispatch(uint32_t kernel, const uint64_t grid[3],
                          const Address *bindings, const int64_t *scalars) = 0;
  /// Whether the device runs dispatchChunks; when not, the executable
  /// dispatches each chunk on its own.
  virtual bool batchesChunks() const { return false; }
  /// Runs the workgroups of `chunks` dispatches of `kernel` over `grid`, one
  /// per consecutive chunk of a call: chunk c's binding j is `bindings[j] +
  /// c * chunkStrides[j]`, its scalars `scalars`. Unlike `chunks` calls of
  /// dispatch, the chunks are not ordered: their workgroups share one pool
  /// job, with no barrier between chunks (which costs a core half a
  /// workgroup per chunk on average while the other finishes). The caller
  /// guarantees that no chunk reads or writes bytes another chunk writes.
  /// Only called where batchesChunks().
  virtual Status dispatchChunks(uint32_t /*kernel*/, const uint64_t /*grid*/[3],
                                uint64_t /*chunks*/,
                                const Address * /*bindings*/,
                                const uint64_t * /*chunkStrides*/,
                                const int64_t * /*scalars*/) {
    return Status::error(StatusCode::kInternal,
                         "this device does not batch chunks");
  }
  /// Ends the run: with `status` ok, waits for its work (unless left on
  /// the caller's stream) and completes the downloads; with an error, waits
  /// for what was enqueued and drops the downloads. Then releases the
  /// thread (CUDA: pops the context, so the caller's is current again).
  /// Returns `status`, or the first error of finishing.
  virtual Status endRun(Status status) = 0;
  /// What code runs: "x86-64-v4", "sm_90 (cubin)", "sm_90 (PTX JIT)".
  virtual const std::string &codeLevel() const = 0;
  /// Device and pinned host allocations made (cuMemAlloc, cuMemHostAlloc).
  virtual uint64_t deviceAllocations() const { return 0; }
};

/// A device: makes executables.
class Device {
public:
  virtual ~Device() = default;
  /// Loads the code of `artifact` this device can run (`code[i]` holds
  /// code object i's bytes) and allocates an arena of `arenaBytes`.
  virtual Status load(const Artifact &artifact,
                      const std::vector<std::string_view> &code,
                      uint64_t arenaBytes,
                      std::unique_ptr<Executable> *out) = 0;
  /// A description of the device as opened ("cpu: 2 threads, x86-64-v4").
  virtual std::string describe() const = 0;
};

/// Opens the device `spec` names: "cpu" or "cpu:OPTIONS" (cpu/CpuDevice.h),
/// "cuda" or "cuda:N" (cuda/CudaDevice.h). Errors: kNotFound "unknown
/// device 'x' (available: cpu, cuda)", and the device's own.
Status openDevice(std::string_view spec, std::shared_ptr<Device> *out);

} // namespace backend
} // namespace vmapc

#endif // VMAPC_BACKEND_H
