//===- Status.h - Error status of the vmapc runtime -------------*- C++ -*-===//
//
// Every fallible runtime call returns a `vmapc::Status`: either ok, or an
// error carrying a `StatusCode` and a human-readable message. The runtime
// never throws and never aborts on bad input (a corrupt artifact, a wrong
// shape, an allocation that fails, ...).
//
// An ok Status holds no heap memory; constructing or copying one never
// allocates. Error messages are built only on the error path. The code is a
// plain field: a Status always reports its code, whatever its message.
//
// The codes are a subset of absl::StatusCode / google.rpc.Code, with the same
// numbers (IREE's iree_status_code_t uses them too). What each means here:
//
//   kOk                  success.
//   kInvalidArgument     the caller's argument is wrong: an array's dtype,
//                        rank, shape or count, a null pointer, an entry of
//                        another executable, an Artifact given to the writer
//                        that breaks a rule of ArtifactFormat.h, a path that
//                        is a directory.
//   kNotFound            a name that does not exist: an unknown entry or
//                        device, a missing file.
//   kPermissionDenied    a file the process may not read or write.
//   kResourceExhausted   an allocation failed, or would take more than this
//                        process may use (`hostMemoryLimitBytes`).
//   kFailedPrecondition  the host cannot run valid code as it is: the CPU
//                        lacks a feature the code needs.
//   kOutOfRange          a size or count past a documented limit
//                        (kMaxArrayBytes, kMaxRank, kMaxArgs, ...), or an
//                        index past the end of a list.
//   kUnimplemented       valid input this runtime does not support: another
//                        artifact format version or target, a .npy dtype,
//                        version or order it does not read.
//   kInternal            an invariant of the runtime itself broke (a bug).
//   kUnavailable         the system failed to do something that may work
//                        later: an I/O error, memfd_create or dlopen failing
//                        for reasons outside the artifact.
//   kDataLoss            bytes that should hold an artifact or a .npy file
//                        but do not: truncated, corrupt (checksum), trailing
//                        bytes, a field out of bounds, or a manifest that
//                        disagrees with its code's descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_STATUS_H
#define VMAPC_STATUS_H

#include <string>
#include <utility>

namespace vmapc {

/// What kind of error a Status is. The values are absl::StatusCode's and are
/// part of the C API (`vmapc_code` in vmapc_runtime.h).
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 3,
  kNotFound = 5,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
};

/// "ok", "invalid argument", "not found", ... ("unknown code" for a value
/// that is not a StatusCode).
const char *statusCodeName(StatusCode code);

class [[nodiscard]] Status {
public:
  /// An ok status.
  Status() = default;

  /// An error with `code` (not kOk) and `message` (which should not be
  /// empty). A kOk code is turned into kInternal: an error is never ok.
  static Status error(StatusCode code, std::string message) {
    Status s;
    s.statusCode = code == StatusCode::kOk ? StatusCode::kInternal : code;
    s.msg = std::move(message);
    return s;
  }

  bool ok() const { return statusCode == StatusCode::kOk; }
  explicit operator bool() const { return ok(); }

  StatusCode code() const { return statusCode; }

  /// The error message; empty for an ok status.
  const std::string &message() const { return msg; }

  /// Returns a copy of this error with `prefix` put before its message, for
  /// adding context ("file.vmapc: " + message). The code is kept; ok stays
  /// ok.
  Status withPrefix(const std::string &prefix) const {
    if (ok())
      return *this;
    return error(statusCode, prefix + msg);
  }

  /// Returns a copy of this error with its code replaced by `code`, for a
  /// caller that knows better what the failure means. Ok stays ok.
  Status withCode(StatusCode code) const {
    if (ok())
      return *this;
    return error(code, msg);
  }

private:
  StatusCode statusCode = StatusCode::kOk;
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
