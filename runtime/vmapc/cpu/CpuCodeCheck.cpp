//===- CpuCodeCheck.cpp - what a CPU code object must be ------------------===//

#include "vmapc/cpu/CpuCodeCheck.h"

#include "vmapc/ElfObject.h"

#include <algorithm>
#include <iterator>

namespace vmapc {
namespace cpu {

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}

static Status checkLevel(const std::string &where, const std::string &level) {
  if (std::find_if(std::begin(kCpuIsaLevels), std::end(kCpuIsaLevels),
                   [&](const char *l) { return level == l; }) ==
      std::end(kCpuIsaLevels))
    return Status::error(StatusCode::kUnimplemented,
                         where + ": unknown ISA level '" + level +
                             "' (x86-64, x86-64-v3, x86-64-v4)");
  return Status();
}

static Status validateElf(const std::string &where, std::string_view c) {
  // ELF64 header: e_ident[16], u16 e_type at 16, u16 e_machine at 18.
  uint16_t type = 0, machine = 0;
  if (!readElfHeader(c, &type, &machine))
    return invalid(where + " is not an ELF object");
  if (machine != 62 /*EM_X86_64*/)
    return invalid(where + " is not an x86-64 ELF object");
  if (type != 3 /*ET_DYN*/)
    return invalid(where + " is not an ELF shared object (ET_DYN)");
  return validateElfLayout(where, c, /*needsLoad=*/true);
}

static Status checkObject(const std::string &where, const CodeObject &o,
                          std::string_view code,
                          const std::vector<KernelInfo> &) {
  if (!o.launches.empty())
    return invalid(where + ": a CPU object has no launch records, it has " +
                   std::to_string(o.launches.size()));
  return validateElf(where, code);
}

const CodeObjectCheck kCpuElfCheck = {checkLevel, "object", checkObject,
                                      nullptr};

} // namespace cpu
} // namespace vmapc
