//===- ArtifactValidator.cpp - the artifact's semantic rules --------------===//

#include "vmapc/ArtifactValidator.h"

#include "vmapc/CodeObjectCheck.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

namespace vmapc {

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}
static Status outOfRange(std::string message) {
  return Status::error(StatusCode::kOutOfRange, std::move(message));
}

static bool isValidDType(uint8_t v) { return v >= 1 && v <= 3; }

static Status checkName(const std::string &name, const std::string &what) {
  if (name.empty())
    return invalid(what + " is empty");
  if (name.size() > kMaxNameBytes)
    return outOfRange(what + " is longer than " +
                      std::to_string(kMaxNameBytes) + " bytes");
  if (name.find('\0') != std::string::npos)
    return invalid(what + " contains a NUL byte");
  return Status();
}

static std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {
/// The bytes [begin, end) of one staging slot in the arena.
struct Slot {
  uint64_t begin, end;
  bool operator<(const Slot &o) const { return begin < o.begin; }
};
} // namespace

static Status validateArgs(const EntryInfo &entry,
                           const std::vector<ArgInfo> &args, const char *kind,
                           std::vector<Slot> &slots) {
  if (args.size() > kMaxArgs)
    return outOfRange("entry '" + entry.name + "' has more than " +
                      std::to_string(kMaxArgs) + " " + kind + "s");
  std::set<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgInfo &arg = args[i];
    std::string where =
        "entry '" + entry.name + "' " + kind + " #" + std::to_string(i);
    VMAPC_RETURN_IF_ERROR(checkName(arg.name, where + " name"));
    where = "entry '" + entry.name + "' " + kind + " '" + arg.name + "'";
    if (!names.insert(arg.name).second)
      return invalid(where + ": duplicate name");
    if (!isValidDType(uint8_t(arg.dtype)))
      return invalid(where + ": invalid dtype " +
                     std::to_string(unsigned(arg.dtype)));
    if (arg.shape.size() > kMaxRank)
      return outOfRange(where + ": rank " + std::to_string(arg.shape.size()) +
                        " exceeds the maximum " + std::to_string(kMaxRank));
    for (int64_t d : arg.shape)
      if (d < 0)
        return invalid(where + ": negative dimension in shape " +
                       shapeString(arg.shape));
    int64_t rank = int64_t(arg.shape.size());
    if (arg.mappedAxis != kNoAxis &&
        (arg.mappedAxis < 0 || arg.mappedAxis > rank))
      return invalid(where + ": mapped axis " + std::to_string(arg.mappedAxis) +
                     " out of range [0, " + std::to_string(rank) +
                     "] (or -1 for none)");
    // A caller passes the batched array, which has one dim more (Runtime.h's
    // Shape holds at most kMaxRank).
    if (arg.isMapped() && arg.shape.size() + 1 > kMaxRank)
      return outOfRange(where + ": mapped, its batched array has " +
                        std::to_string(rank + 1) + " dims, more than the " +
                        "maximum " + std::to_string(kMaxRank));
    std::vector<int64_t> batched = batchedShape(arg, entry.batchSize);
    std::optional<uint64_t> batchedBytes =
        arrayBytes(arg.dtype, batched.data(), batched.size());
    if (!batchedBytes)
      return outOfRange(where + ": array of shape " + shapeString(arg.shape) +
                        (arg.isMapped()
                             ? " x batch " + std::to_string(entry.batchSize)
                             : std::string()) +
                        " takes 2^62 bytes or more");
    if (arg.isMapped() && !arg.hasStaging())
      return invalid(where + ": mapped argument has no staging slot");
    if (arg.hasStaging() && arg.stagingOffset % entry.arenaAlignment != 0)
      return invalid(where + ": staging offset " +
                     std::to_string(arg.stagingOffset) +
                     " is not a multiple of the arena alignment " +
                     std::to_string(entry.arenaAlignment));
    if (arg.hasStaging()) {
      std::optional<uint64_t> slotEnd =
          checkedAddBytes(arg.stagingOffset, *batchedBytes);
      if (!slotEnd || *slotEnd > entry.arenaBytes)
        return invalid(
            where + ": staging slot [" + std::to_string(arg.stagingOffset) +
            ", +" + std::to_string(*batchedBytes) + ") exceeds the arena of " +
            std::to_string(entry.arenaBytes) + " bytes");
      if (*slotEnd > arg.stagingOffset)
        slots.push_back({arg.stagingOffset, *slotEnd});
    }
  }
  return Status();
}

