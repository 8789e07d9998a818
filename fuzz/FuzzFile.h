//===- FuzzFile.h - An in-memory file holding the fuzz input ----*- C++ -*-===//
//
// For the readers that take a path (readArtifactFile, readNpy): one memfd per
// process, rewritten with each input and named /proc/self/fd/N.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FUZZ_FUZZFILE_H
#define VMAPC_FUZZ_FUZZFILE_H

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace vmapc_fuzz {

class FuzzFile {
public:
  FuzzFile() {
    fd = memfd_create("vmapc-fuzz-input", 0);
    if (fd < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }

  /// Replaces the file's contents with `size` bytes at `data`.
  const std::string &write(const void *data, size_t size) {
    if (ftruncate(fd, 0) != 0 ||
        (size && pwrite(fd, data, size, 0) != ssize_t(size))) {
      std::perror("writing the fuzz input to a memfd");
      std::abort();
    }
    return path;
  }

private:
  int fd = -1;
  std::string path;
};

} // namespace vmapc_fuzz

#endif // VMAPC_FUZZ_FUZZFILE_H
