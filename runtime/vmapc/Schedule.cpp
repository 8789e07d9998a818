//===- Schedule.cpp - an entry point as a schedule of kernel dispatches ---===//

#include "vmapc/Schedule.h"

namespace vmapc {

std::optional<uint64_t> workgroupsOfDispatch(const KernelInfo &kernel,
                                             uint64_t n, uint64_t limit) {
  uint64_t along[3];
  for (int d = 0; d < 3; ++d) {
    // 0: not chosen yet (the compiler's kernels before tiling).
    if (kernel.workgroupCount[d] == 0)
      return 0;
    along[d] = workgroupsFor(kernel.workgroupCount[d], n);
    if (along[d] == 0)
      return 0;
  }
  uint64_t total = along[0];
  for (int d = 1; d < 3; ++d)
    if (__builtin_mul_overflow(total, along[d], &total))
      return std::nullopt;
  if (total > limit)
    return std::nullopt;
  return total;
}

static std::string countString(int64_t count) {
  if (count == 0)
    return "?";
  if (count > 0)
    return std::to_string(count);
  return "ceil(n/" + std::to_string(-count) + ")";
}

std::string describeSchedule(const std::vector<Command> &commands,
                             const std::vector<KernelInfo> &kernels) {
  std::string out;
  std::vector<uint64_t> open; // Commands left in each enclosing loop body.
  for (const Command &c : commands) {
    out.append(2 * open.size(), ' ');
    if (c.kind == Command::Kind::Loop) {
      out += "loop " + std::to_string(c.tripCount) + "\n";
    } else {
      const KernelInfo *k =
          c.kernel < kernels.size() ? &kernels[c.kernel] : nullptr;
      out += "dispatch " + (k ? k->name : "kernel#" + std::to_string(c.kernel));
      if (k)
        out += " grid(" + countString(k->workgroupCount[0]) + ", " +
               countString(k->workgroupCount[1]) + ", " +
               countString(k->workgroupCount[2]) + ")";
      out += " (";
      for (size_t i = 0; i < c.bindings.size(); ++i) {
        const Binding &b = c.bindings[i];
        out += i ? ", " : "";
        switch (b.kind) {
        case Binding::Kind::Input:
          out += "input " + std::to_string(b.index);
          break;
        case Binding::Kind::Output:
          out += "output " + std::to_string(b.index);
          break;
        case Binding::Kind::Arena:
          out += "arena+" + std::to_string(b.offset);
          break;
        }
      }
      out += ")";
      if (!c.scalars.empty()) {
        out += " scalars(";
        for (size_t i = 0; i < c.scalars.size(); ++i) {
          out += i ? ", " : "";
          out += c.scalars[i].kind == ScalarSource::Kind::NumExamples
                     ? "n"
                     : "i" + std::to_string(c.scalars[i].loop);
        }
        out += ")";
      }
      if (c.oncePerCall)
        out += " once per call";
      out += "\n";
    }
    // Close finished loop bodies, then open this loop's.
    for (auto it = open.rbegin(); it != open.rend(); ++it)
      --*it;
    while (!open.empty() && open.back() == 0)
      open.pop_back();
    if (c.kind == Command::Kind::Loop && c.bodySize > 0)
      open.push_back(c.bodySize);
  }
  return out;
}

} // namespace vmapc