/// Donations (`ArgInfo::donatedFrom`): only outputs have a donor; each
/// donor is a distinct input with the output's dtype, per-example shape and
/// mapped axis (mapped), and its staging slot is the output's.
static Status validateDonations(const EntryInfo &entry) {
  for (const ArgInfo &in : entry.inputs)
    if (in.isDonated())
      return invalid("entry '" + entry.name + "' input '" + in.name +
                     "': an input has no donor (donor " +
                     std::to_string(in.donatedFrom) + ")");
  std::vector<bool> donated(entry.inputs.size(), false);
  for (const ArgInfo &out : entry.outputs) {
    if (!out.isDonated())
      continue;
    std::string where = "entry '" + entry.name + "' output '" + out.name + "'";
    if (out.donatedFrom < 0 || size_t(out.donatedFrom) >= entry.inputs.size())
      return invalid(where + ": donor input #" +
                     std::to_string(out.donatedFrom) + " does not exist");
    if (donated[out.donatedFrom])
      return invalid(where + ": input #" + std::to_string(out.donatedFrom) +
                     " is donated to two outputs");
    donated[out.donatedFrom] = true;
    const ArgInfo &in = entry.inputs[out.donatedFrom];
    if (in.dtype != out.dtype || in.shape != out.shape ||
        in.mappedAxis != out.mappedAxis || !out.isMapped() ||
        in.stagingOffset != out.stagingOffset)
      return invalid(where + " takes the bytes of input '" + in.name +
                     "', which differs from it in dtype, per-example shape, "
                     "mapped axis or staging slot (or is not mapped)");
  }
  return Status();
}

/// Two slots of `slots` that overlap, found by sorting (n log n: a crafted
/// manifest with thousands of arguments costs no quadratic time).
static Status checkDisjoint(const EntryInfo &entry, std::vector<Slot> slots) {
  std::sort(slots.begin(), slots.end());
  for (size_t i = 1; i < slots.size(); ++i)
    if (slots[i].begin < slots[i - 1].end)
      return invalid("entry '" + entry.name +
                     "': staging slots overlap at arena offsets " +
                     std::to_string(slots[i - 1].begin) + " and " +
                     std::to_string(slots[i].begin));
  return Status();
}

