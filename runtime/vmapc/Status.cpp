//===- Status.cpp - Error status of the vmapc runtime ---------------------===//

#include "vmapc/Status.h"

const char *vmapc::statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::kOk:
    return "ok";
  case StatusCode::kInvalidArgument:
    return "invalid argument";
  case StatusCode::kNotFound:
    return "not found";
  case StatusCode::kPermissionDenied:
    return "permission denied";
  case StatusCode::kResourceExhausted:
    return "resource exhausted";
  case StatusCode::kFailedPrecondition:
    return "failed precondition";
  case StatusCode::kOutOfRange:
    return "out of range";
  case StatusCode::kUnimplemented:
    return "unimplemented";
  case StatusCode::kInternal:
    return "internal";
  case StatusCode::kUnavailable:
    return "unavailable";
  case StatusCode::kDataLoss:
    return "data loss";
  }
  return "unknown code";
}
