//===- Status.h - Error status of the vmapc runtime -------------*- C++ -*-===//
//
// Every fallible runtime call returns a `vmapc::Status`: either ok, or an
// error carrying a human-readable message. The runtime never throws and never
// aborts on bad input (a corrupt artifact, a wrong shape, ...).
//
// An ok Status holds no heap memory; constructing or copying one never
// allocates. Error messages are built only on the error path.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_STATUS_H
#define VMAPC_STATUS_H

#include <string>
#include <utility>

namespace vmapc {

class [[nodiscard]] Status {
public:
  /// An ok status.
  Status() = default;

  /// An error with `message` (which should not be empty).
  static Status error(std::string message) {
    Status s;
    s.isError = true;
    s.msg = std::move(message);
    return s;
  }

  bool ok() const { return !isError; }
  explicit operator bool() const { return ok(); }

  /// The error message; empty for an ok status.
  const std::string &message() const { return msg; }

  /// Returns a copy of this error with `prefix` put before its message, for
  /// adding context ("file.vmapc: " + message). Ok stays ok.
  Status withPrefix(const std::string &prefix) const {
    if (ok())
      return *this;
    return error(prefix + msg);
  }

private:
  bool isError = false;
  std::string msg;
};

} // namespace vmapc

/// Returns from the enclosing function if `expr` (a Status) is an error.
#define VMAPC_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::vmapc::Status vmapcStatusTmp_ = (expr);                                  \
    if (!vmapcStatusTmp_.ok())                                                 \
      return vmapcStatusTmp_;                                                  \
  } while (false)

#endif // VMAPC_STATUS_H