static bool isIdentifier(const std::string &name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

Status validateKernel(const KernelInfo &k) {
  VMAPC_RETURN_IF_ERROR(checkName(k.name, "kernel name"));
  std::string where = "kernel '" + k.name + "'";
  if (!isIdentifier(k.name))
    return invalid(where + ": a kernel name is letters, digits and _ only");
  if (k.numBindings > kMaxBindings || k.numScalars > kMaxScalars)
    return outOfRange(where + ": " + std::to_string(k.numBindings) +
                      " bindings and " + std::to_string(k.numScalars) +
                      " scalars (at most " + std::to_string(kMaxBindings) +
                      " and " + std::to_string(kMaxScalars) + ")");
  if (k.bindingBytes.size() != k.numBindings)
    return invalid(where + ": " + std::to_string(k.bindingBytes.size()) +
                   " binding sizes for " + std::to_string(k.numBindings) +
                   " bindings");
  for (uint64_t bytes : k.bindingBytes)
    if (bytes >= kMaxArrayBytes)
      return outOfRange(where + ": a binding of 2^62 bytes or more");
  if (k.bindingAccess.size() != k.numBindings)
    return invalid(where + ": " + std::to_string(k.bindingAccess.size()) +
                   " binding accesses for " + std::to_string(k.numBindings) +
                   " bindings");
  for (size_t j = 0; j < k.bindingAccess.size(); ++j) {
    uint8_t access = uint8_t(k.bindingAccess[j]);
    if (access < 1 || access > 3)
      return invalid(where + " binding " + std::to_string(j) +
                     ": unknown access " + std::to_string(access) +
                     " (1 read, 2 write, 3 read-write)");
  }
  for (int d = 0; d < 3; ++d) {
    int64_t c = k.workgroupCount[d];
    if (c == 0 || c > kMaxWorkgroups || c < -kMaxWorkgroups)
      return invalid(where + ": workgroup count " + std::to_string(c) +
                     " along dimension " + std::to_string(d) +
                     " (a constant in [1, 2^31], or -T for ceil(n / T))");
  }
  if (k.scratchBytes > kMaxScratchBytes)
    return outOfRange(where + ": " + std::to_string(k.scratchBytes) +
                      " bytes of scratch, more than " +
                      std::to_string(kMaxScratchBytes));
  return Status();
}

/// The bytes a binding to argument `arg` of an entry with batch `b` points
/// to: B examples of a mapped argument, one of an unmapped one.
static uint64_t argumentBytes(const ArgInfo &arg, uint32_t b) {
  uint64_t bytes = uint64_t(exampleBytes(arg));
  return arg.isMapped() ? *checkedMulBytes(bytes, b) : bytes;
}

static Status validateSchedule(const EntryInfo &e,
                               const std::vector<KernelInfo> &kernels) {
  std::string where = "entry '" + e.name + "' schedule";
  if (e.schedule.size() > kMaxCommands)
    return outOfRange(where + ": more than " + std::to_string(kMaxCommands) +
                      " commands");
  // The loops open at each command: where their bodies end, and the product
  // of their trip counts.
  struct Open {
    size_t end;
    /// The product of the trip counts, each taken as at least 1 (a bound),
    /// and the times the body runs (0 inside a loop of no trips).
    uint64_t trips, runs;
  };
  std::vector<Open> open;
  // Workgroups of a full chunk so far.
  uint64_t chunkWorkgroups = 0;
  // The compiler validates an entry before its kernels are lowered, when
  // what they access is not known yet (validateKernel requires it).
  bool accessKnown = true;
  for (size_t i = 0; i < e.schedule.size(); ++i) {
    while (!open.empty() && open.back().end <= i)
      open.pop_back();
    const Command &c = e.schedule[i];
    std::string at = where + " command " + std::to_string(i);
    if (c.kind == Command::Kind::Loop) {
      size_t enclosingEnd = open.empty() ? e.schedule.size() : open.back().end;
      uint64_t trips = open.empty() ? 1 : open.back().trips;
      uint64_t runs = open.empty() ? 1 : open.back().runs;
      if (c.bodySize > enclosingEnd - i - 1)
        return invalid(at + ": a loop body of " + std::to_string(c.bodySize) +
                       " commands leaves its enclosing body");
      if (open.size() + 1 > kMaxLoopDepth)
        return outOfRange(at + ": loops nest deeper than " +
                          std::to_string(kMaxLoopDepth));
      if (c.tripCount > kMaxTripCount ||
          (c.tripCount && trips > kMaxTripCount / c.tripCount))
        return outOfRange(at + ": nested loops repeat more than 2^32 times");
      // Both products are at most kMaxTripCount^2 < 2^64.
      open.push_back({i + 1 + c.bodySize,
                      trips * std::max<uint64_t>(c.tripCount, 1),
                      runs * std::min<uint64_t>(c.tripCount, kMaxTripCount)});
      continue;
    }
    if (c.kind != Command::Kind::Dispatch)
      return invalid(at + ": unknown command kind " +
                     std::to_string(unsigned(c.kind)));
    if (c.kernel >= kernels.size())
      return invalid(at + ": kernel #" + std::to_string(c.kernel) +
                     " does not exist (" + std::to_string(kernels.size()) +
                     " kernels)");
    const KernelInfo &k = kernels[c.kernel];
    if (c.bindings.size() != k.numBindings || c.scalars.size() != k.numScalars)
      return invalid(at + ": kernel '" + k.name + "' takes " +
                     std::to_string(k.numBindings) + " bindings and " +
                     std::to_string(k.numScalars) +
                     " scalars, the dispatch "
                     "gives " +
                     std::to_string(c.bindings.size()) + " and " +
                     std::to_string(c.scalars.size()));
    for (int d = 0; d < 3; ++d)
      if (k.workgroupCount[d] < 0 && -k.workgroupCount[d] > e.batchSize)
        return invalid(at + ": kernel '" + k.name + "' has a tile of " +
                       std::to_string(-k.workgroupCount[d]) +
                       " examples along dimension " + std::to_string(d) +
                       ", more than the batch size " +
                       std::to_string(e.batchSize));
    // Every count the runtime computes from this dispatch, bounded.
    std::optional<uint64_t> workgroups =
        workgroupsOfDispatch(k, e.batchSize, kMaxWorkgroupsPerDispatch);
    if (!workgroups)
      return outOfRange(at + ": kernel '" + k.name +
                        "' runs more than 2^32 workgroups per dispatch");
    uint64_t runs = open.empty() ? 1 : open.back().runs;
    uint64_t perChunk = 0;
    if (__builtin_mul_overflow(*workgroups, runs, &perChunk) ||
        __builtin_add_overflow(chunkWorkgroups, perChunk, &chunkWorkgroups) ||
        chunkWorkgroups > kMaxWorkgroupsPerChunk)
      return outOfRange(at + ": the schedule runs more than 2^40 workgroups "
                             "per chunk");
    if (c.oncePerCall && (!open.empty() || !c.scalars.empty()))
      return invalid(at + ": a dispatch run once per call is " +
                     (open.empty() ? "given scalars" : "inside a loop") +
                     ", which differ between its runs");
    accessKnown = accessKnown && k.bindingAccess.size() == k.numBindings;
    for (size_t j = 0; j < c.bindings.size(); ++j) {
      const Binding &b = c.bindings[j];
      std::string binding = at + " binding " + std::to_string(j);
      uint64_t need = k.bindingBytes[j];
      uint64_t have = 0;
      switch (b.kind) {
      case Binding::Kind::Input:
      case Binding::Kind::Output: {
        bool input = b.kind == Binding::Kind::Input;
        const std::vector<ArgInfo> &args = input ? e.inputs : e.outputs;
        if (b.index >= args.size())
          return invalid(binding + ": " + (input ? "input" : "output") + " #" +
                         std::to_string(b.index) + " does not exist");
        have = argumentBytes(args[b.index], e.batchSize);
        break;
      }
      case Binding::Kind::Arena: {
        std::optional<uint64_t> end = checkedAddBytes(b.offset, need);
        if (!end || *end > e.arenaBytes)
          return invalid(binding + ": arena bytes [" +
                         std::to_string(b.offset) + ", +" +
                         std::to_string(need) + ") exceed the arena of " +
                         std::to_string(e.arenaBytes) + " bytes");
        if (b.offset % e.arenaAlignment != 0)
          return invalid(binding + ": arena offset " +
                         std::to_string(b.offset) +
                         " is not a multiple of the arena alignment " +
                         std::to_string(e.arenaAlignment));
        have = need;
        break;
      }
      default:
        return invalid(binding + ": unknown binding kind " +
                       std::to_string(unsigned(b.kind)));
      }
      if (need > have)
        return invalid(binding + ": kernel '" + k.name + "' accesses " +
                       std::to_string(need) + " bytes, the argument has " +
                       std::to_string(have));
      // Run in the first chunk only, it must see the same bytes as every
      // chunk would: unmapped inputs and the arena, never an output.
      if (c.oncePerCall &&
          (b.kind == Binding::Kind::Output ||
           (b.kind == Binding::Kind::Input && e.inputs[b.index].isMapped())))
        return invalid(binding + ": a dispatch run once per call binds " +
                       (b.kind == Binding::Kind::Output ? "output" : "input") +
                       " #" + std::to_string(b.index) +
                       ", which differs between chunks");
    }
    for (size_t j = 0; j < c.scalars.size(); ++j) {
      const ScalarSource &src = c.scalars[j];
      if (src.kind == ScalarSource::Kind::NumExamples)
        continue;
      if (src.kind != ScalarSource::Kind::LoopIndex)
        return invalid(at + " scalar " + std::to_string(j) +
                       ": unknown scalar kind " +
                       std::to_string(unsigned(src.kind)));
      if (src.loop >= open.size())
        return invalid(at + " scalar " + std::to_string(j) + ": loop " +
                       std::to_string(src.loop) + " does not enclose it");
    }
  }
  return accessKnown ? validateAccess(e, kernels) : Status();
}

Status validateAccess(const EntryInfo &e,
                      const std::vector<KernelInfo> &kernels) {
  std::string where = "entry '" + e.name + "' schedule";
  std::vector<bool> written(e.outputs.size());
  // A donated input is its output's buffer: written, it writes the output.
  std::vector<int64_t> donatedTo(e.inputs.size(), -1);
  for (size_t j = 0; j < e.outputs.size(); ++j)
    if (e.outputs[j].isDonated() &&
        size_t(e.outputs[j].donatedFrom) < e.inputs.size())
      donatedTo[e.outputs[j].donatedFrom] = int64_t(j);
  // The open loops: where each body ends, and whether it runs (no loop of
  // 0 trips around it).
  std::vector<std::pair<size_t, bool>> open;
  for (size_t i = 0; i < e.schedule.size(); ++i) {
    while (!open.empty() && open.back().first <= i)
      open.pop_back();
    bool runs = open.empty() || open.back().second;
    const Command &c = e.schedule[i];
    if (c.kind == Command::Kind::Loop) {
      open.push_back({i + 1 + c.bodySize, runs && c.tripCount > 0});
      continue;
    }
    const KernelInfo &k = kernels[c.kernel];
    for (size_t j = 0; j < c.bindings.size(); ++j) {
      const Binding &b = c.bindings[j];
      if (b.kind == Binding::Kind::Input && writes(k.bindingAccess[j])) {
        if (b.index < donatedTo.size() && donatedTo[b.index] >= 0) {
          written[donatedTo[b.index]] = written[donatedTo[b.index]] || runs;
          continue;
        }
        return invalid(where + " command " + std::to_string(i) + " binding " +
                       std::to_string(j) + ": kernel '" + k.name +
                       "' writes this binding, which is bound to input #" +
                       std::to_string(b.index) +
                       " (inputs are the caller's, read only, unless donated)");
      }
      if (b.kind == Binding::Kind::Output && writes(k.bindingAccess[j]) && runs)
        written[b.index] = true;
    }
  }
  // An output nothing writes would be returned as whatever its memory held.
  for (size_t i = 0; i < e.outputs.size(); ++i)
    if (!written[i] && exampleBytes(e.outputs[i]) > 0)
      return invalid(where + ": no dispatch writes output #" +
                     std::to_string(i) + " '" + e.outputs[i].name + "'");
  return Status();
}

Status validateEntry(const EntryInfo &e,
                     const std::vector<KernelInfo> &kernels) {
  VMAPC_RETURN_IF_ERROR(checkName(e.name, "entry name"));
  if (e.batchSize < 1)
    return invalid("entry '" + e.name + "': batch size must be >= 1");
  if (e.arenaBytes >= kMaxArrayBytes)
    return outOfRange("entry '" + e.name + "': arena of " +
                      std::to_string(e.arenaBytes) +
                      " bytes is too large (the limit is 2^62 bytes)");
  if (e.arenaAlignment < 1 || e.arenaAlignment > kMaxArenaAlignment ||
      (e.arenaAlignment & (e.arenaAlignment - 1)) != 0)
    return invalid("entry '" + e.name + "': arena alignment " +
                   std::to_string(e.arenaAlignment) +
                   " is not a power of two from 1 to " +
                   std::to_string(kMaxArenaAlignment));
  // Input slots are all filled before the schedule runs and output slots
  // are all read after it, so two inputs (or two outputs) must not share
  // bytes; an input slot may share bytes with an output slot (the plan
  // gives them disjoint live intervals).
  std::vector<Slot> inSlots, outSlots;
  VMAPC_RETURN_IF_ERROR(validateArgs(e, e.inputs, "input", inSlots));
  VMAPC_RETURN_IF_ERROR(validateArgs(e, e.outputs, "output", outSlots));
  VMAPC_RETURN_IF_ERROR(checkDisjoint(e, std::move(inSlots)));
  VMAPC_RETURN_IF_ERROR(checkDisjoint(e, std::move(outSlots)));
  VMAPC_RETURN_IF_ERROR(validateDonations(e));
  return validateSchedule(e, kernels);
}

Status unsupportedCodeKind(size_t index, uint32_t kind) {
  return Status::error(StatusCode::kUnimplemented,
                       "code object #" + std::to_string(index) +
                           ": unsupported kind " + std::to_string(kind) +
                           " (this runtime supports 1 = x86-64 ELF, 2 = CUDA "
                           "cubin, 3 = CUDA PTX)");
}

/// Every argument of every entry has a staging slot, as `what` needs.
static Status checkEveryStagingSlot(const std::vector<EntryInfo> &entries,
                                    const char *what) {
  for (const EntryInfo &e : entries)
    for (auto [list, kind] :
         {std::pair{&e.inputs, "input"}, std::pair{&e.outputs, "output"}})
      for (const ArgInfo &arg : *list)
        if (!arg.hasStaging())
          return invalid(std::string(kind) + " '" + arg.name + "' of entry '" +
                         e.name + "' has no staging slot, which " + what +
                         " needs");
  return Status();
}

Status validateArtifactCode(const Artifact &artifact,
                            const std::vector<std::string_view> &code) {
  if (artifact.kernels.empty())
    return invalid("artifact has no kernels");
  if (artifact.kernels.size() > kMaxKernels)
    return outOfRange("more than " + std::to_string(kMaxKernels) + " kernels");
  std::set<std::string> kernelNames;
  for (const KernelInfo &k : artifact.kernels) {
    VMAPC_RETURN_IF_ERROR(validateKernel(k));
    if (!kernelNames.insert(k.name).second)
      return invalid("duplicate kernel name '" + k.name + "'");
  }
  if (artifact.entries.empty())
    return invalid("artifact has no entries");
  if (artifact.entries.size() > kMaxEntries)
    return outOfRange("more than " + std::to_string(kMaxEntries) + " entries");
  std::set<std::string> names;
  for (size_t i = 0; i < artifact.entries.size(); ++i) {
    const EntryInfo &e = artifact.entries[i];
    VMAPC_RETURN_IF_ERROR(
        checkName(e.name, "entry #" + std::to_string(i) + " name"));
    if (!names.insert(e.name).second)
      return invalid("duplicate entry name '" + e.name + "'");
    VMAPC_RETURN_IF_ERROR(validateEntry(e, artifact.kernels));
  }
  if (artifact.codeObjects.empty())
    return invalid("artifact has no code objects");
  if (artifact.codeObjects.size() > kMaxCodeObjects)
    return outOfRange("more than " + std::to_string(kMaxCodeObjects) +
                      " code objects");
  std::set<std::pair<CodeKind, std::string>> levels;
  // What needs every argument to have a staging slot (CUDA code), if any.
  const char *needsEveryStagingSlot = nullptr;
  for (size_t i = 0; i < artifact.codeObjects.size(); ++i) {
    const CodeObject &o = artifact.codeObjects[i];
    std::string where = "code object #" + std::to_string(i);
    const CodeObjectCheck *check = codeObjectCheck(o.kind);
    if (!check)
      return unsupportedCodeKind(i, uint32_t(o.kind));
    if (check->needsEveryStagingSlot)
      needsEveryStagingSlot = check->needsEveryStagingSlot;
    VMAPC_RETURN_IF_ERROR(check->checkLevel(where, o.level));
    if (!levels.insert({o.kind, o.level}).second)
      return invalid(where + ": a second " + check->repeatedName +
                     " for level '" + o.level + "'");
    where += " (" + o.level + ")";
    if (o.cpuFeatures.size() > kMaxCpuFeatures)
      return outOfRange("code object #" + std::to_string(i) + ": more than " +
                        std::to_string(kMaxCpuFeatures) + " CPU features");
    for (const std::string &f : o.cpuFeatures)
      VMAPC_RETURN_IF_ERROR(checkName(f, "code object #" + std::to_string(i) +
                                             " CPU feature name"));
    VMAPC_RETURN_IF_ERROR(
        check->checkObject(where, o, code[i], artifact.kernels));
  }
  if (needsEveryStagingSlot)
    VMAPC_RETURN_IF_ERROR(
        checkEveryStagingSlot(artifact.entries, needsEveryStagingSlot));
  return Status();
}

Status validateArtifact(const Artifact &artifact) {
  std::vector<std::string_view> code;
  for (const CodeObject &o : artifact.codeObjects)
    code.push_back(o.bytes);
  return validateArtifactCode(artifact, code);
}

} // namespace vmapc
