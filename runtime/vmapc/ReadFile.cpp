//===- ReadFile.cpp - Bounded file reads for the runtime ------------------===//

#include "vmapc/ReadFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace vmapc {

Status statusFromErrno(int err, const std::string &context) {
  StatusCode code = StatusCode::kUnavailable;
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    code = StatusCode::kNotFound;
    break;
  case EACCES:
  case EPERM:
    code = StatusCode::kPermissionDenied;
    break;
  case ENOMEM:
  case EMFILE:
  case ENFILE:
  case ENOSPC:
    code = StatusCode::kResourceExhausted;
    break;
  case EISDIR:
    code = StatusCode::kInvalidArgument;
    break;
  default:
    break;
  }
  return Status::error(code, context + ": " + std::strerror(err));
}

FileReader::~FileReader() {
  if (fd >= 0)
    ::close(fd);
}

Status FileReader::open(const std::string &path) {
  filePath = path;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return statusFromErrno(errno, path + ": cannot open");
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return statusFromErrno(errno, path + ": cannot stat");
  if (S_ISDIR(st.st_mode))
    return Status::error(StatusCode::kInvalidArgument,
                         path + ": is a directory");
  if (S_ISREG(st.st_mode))
    regularSize = uint64_t(st.st_size);
  return Status();
}

Status FileReader::read(void *dst, size_t size, size_t *got) {
  auto *p = static_cast<unsigned char *>(dst);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, p + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return statusFromErrno(errno, filePath + ": read error");
    if (n == 0)
      break;
    done += size_t(n);
  }
  *got = done;
  return Status();
}

Status FileReader::atEnd(bool *end) {
  unsigned char byte;
  size_t got = 0;
  VMAPC_RETURN_IF_ERROR(read(&byte, 1, &got));
  *end = got == 0;
  return Status();
}

} // namespace vmapc
