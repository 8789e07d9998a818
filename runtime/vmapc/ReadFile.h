//===- ReadFile.h - whole-file reads for the runtime ------------*- C++ -*-===//
//
// Internal to the runtime (artifacts and .npy files are read the same way).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_READFILE_H
#define VMAPC_READFILE_H

#include "vmapc/Status.h"

#include <string>

namespace vmapc {

/// Reads the whole file at `path` into `*bytes`. Errors: "PATH: cannot open:
/// REASON", "PATH: read error".
Status readFileBytes(const std::string &path, std::string *bytes);

} // namespace vmapc

#endif // VMAPC_READFILE_H
