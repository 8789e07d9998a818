//===- CodeObjectCheck.h - what a backend checks of its code ----*- C++ -*-===//
//
// The validator (ArtifactValidator.h) checks what the format says of every
// code object: a known kind, one object per kind and level, CPU feature
// names within the limits. What an object's level, features, launch records
// and bytes must be depends on the device that runs it, so each backend
// says it: cpu/CpuCodeCheck.h (an x86-64 ELF shared object), and
// cuda/CudaCodeCheck.h (a cubin, PTX). The validator asks codeObjectCheck
// for an object's kind; it has no device knowledge of its own.
//
// Internal: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEOBJECTCHECK_H
#define VMAPC_CODEOBJECTCHECK_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace vmapc {

/// The checks of one code kind.
struct CodeObjectCheck {
  /// Checks `level`, the level of object `where` ("code object #1"):
  /// kUnimplemented for a level this runtime does not know,
  /// kInvalidArgument for a string that is no level of the kind.
  Status (*checkLevel)(const std::string &where, const std::string &level);
  /// How the error for a second object of the kind and level names it:
  /// "a second " + repeatedName + " for level 'L'".
  const char *repeatedName;
  /// Checks object `where` ("code object #1 (sm_90)") past the format's
  /// common rules: its CPU features and launch records against `kernels`,
  /// and its bytes, `code` (the object's, inside the artifact or apart).
  Status (*checkObject)(const std::string &where, const CodeObject &object,
                        std::string_view code,
                        const std::vector<KernelInfo> &kernels);
  /// What an artifact holding such an object must give every argument of
  /// every entry a staging slot for (the error: "... has no staging slot,
  /// which " + needsEveryStagingSlot + " needs"), or null.
  const char *needsEveryStagingSlot;
};

/// The checks of code kind `kind` (from the backends' folders), or null
/// for a kind this runtime does not know (CodeObjectChecks.cpp).
const CodeObjectCheck *codeObjectCheck(CodeKind kind);

} // namespace vmapc

#endif // VMAPC_CODEOBJECTCHECK_H
