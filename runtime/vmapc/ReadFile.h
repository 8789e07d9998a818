//===- ReadFile.h - Bounded file reads for the runtime ----------*- C++ -*-===//
//
// Internal to the runtime. Artifacts and .npy files are read in two steps:
// their fixed header first, then exactly the number of bytes that header
// implies, so that a file is never read (or allocated for) past what its
// header promises: /dev/zero fails at its first bytes, a pipe that never
// ends is read no further than the header says.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_READFILE_H
#define VMAPC_READFILE_H

#include "vmapc/Status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace vmapc {

/// A Status for the failed system call that set `err` (an errno value),
/// with the message "CONTEXT: strerror(err)". ENOENT and ENOTDIR are
/// kNotFound, EACCES and EPERM kPermissionDenied, ENOMEM, EMFILE, ENFILE and
/// ENOSPC kResourceExhausted, EISDIR kInvalidArgument, anything else
/// kUnavailable.
Status statusFromErrno(int err, const std::string &context);

/// A file opened for reading, read in pieces. Closed on destruction.
class FileReader {
public:
  FileReader() = default;
  ~FileReader();
  FileReader(const FileReader &) = delete;
  FileReader &operator=(const FileReader &) = delete;

  /// Opens `path` for reading. Errors: "PATH: cannot open: REASON" (see
  /// statusFromErrno), kInvalidArgument "PATH: is a directory".
  Status open(const std::string &path);

  /// Reads up to `size` bytes into `dst`; `*got` < `size` only at the end of
  /// the file. Error: "PATH: read error: REASON".
  Status read(void *dst, size_t size, size_t *got);

  /// Whether the file has no byte left (reads at most one byte).
  Status atEnd(bool *end);

  /// The size of a regular file when it was opened; nullopt for a pipe, a
  /// character device or anything else without a size.
  std::optional<uint64_t> regularFileSize() const { return regularSize; }

  const std::string &path() const { return filePath; }

private:
  int fd = -1;
  std::string filePath;
  std::optional<uint64_t> regularSize;
};

} // namespace vmapc

#endif // VMAPC_READFILE_H
