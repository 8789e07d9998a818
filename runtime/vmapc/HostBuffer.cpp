//===- HostBuffer.cpp - Checked host allocations --------------------------===//

#include "vmapc/HostBuffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <unistd.h>
#include <utility>

namespace vmapc {

uint64_t hostMemoryLimitBytes() {
  uint64_t limit = UINT64_MAX;
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    limit = uint64_t(pages) * uint64_t(pageSize);
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    limit = std::min<uint64_t>(limit, rl.rlim_cur);
  return limit;
}

Status checkHostMemory(uint64_t bytes, const std::string &what) {
  uint64_t limit = hostMemoryLimitBytes();
  if (bytes <= limit)
    return Status();
  return Status::error(StatusCode::kResourceExhausted,
                       what + " would take " + std::to_string(bytes) +
                           " bytes, more than the " + std::to_string(limit) +
                           " bytes this process may use (the smaller of "
                           "physical memory and RLIMIT_AS)");
}

HostBuffer::~HostBuffer() { std::free(ptr); }

HostBuffer::HostBuffer(HostBuffer &&other) noexcept
    : ptr(std::exchange(other.ptr, nullptr)),
      bytes(std::exchange(other.bytes, 0)) {}

HostBuffer &HostBuffer::operator=(HostBuffer &&other) noexcept {
  if (this != &other) {
    std::free(ptr);
    ptr = std::exchange(other.ptr, nullptr);
    bytes = std::exchange(other.bytes, 0);
  }
  return *this;
}

Status HostBuffer::allocate(uint64_t bytes, size_t alignment,
                            const std::string &what, HostBuffer *out,
                            Init init) {
  VMAPC_RETURN_IF_ERROR(checkHostMemory(bytes, what));
  void *p = nullptr;
  if (posix_memalign(&p, alignment, std::max<size_t>(size_t(bytes), 1)) != 0)
    return Status::error(StatusCode::kResourceExhausted,
                         "cannot allocate " + what + " (" +
                             std::to_string(bytes) + " bytes): out of memory");
  if (init == Init::kZero)
    std::memset(p, 0, size_t(bytes));
  HostBuffer b;
  b.ptr = static_cast<unsigned char *>(p);
  b.bytes = size_t(bytes);
  *out = std::move(b);
  return Status();
}

} // namespace vmapc
