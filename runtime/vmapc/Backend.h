//===- Backend.h - devices behind one interface (internal) ------*- C++ -*-===//
//
// The executable (Runtime.cpp) checks a call's arrays, cuts the examples into
// chunks, stages what cannot be bound in place and walks the entry's
// schedule; everything that depends on the device sits behind this
// interface, the way IREE's HAL puts drivers behind device, executable and
// command buffer. Backends: cpu/CpuDevice.h (a thread pool running each
// dispatch's workgroups); a CUDA backend implements the same.
//
// Not a public header: the runtime's API is Runtime.h and vmapc_runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_BACKEND_H
#define VMAPC_BACKEND_H

#include "vmapc/ArtifactFormat.h"
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
class Executable {
public:
  virtual ~Executable() = default;

  /// The arena: `arenaBytes` (as loaded) at this address, aligned to
  /// kArenaAlignment. Allocated once, at load.
  virtual Address arena() const = 0;
  /// Whether a caller's host array may be bound directly (else it is
  /// staged through the arena).
  virtual bool bindsHostMemory() const = 0;
  /// Copies `rows` rows of `rowBytes` bytes from host memory (rows
  /// `srcPitch` bytes apart) to `dst` (rows `dstPitch` bytes apart), and
  /// the other way. Errors come from the device (a failed copy).
  virtual Status upload(Address dst, uint64_t dstPitch, const void *src,
                        uint64_t srcPitch, uint64_t rowBytes,
                        uint64_t rows) = 0;
  virtual Status download(void *dst, uint64_t dstPitch, Address src,
                          uint64_t srcPitch, uint64_t rowBytes,
                          uint64_t rows) = 0;
  /// Runs every workgroup of kernel `kernel` (an index into the
  /// artifact's kernels) over `grid` (x, y, z counts; a count of 0 runs
  /// nothing), with `bindings` and `scalars` as the kernel ABI of
  /// ArtifactFormat.h says. Dispatches run in order: one sees every write
  /// of the ones before it.
  virtual Status dispatch(uint32_t kernel, const uint64_t grid[3],
                          const Address *bindings, const int64_t *scalars) = 0;
  /// Waits for everything dispatched or copied so far.
  virtual Status finish() = 0;
  /// What code runs: the ISA level of the CPU code object in use.
  virtual const std::string &codeLevel() const = 0;
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

/// Opens the device `spec` names: "cpu" or "cpu:OPTIONS" (cpu/CpuDevice.h).
/// Errors: kNotFound "unknown device 'x' (available: cpu)", and the
/// device's own for bad options.
Status openDevice(std::string_view spec, std::shared_ptr<Device> *out);

} // namespace backend
} // namespace vmapc

#endif // VMAPC_BACKEND_H
