//===- HostBuffer.h - Checked host allocations ------------------*- C++ -*-===//
//
// Every large allocation of the runtime and of `vmapc run` (the arena, a
// file's bytes, a .npy array, an output) is a HostBuffer: its size is checked
// against what this process may use before anything is allocated, and it is
// allocated with posix_memalign, so that a failure is a kResourceExhausted
// status. `operator new` is never used for them: a host (LLVM's tools among
// them) may install a new-handler that aborts the process instead.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_HOSTBUFFER_H
#define VMAPC_HOSTBUFFER_H

#include "vmapc/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace vmapc {

/// The most bytes this process may hope to allocate: the smaller of the
/// physical memory (sysconf) and the soft RLIMIT_AS address-space limit
/// (ulimit -v), either ignored when unknown or unlimited.
uint64_t hostMemoryLimitBytes();

/// kOk if `bytes` is at most hostMemoryLimitBytes(); else kResourceExhausted
/// "WHAT would take N bytes, more than the M bytes this process may use (the
/// smaller of physical memory and RLIMIT_AS)".
Status checkHostMemory(uint64_t bytes, const std::string &what);

/// An owned, aligned block of host memory. Movable, not copyable; freed on
/// destruction. `data()` is never null once allocated (a 0-byte buffer
/// holds one byte), so that copies of 0 bytes from it are well defined.
class HostBuffer {
public:
  HostBuffer() = default;
  ~HostBuffer();
  HostBuffer(HostBuffer &&other) noexcept;
  HostBuffer &operator=(HostBuffer &&other) noexcept;
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;

  enum class Init { kZero, kUninitialized };

  /// Allocates `bytes` aligned to `alignment` (a power of two, at least
  /// sizeof(void *)) into `*out`, zero-filled unless `init` says otherwise.
  /// Errors (kResourceExhausted): those of checkHostMemory, and "cannot
  /// allocate WHAT (N bytes): out of memory".
  static Status allocate(uint64_t bytes, size_t alignment,
                         const std::string &what, HostBuffer *out,
                         Init init = Init::kZero);

  unsigned char *data() { return ptr; }
  const unsigned char *data() const { return ptr; }
  size_t size() const { return bytes; }

private:
  unsigned char *ptr = nullptr;
  size_t bytes = 0;
};

} // namespace vmapc

#endif // VMAPC_HOSTBUFFER_H
