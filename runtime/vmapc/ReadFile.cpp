//===- ReadFile.cpp - whole-file reads for the runtime --------------------===//

#include "vmapc/ReadFile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

vmapc::Status vmapc::readFileBytes(const std::string &path,
                                   std::string *bytes) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status::error(path + ": cannot open: " + std::strerror(errno));
  bytes->clear();
  char buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes->append(buf, got);
  bool readError = std::ferror(f) != 0;
  std::fclose(f);
  if (readError)
    return Status::error(path + ": read error");
  return Status();
}
