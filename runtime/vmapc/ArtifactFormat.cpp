//===- ArtifactFormat.cpp - .vmapc writer, reader and validator ----------===//

#include "vmapc/ArtifactFormat.h"

#include "vmapc/ReadFile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <set>

namespace vmapc {

/// The smallest encoded argument: a u32 name length and a one-byte name, u8
/// dtype, u8 rank, u16 reserved, i32 axis, u64 staging offset, no dims.
static constexpr uint64_t kMinArgBytes = 4 + 1 + 1 + 1 + 2 + 4 + 8;

size_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::Bool:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::Bool:
    return "bool";
  }
  return "invalid";
}

const char *codeKindName(CodeKind kind) {
  switch (kind) {
  case CodeKind::CpuElf:
    return "x86-64 ELF";
  case CodeKind::CudaCubin:
    return "CUDA cubin";
  case CodeKind::CudaPtx:
    return "CUDA PTX";
  }
  return "unknown";
}

uint64_t fnv1a64(const void *data, size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<uint64_t> checkedMulBytes(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r) || r >= kMaxArrayBytes)
    return std::nullopt;
  return r;
}

std::optional<uint64_t> checkedAddBytes(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r) || r >= kMaxArrayBytes)
    return std::nullopt;
  return r;
}

std::optional<uint64_t> arrayBytes(DType dtype, const int64_t *dims,
                                   size_t rank) {
  std::optional<uint64_t> bytes = dtypeBytes(dtype);
  if (*bytes == 0)
    return std::nullopt;
  bool empty = false;
  for (size_t i = 0; i < rank && bytes; ++i) {
    if (dims[i] < 0)
      return std::nullopt;
    if (dims[i] == 0)
      empty = true;
    else
      bytes = checkedMulBytes(*bytes, uint64_t(dims[i]));
  }
  if (!bytes)
    return std::nullopt;
  return empty ? 0 : *bytes;
}

int64_t exampleBytes(const ArgInfo &arg) {
  std::optional<uint64_t> bytes =
      arrayBytes(arg.dtype, arg.shape.data(), arg.shape.size());
  return bytes ? int64_t(*bytes) : -1;
}

std::vector<int64_t> batchedShape(const ArgInfo &arg, int64_t n) {
  std::vector<int64_t> shape = arg.shape;
  if (arg.isMapped())
    shape.insert(shape.begin() + arg.mappedAxis, n);
  return shape;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}
static Status outOfRange(std::string message) {
  return Status::error(StatusCode::kOutOfRange, std::move(message));
}
static Status dataLoss(std::string message) {
  return Status::error(StatusCode::kDataLoss, std::move(message));
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
      if (b.kind == Binding::Kind::Input && writes(k.bindingAccess[j]))
        return invalid(where + " command " + std::to_string(i) + " binding " +
                       std::to_string(j) + ": kernel '" + k.name +
                       "' writes this binding, which is bound to input #" +
                       std::to_string(b.index) +
                       " (inputs are the caller's, read only)");
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
  // Input slots are all filled before the schedule runs and output slots
  // are all read after it, so two inputs (or two outputs) must not share
  // bytes; an input slot may share bytes with an output slot (the plan
  // gives them disjoint live intervals).
  std::vector<Slot> inSlots, outSlots;
  VMAPC_RETURN_IF_ERROR(validateArgs(e, e.inputs, "input", inSlots));
  VMAPC_RETURN_IF_ERROR(validateArgs(e, e.outputs, "output", outSlots));
  VMAPC_RETURN_IF_ERROR(checkDisjoint(e, std::move(inSlots)));
  VMAPC_RETURN_IF_ERROR(checkDisjoint(e, std::move(outSlots)));
  return validateSchedule(e, kernels);
}

/// An ELF header's e_ident class and data bytes and its u16 e_type and
/// e_machine, or false for fewer bytes than an ELF64 header or no ELF magic.
static bool readElfHeader(std::string_view c, uint16_t *type,
                          uint16_t *machine) {
  if (c.size() < 64 || std::memcmp(c.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0)
    return false;
  auto u16At = [&](size_t off) {
    return uint16_t(uint8_t(c[off]) | (uint8_t(c[off + 1]) << 8));
  };
  // ELFCLASS64, ELFDATA2LSB: anything else reads as machine 0.
  bool le64 = c[4] == 2 && c[5] == 1;
  *type = u16At(16);
  *machine = le64 ? u16At(18) : 0;
  return true;
}

/// The layout of the little-endian ELF64 object `c` (its header read by
/// readElfHeader): its program and section header tables, every segment's
/// file bytes and every section's (but SHT_NOBITS) lie inside `c`, and the
/// section name table's index names a section; with `needsLoad`, it has a
/// PT_LOAD segment. So neither dlopen nor the CUDA driver reads past the
/// object (System V ABI, "ELF Header", "Program Header", "Sections").
static Status validateElfLayout(const std::string &where, std::string_view c,
                                bool needsLoad) {
  // A field of `c` in host order (little-endian, asserted below).
  auto field = [&](uint64_t off, auto zero) {
    decltype(zero) v;
    std::memcpy(&v, c.data() + off, sizeof(v));
    return v;
  };
  auto u16At = [&](uint64_t off) { return field(off, uint16_t(0)); };
  auto u32At = [&](uint64_t off) { return field(off, uint32_t(0)); };
  auto u64At = [&](uint64_t off) { return field(off, uint64_t(0)); };
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "ELF fields are read in host order");
  if (c[4] != 2 || c[5] != 1 || c[6] != 1)
    return invalid(where + " is not a little-endian ELF64 object of version "
                           "1");
  // [offset, offset + count x size) inside the object, checked.
  auto inside = [&](uint64_t offset, uint64_t count, uint64_t size) {
    uint64_t bytes = 0, end = 0;
    return !__builtin_mul_overflow(count, size, &bytes) &&
           !__builtin_add_overflow(offset, bytes, &end) && end <= c.size();
  };
  uint64_t phoff = u64At(32), shoff = u64At(40);
  uint16_t ehsize = u16At(52), phentsize = u16At(54), phnum = u16At(56);
  uint16_t shentsize = u16At(58), shnum = u16At(60), shstrndx = u16At(62);
  if (ehsize != 64)
    return invalid(where + ": an ELF header of " + std::to_string(ehsize) +
                   " bytes (ELF64's is 64)");
  if (phnum && (phentsize != 56 || !inside(phoff, phnum, 56)))
    return invalid(where + ": its " + std::to_string(phnum) +
                   " program headers (at " + std::to_string(phoff) +
                   ") are not 56-byte entries inside its " +
                   std::to_string(c.size()) + " bytes");
  if (shnum == 0 && (shoff != 0 || shstrndx != 0))
    return invalid(where + ": extended ELF section numbering (no section "
                           "count in the header) is not supported");
  if (shnum && (shentsize != 64 || !inside(shoff, shnum, 64)))
    return invalid(where + ": its " + std::to_string(shnum) +
                   " section headers (at " + std::to_string(shoff) +
                   ") are not 64-byte entries inside its " +
                   std::to_string(c.size()) + " bytes");
  if (shnum && shstrndx >= shnum)
    return invalid(where + ": section name table index " +
                   std::to_string(shstrndx) + " of " + std::to_string(shnum) +
                   " sections");
  bool hasLoad = false;
  for (uint64_t i = 0; i < phnum; ++i) {
    uint64_t h = phoff + i * 56;
    uint32_t type = u32At(h);
    uint64_t offset = u64At(h + 8), fileBytes = u64At(h + 32),
             memBytes = u64At(h + 40);
    if (!inside(offset, 1, fileBytes))
      return invalid(where + ": segment " + std::to_string(i) + " (type " +
                     std::to_string(type) + ") has file bytes [" +
                     std::to_string(offset) + ", +" +
                     std::to_string(fileBytes) + ") past the object's " +
                     std::to_string(c.size()) + " bytes");
    if (type == 1 /*PT_LOAD*/) {
      hasLoad = true;
      if (fileBytes > memBytes)
        return invalid(where + ": loadable segment " + std::to_string(i) +
                       " has more file bytes than memory bytes");
    }
  }
  if (needsLoad && !hasLoad)
    return invalid(where + " has no loadable segment");
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t h = shoff + i * 64;
    uint32_t type = u32At(h + 4);
    uint64_t offset = u64At(h + 24), bytes = u64At(h + 32);
    if (type != 0 /*SHT_NULL*/ && type != 8 /*SHT_NOBITS*/ &&
        !inside(offset, 1, bytes))
      return invalid(where + ": section " + std::to_string(i) + " (type " +
                     std::to_string(type) + ") has bytes [" +
                     std::to_string(offset) + ", +" + std::to_string(bytes) +
                     ") past the object's " + std::to_string(c.size()) +
                     " bytes");
  }
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

/// A cubin: a little-endian ELF64 object for NVIDIA GPUs (EM_CUDA, 190).
/// PTX: text without a NUL byte.
static Status validateCudaCode(const std::string &where, CodeKind kind,
                               std::string_view c) {
  if (kind == CodeKind::CudaPtx) {
    size_t nul = c.find('\0');
    if (nul != std::string_view::npos)
      return invalid(where + " is PTX with a NUL byte at offset " +
                     std::to_string(nul));
    return Status();
  }
  uint16_t type = 0, machine = 0;
  if (!readElfHeader(c, &type, &machine) || machine != 190 /*EM_CUDA*/)
    return invalid(where + " is not a CUDA cubin (an ELF object for NVIDIA "
                           "GPUs, EM_CUDA)");
  return validateElfLayout(where, c, /*needsLoad=*/false);
}

/// "sm_" and 2 or 3 digits.
static bool isSmArchitecture(const std::string &level) {
  if (level.size() < 5 || level.size() > 6 || level.compare(0, 3, "sm_") != 0)
    return false;
  return std::all_of(level.begin() + 3, level.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

static Status unsupportedKind(size_t index, uint32_t kind) {
  return Status::error(StatusCode::kUnimplemented,
                       "code object #" + std::to_string(index) +
                           ": unsupported kind " + std::to_string(kind) +
                           " (this runtime supports 1 = x86-64 ELF, 2 = CUDA "
                           "cubin, 3 = CUDA PTX)");
}

/// The launch records of CUDA object `where` against the kernels.
static Status validateLaunches(const std::string &where, const CodeObject &o,
                               const std::vector<KernelInfo> &kernels) {
  if (o.launches.size() != kernels.size())
    return invalid(where + ": " + std::to_string(o.launches.size()) +
                   " launch records for " + std::to_string(kernels.size()) +
                   " kernels");
  for (size_t k = 0; k < kernels.size(); ++k) {
    const GpuLaunch &l = o.launches[k];
    std::string at = where + ": kernel '" + kernels[k].name + "': ";
    for (int d = 0; d < 3; ++d)
      if (l.block[d] == 0)
        return invalid(at + "block dimension " + "xyz"[d] +
                       " is 0 (each is at least 1)");
    // Each dimension past the limit makes the product pass it too; below
    // it, the product fits in 64 bits.
    uint64_t threads = 1;
    for (uint32_t b : l.block)
      threads *= std::min<uint64_t>(b, kMaxGpuThreadsPerBlock + 1);
    if (threads > kMaxGpuThreadsPerBlock)
      return outOfRange(at + "a block of " + std::to_string(l.block[0]) +
                        " x " + std::to_string(l.block[1]) + " x " +
                        std::to_string(l.block[2]) + " threads, more than " +
                        std::to_string(kMaxGpuThreadsPerBlock));
    if (l.sharedBytes > kMaxGpuSharedBytes)
      return outOfRange(at + std::to_string(l.sharedBytes) +
                        " bytes of dynamic shared memory, more than " +
                        std::to_string(kMaxGpuSharedBytes));
  }
  return Status();
}

/// With a CUDA code object, every argument has a staging slot.
static Status checkCudaStaging(const std::vector<EntryInfo> &entries) {
  for (const EntryInfo &e : entries)
    for (auto [list, kind] :
         {std::pair{&e.inputs, "input"}, std::pair{&e.outputs, "output"}})
      for (const ArgInfo &arg : *list)
        if (!arg.hasStaging())
          return invalid(std::string(kind) + " '" + arg.name + "' of entry '" +
                         e.name +
                         "' has no staging slot, which a CUDA code object "
                         "needs");
  return Status();
}

/// validateArtifact with the code objects' bytes given apart
/// (parseArtifactInPlace leaves `CodeObject::bytes` empty).
static Status validate(const Artifact &artifact,
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
  bool hasCuda = false;
  for (size_t i = 0; i < artifact.codeObjects.size(); ++i) {
    const CodeObject &o = artifact.codeObjects[i];
    std::string where = "code object #" + std::to_string(i);
    bool cuda = isCudaCode(o.kind);
    if (o.kind != CodeKind::CpuElf && !cuda)
      return unsupportedKind(i, uint32_t(o.kind));
    hasCuda |= cuda;
    if (!cuda && std::find_if(std::begin(kCpuIsaLevels),
                              std::end(kCpuIsaLevels), [&](const char *l) {
                                return o.level == l;
                              }) == std::end(kCpuIsaLevels))
      return Status::error(StatusCode::kUnimplemented,
                           where + ": unknown ISA level '" + o.level +
                               "' (x86-64, x86-64-v3, x86-64-v4)");
    if (cuda && !isSmArchitecture(o.level))
      return invalid(where + ": SM architecture '" + o.level +
                     "' is not sm_ and 2 or 3 digits (sm_90)");
    if (!levels.insert({o.kind, o.level}).second)
      return invalid(where + ": a second " +
                     (cuda ? std::string(codeKindName(o.kind)) + " object"
                           : std::string("object")) +
                     " for level '" + o.level + "'");
    where += " (" + o.level + ")";
    if (o.cpuFeatures.size() > kMaxCpuFeatures)
      return outOfRange("code object #" + std::to_string(i) + ": more than " +
                        std::to_string(kMaxCpuFeatures) + " CPU features");
    for (const std::string &f : o.cpuFeatures)
      VMAPC_RETURN_IF_ERROR(checkName(f, "code object #" + std::to_string(i) +
                                             " CPU feature name"));
    if (!cuda) {
      if (!o.launches.empty())
        return invalid(where + ": a CPU object has no launch records, it has " +
                       std::to_string(o.launches.size()));
      VMAPC_RETURN_IF_ERROR(validateElf(where, code[i]));
      continue;
    }
    if (!o.cpuFeatures.empty())
      return invalid(where + ": a CUDA object has no CPU features, it has " +
                     std::to_string(o.cpuFeatures.size()));
    VMAPC_RETURN_IF_ERROR(validateLaunches(where, o, artifact.kernels));
    VMAPC_RETURN_IF_ERROR(validateCudaCode(where, o.kind, code[i]));
  }
  if (hasCuda)
    VMAPC_RETURN_IF_ERROR(checkCudaStaging(artifact.entries));
  return Status();
}

Status validateArtifact(const Artifact &artifact) {
  std::vector<std::string_view> code;
  for (const CodeObject &o : artifact.codeObjects)
    code.push_back(o.bytes);
  return validate(artifact, code);
}

//===----------------------------------------------------------------------===//
// Entry descriptors
//===----------------------------------------------------------------------===//

std::vector<uint64_t> kernelDescriptorWords(const KernelInfo &kernel,
                                            uint64_t scratchBytes,
                                            const GpuLaunch &launch) {
  std::vector<uint64_t> words = {uint64_t(kKernelDescriptorMagic) |
                                     uint64_t(kernel.numBindings) << 32,
                                 kernel.numScalars};
  for (int64_t count : kernel.workgroupCount)
    words.push_back(uint64_t(count));
  words.push_back(scratchBytes);
  words.push_back(uint64_t(launch.block[0]) | uint64_t(launch.block[1]) << 32);
  words.push_back(uint64_t(launch.block[2]) | uint64_t(launch.sharedBytes)
                                                  << 32);
  words.insert(words.end(), kernel.bindingBytes.begin(),
               kernel.bindingBytes.end());
  for (BindingAccess access : kernel.bindingAccess)
    words.push_back(uint64_t(access));
  return words;
}

uint64_t scheduleDigest(const EntryInfo &entry,
                        const std::vector<KernelInfo> &kernels) {
  // Words, not raw structs: no padding bytes, the same on every host.
  std::string bytes;
  auto word = [&](uint64_t w) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(char(w >> (8 * i)));
  };
  auto text = [&](const std::string &s) {
    word(s.size());
    bytes += s;
  };
  word(entry.batchSize);
  word(entry.padsPartialChunks);
  word(entry.arenaBytes);
  for (const auto *list : {&entry.inputs, &entry.outputs}) {
    word(list->size());
    for (const ArgInfo &a : *list) {
      word(uint64_t(a.dtype));
      word(a.shape.size());
      for (int64_t d : a.shape)
        word(uint64_t(d));
      word(uint64_t(int64_t(a.mappedAxis)));
      word(a.stagingOffset);
    }
  }
  word(entry.schedule.size());
  for (const Command &c : entry.schedule) {
    word(uint64_t(c.kind));
    if (c.kind == Command::Kind::Loop) {
      word(c.tripCount);
      word(c.bodySize);
      continue;
    }
    text(c.kernel < kernels.size() ? kernels[c.kernel].name : std::string());
    word(c.bindings.size());
    for (const Binding &b : c.bindings) {
      word(uint64_t(b.kind));
      word(b.index);
      word(b.offset);
    }
    word(c.scalars.size());
    for (const ScalarSource &s : c.scalars) {
      word(uint64_t(s.kind));
      word(s.loop);
    }
  }
  return fnv1a64(bytes.data(), bytes.size());
}

std::vector<uint64_t>
entryDescriptorWords(const EntryInfo &entry,
                     const std::vector<KernelInfo> &kernels) {
  std::vector<uint64_t> words = {kEntryDescriptorMagic,
                                 kEntryDescriptorVersion,
                                 entry.batchSize,
                                 entry.arenaBytes,
                                 entry.inputs.size(),
                                 entry.outputs.size(),
                                 scheduleDigest(entry, kernels)};
  for (const auto *list : {&entry.inputs, &entry.outputs})
    for (const ArgInfo &a : *list) {
      words.push_back(uint64_t(exampleBytes(a)));
      words.push_back(uint64_t(int64_t(a.mappedAxis)));
    }
  return words;
}

Status checkKernelDescriptor(const KernelInfo &kernel, const void *data,
                             size_t size,
                             std::vector<BindingAccess> *codeAccess,
                             const GpuLaunch &launch) {
  if (codeAccess)
    codeAccess->assign(kernel.numBindings, BindingAccess::Read);
  std::string where = "kernel '" + kernel.name + "': ";
  constexpr size_t headerBytes = offsetof(KernelDescriptor, bindings);
  const auto *bytes = static_cast<const unsigned char *>(data);
  auto tooSmall = [&](size_t expected) {
    return dataLoss(where + "the code's descriptor is " + std::to_string(size) +
                    " bytes, fewer than the " + std::to_string(expected) +
                    " its header needs");
  };
  if (!bytes || size < headerBytes)
    return tooSmall(headerBytes);
  uint32_t header[4];
  std::memcpy(header, bytes, sizeof(header));
  int64_t grid[3];
  uint64_t scratch;
  std::memcpy(grid, bytes + offsetof(KernelDescriptor, workgroupCount),
              sizeof(grid));
  std::memcpy(&scratch, bytes + offsetof(KernelDescriptor, scratchBytes),
              sizeof(scratch));
  uint32_t codeLaunch[4];
  std::memcpy(codeLaunch, bytes + offsetof(KernelDescriptor, block),
              sizeof(codeLaunch));
  if (header[0] != kKernelDescriptorMagic)
    return dataLoss(where + "the code's descriptor has a bad magic");
  auto mismatch = [&](const std::string &field, uint64_t manifest,
                      uint64_t code) {
    return dataLoss(where + "the manifest disagrees with the code: " + field +
                    ": " + std::to_string(manifest) + " in the manifest, " +
                    std::to_string(code) + " in the code");
  };
  if (header[1] != kernel.numBindings)
    return mismatch("binding count", kernel.numBindings, header[1]);
  if (header[2] != kernel.numScalars)
    return mismatch("scalar count", kernel.numScalars, header[2]);
  for (int d = 0; d < 3; ++d)
    if (grid[d] != kernel.workgroupCount[d])
      return dataLoss(
          where +
          "the manifest disagrees with the code: "
          "workgroup count along dimension " +
          std::to_string(d) + ": " + std::to_string(kernel.workgroupCount[d]) +
          " in the manifest, " + std::to_string(grid[d]) + " in the code");
  if (codeLaunch[0] != launch.block[0] || codeLaunch[1] != launch.block[1] ||
      codeLaunch[2] != launch.block[2] || codeLaunch[3] != launch.sharedBytes)
    return dataLoss(
        where + "the manifest disagrees with the code: launch: block " +
        std::to_string(launch.block[0]) + " x " +
        std::to_string(launch.block[1]) + " x " +
        std::to_string(launch.block[2]) + " with " +
        std::to_string(launch.sharedBytes) + " shared bytes in the manifest, " +
        std::to_string(codeLaunch[0]) + " x " + std::to_string(codeLaunch[1]) +
        " x " + std::to_string(codeLaunch[2]) + " with " +
        std::to_string(codeLaunch[3]) + " in the code");
  if (scratch > kernel.scratchBytes)
    return dataLoss(
        where + "the manifest gives " + std::to_string(kernel.scratchBytes) +
        " bytes of scratch, the code needs " + std::to_string(scratch));
  // The counts agree with the validated manifest (<= kMaxBindings): no
  // overflow.
  size_t expected = headerBytes + 2 * kernel.numBindings * sizeof(uint64_t);
  if (size < expected)
    return tooSmall(expected);
  auto word = [&](size_t i) {
    uint64_t w;
    std::memcpy(&w, bytes + headerBytes + i * sizeof(uint64_t), sizeof(w));
    return w;
  };
  for (uint32_t i = 0; i < kernel.numBindings; ++i) {
    if (word(i) != kernel.bindingBytes[i])
      return mismatch("bytes of binding " + std::to_string(i),
                      kernel.bindingBytes[i], word(i));
    // The manifest's access is every code object's together: this one's
    // may do less, not more.
    uint64_t access = word(kernel.numBindings + i);
    if (access < 1 || access > 3 ||
        (access & ~uint64_t(kernel.bindingAccess[i])) != 0)
      return dataLoss(where +
                      "the manifest disagrees with the code: access "
                      "of binding " +
                      std::to_string(i) + " (1 read, 2 write, 3 read-write): " +
                      std::to_string(unsigned(kernel.bindingAccess[i])) +
                      " in the manifest, " + std::to_string(access) +
                      " in the code, which does more");
    if (codeAccess)
      (*codeAccess)[i] = BindingAccess(access);
  }
  return Status();
}

Status checkEntryDescriptor(const EntryInfo &entry,
                            const std::vector<KernelInfo> &kernels,
                            const void *data, size_t size) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  EntryDescriptorHeader h;
  if (!bytes || size < sizeof(h))
    return dataLoss("the code's descriptor is " + std::to_string(size) +
                    " bytes, too small for its header");
  std::memcpy(&h, bytes, sizeof(h));
  if (h.magic != kEntryDescriptorMagic)
    return dataLoss("the code's descriptor has a bad magic");
  if (h.version != kEntryDescriptorVersion)
    return dataLoss("the code's descriptor has version " +
                    std::to_string(h.version) + " (this runtime reads " +
                    std::to_string(kEntryDescriptorVersion) + ")");
  auto mismatch = [](const std::string &field, int64_t manifest, int64_t code) {
    return dataLoss("the manifest disagrees with the code: " + field + ": " +
                    std::to_string(manifest) + " in the manifest, " +
                    std::to_string(code) + " in the code");
  };
  if (h.batchSize != entry.batchSize)
    return mismatch("batch size", entry.batchSize, int64_t(h.batchSize));
  if (h.arenaBytes != entry.arenaBytes)
    return mismatch("arena bytes", int64_t(entry.arenaBytes),
                    int64_t(h.arenaBytes));
  if (h.numInputs != entry.inputs.size())
    return mismatch("input count", int64_t(entry.inputs.size()),
                    int64_t(h.numInputs));
  if (h.numOutputs != entry.outputs.size())
    return mismatch("output count", int64_t(entry.outputs.size()),
                    int64_t(h.numOutputs));
  // The counts agree with the validated manifest (<= kMaxArgs each), so the
  // expected size cannot overflow.
  size_t expected = sizeof(h) + (entry.inputs.size() + entry.outputs.size()) *
                                    sizeof(ArgDescriptor);
  // At least: a toolchain may pad a global (AddressSanitizer adds a redzone
  // to its symbol's size).
  if (size < expected)
    return dataLoss("the code's descriptor is " + std::to_string(size) +
                    " bytes, fewer than the " + std::to_string(expected) +
                    " its counts need");
  const unsigned char *p = bytes + sizeof(h);
  for (auto [list, kind] : {std::pair{&entry.inputs, "input"},
                            std::pair{&entry.outputs, "output"}}) {
    for (const ArgInfo &arg : *list) {
      ArgDescriptor a;
      std::memcpy(&a, p, sizeof(a));
      p += sizeof(a);
      std::string name = std::string(kind) + " '" + arg.name + "'";
      if (a.exampleBytes != uint64_t(exampleBytes(arg)))
        return mismatch("bytes per example of " + name, exampleBytes(arg),
                        int64_t(a.exampleBytes));
      if (a.mappedAxis != arg.mappedAxis)
        return mismatch("mapped axis of " + name, arg.mappedAxis, a.mappedAxis);
    }
  }
  // Last: the fields above name what differs; this catches the rest.
  uint64_t digest = scheduleDigest(entry, kernels);
  if (h.scheduleDigest != digest) {
    char text[80];
    std::snprintf(text, sizeof(text),
                  " (digest %016llx of the manifest, %016llx in the code)",
                  (unsigned long long)digest,
                  (unsigned long long)h.scheduleDigest);
    return dataLoss("the manifest's schedule, arguments or arena are not "
                    "those the code was compiled for" +
                    std::string(text));
  }
  return Status();
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

namespace {
class ByteWriter {
public:
  explicit ByteWriter(std::string &out) : out(out) {}
  void u8(uint8_t v) { out.push_back(char(v)); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void str(const std::string &s) {
    u32(uint32_t(s.size()));
    out += s;
  }

private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(char((v >> (8 * i)) & 0xff));
  }
  std::string &out;
};
} // namespace

static void writeArg(ByteWriter &w, const ArgInfo &arg) {
  w.str(arg.name);
  w.u8(uint8_t(arg.dtype));
  w.u8(uint8_t(arg.shape.size()));
  w.u16(0);
  w.u32(uint32_t(arg.mappedAxis));
  w.u64(arg.stagingOffset);
  for (int64_t d : arg.shape)
    w.u64(uint64_t(d));
}

static void putU64(std::string &s, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s[off + i] = char((v >> (8 * i)) & 0xff);
}

static void writeCommand(ByteWriter &w, const Command &c) {
  w.u8(uint8_t(c.kind));
  w.u8(0);
  w.u16(0);
  if (c.kind == Command::Kind::Loop) {
    w.u64(c.tripCount);
    w.u32(c.bodySize);
    return;
  }
  w.u32(c.kernel);
  for (const Binding &b : c.bindings) {
    w.u8(uint8_t(b.kind));
    w.u8(0);
    w.u16(0);
    w.u32(b.index);
    w.u64(b.offset);
  }
  for (const ScalarSource &src : c.scalars) {
    w.u8(uint8_t(src.kind));
    w.u8(0);
    w.u16(0);
    w.u32(src.loop);
  }
}

static uint64_t alignCode(uint64_t offset) {
  return (offset + kCodeAlignment - 1) / kCodeAlignment * kCodeAlignment;
}

Status serializeArtifact(const Artifact &artifact, std::string *out) {
  VMAPC_RETURN_IF_ERROR(validateArtifact(artifact));
  std::string manifest;
  ByteWriter m(manifest);
  m.u32(uint32_t(artifact.kernels.size()));
  for (const KernelInfo &k : artifact.kernels) {
    m.str(k.name);
    m.u32(k.numBindings);
    m.u32(k.numScalars);
    for (int64_t count : k.workgroupCount)
      m.u64(uint64_t(count));
    m.u64(k.scratchBytes);
    for (uint64_t bytes : k.bindingBytes)
      m.u64(bytes);
    for (BindingAccess access : k.bindingAccess)
      m.u8(uint8_t(access));
  }
  m.u32(uint32_t(artifact.entries.size()));
  for (const EntryInfo &e : artifact.entries) {
    m.str(e.name);
    m.u32(e.batchSize);
    m.u32(e.padsPartialChunks ? 1 : 0);
    m.u64(e.arenaBytes);
    m.u64(e.lowerBoundBytes);
    m.u64(e.naiveSumBytes);
    m.u32(e.inPlaceCount);
    m.u32(uint32_t(e.inputs.size()));
    m.u32(uint32_t(e.outputs.size()));
    for (const ArgInfo &a : e.inputs)
      writeArg(m, a);
    for (const ArgInfo &a : e.outputs)
      writeArg(m, a);
    m.u32(uint32_t(e.schedule.size()));
    for (const Command &c : e.schedule)
      writeCommand(m, c);
  }
  // Code objects, each at a 16-byte aligned offset in the code section.
  uint64_t codeSize = 0;
  std::vector<uint64_t> offsets;
  m.u32(uint32_t(artifact.codeObjects.size()));
  for (const CodeObject &o : artifact.codeObjects) {
    codeSize = alignCode(codeSize);
    offsets.push_back(codeSize);
    std::optional<uint64_t> end = checkedAddBytes(codeSize, o.bytes.size());
    if (!end)
      return outOfRange("the artifact would take 2^62 bytes or more");
    m.u32(uint32_t(o.kind));
    m.str(o.level);
    m.u32(uint32_t(o.cpuFeatures.size()));
    for (const std::string &f : o.cpuFeatures)
      m.str(f);
    if (isCudaCode(o.kind))
      for (const GpuLaunch &l : o.launches) {
        for (uint32_t b : l.block)
          m.u32(b);
        m.u32(l.sharedBytes);
      }
    m.u64(codeSize);
    m.u64(o.bytes.size());
    codeSize = *end;
  }

  uint64_t codeOffset = alignCode(kHeaderBytes + manifest.size());
  std::optional<uint64_t> fileSize =
      checkedAddBytes(codeOffset, codeSize + kChecksumBytes);
  if (!fileSize)
    return outOfRange("the artifact would take 2^62 bytes or more");

  std::string bytes;
  bytes.reserve(*fileSize);
  bytes.append(kArtifactMagic, sizeof(kArtifactMagic));
  ByteWriter h(bytes);
  h.u32(kFormatVersion);
  h.u32(0);
  h.u64(kHeaderBytes);
  h.u64(manifest.size());
  h.u64(codeOffset);
  h.u64(codeSize);
  h.u64(*fileSize);
  h.u64(0);
  bytes += manifest;
  for (size_t i = 0; i < artifact.codeObjects.size(); ++i) {
    bytes.resize(codeOffset + offsets[i], '\0');
    bytes += artifact.codeObjects[i].bytes;
  }
  bytes.resize(*fileSize, '\0');
  putU64(bytes, *fileSize - kChecksumBytes,
         fnv1a64(bytes.data(), *fileSize - kChecksumBytes));
  *out = std::move(bytes);
  return Status();
}

Status writeArtifactFile(const Artifact &artifact, const std::string &path) {
  std::string bytes;
  VMAPC_RETURN_IF_ERROR(serializeArtifact(artifact, &bytes));
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return statusFromErrno(errno, path + ": cannot open for writing");
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return Status::error(StatusCode::kUnavailable, path + ": write failed");
  return Status();
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

namespace {
/// Bounds-checked little-endian reader over the manifest. The first failed
/// read latches an error; later reads return zeros.
class ByteReader {
public:
  ByteReader(const unsigned char *p, size_t size) : p(p), size(size) {}

  bool failed() const { return fail; }
  size_t remaining() const { return size - pos; }
  size_t offset() const { return pos; }

  uint64_t le(int n) {
    if (fail || remaining() < size_t(n)) {
      fail = true;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(p[pos + i]) << (8 * i);
    pos += n;
    return v;
  }
  uint8_t u8() { return uint8_t(le(1)); }
  uint16_t u16() { return uint16_t(le(2)); }
  uint32_t u32() { return uint32_t(le(4)); }
  uint64_t u64() { return le(8); }
  bool str(std::string *s) {
    uint32_t n = u32();
    if (fail || n > remaining()) {
      fail = true;
      return false;
    }
    s->assign(reinterpret_cast<const char *>(p + pos), n);
    pos += n;
    return true;
  }

private:
  const unsigned char *p;
  size_t size;
  size_t pos = 0;
  bool fail = false;
};
} // namespace

static uint64_t readU64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

static uint32_t readU32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}

static Status truncatedManifest(const ByteReader &r) {
  return dataLoss("truncated artifact: manifest ends inside a field at "
                  "manifest offset " +
                  std::to_string(r.offset()));
}

/// Reads one argument; an empty message means the manifest ended inside it.
static Status readArg(ByteReader &r, ArgInfo *arg) {
  if (!r.str(&arg->name))
    return dataLoss("");
  uint8_t dtype = r.u8();
  uint8_t rank = r.u8();
  uint16_t reserved = r.u16();
  int32_t axis = int32_t(r.u32());
  arg->stagingOffset = r.u64();
  if (r.failed())
    return dataLoss("");
  if (!isValidDType(dtype))
    return dataLoss("argument '" + arg->name + "': invalid dtype " +
                    std::to_string(dtype));
  if (rank > kMaxRank)
    return outOfRange("argument '" + arg->name + "': rank " +
                      std::to_string(rank) + " exceeds the maximum " +
                      std::to_string(kMaxRank));
  if (reserved != 0)
    return dataLoss("argument '" + arg->name + "': reserved field is not zero");
  arg->dtype = DType(dtype);
  arg->mappedAxis = axis;
  arg->shape.resize(rank);
  for (uint8_t i = 0; i < rank; ++i)
    arg->shape[i] = int64_t(r.u64());
  if (r.failed())
    return dataLoss("");
  return Status();
}

/// Reads one command; an empty message means the manifest ended inside it.
static Status readCommand(ByteReader &r, const std::vector<KernelInfo> &kernels,
                          Command *c) {
  uint8_t kind = r.u8();
  uint8_t pad0 = r.u8();
  uint16_t pad1 = r.u16();
  if (r.failed())
    return dataLoss("");
  if (pad0 || pad1)
    return dataLoss("command reserved bytes are not zero");
  if (kind == uint8_t(Command::Kind::Loop)) {
    c->kind = Command::Kind::Loop;
    c->tripCount = r.u64();
    c->bodySize = r.u32();
    return r.failed() ? dataLoss("") : Status();
  }
  if (kind != uint8_t(Command::Kind::Dispatch))
    return dataLoss("unknown command kind " + std::to_string(kind));
  c->kind = Command::Kind::Dispatch;
  c->kernel = r.u32();
  if (r.failed())
    return dataLoss("");
  // The kernel says how many bindings and scalars follow.
  if (c->kernel >= kernels.size())
    return dataLoss("dispatch of kernel #" + std::to_string(c->kernel) +
                    ", which does not exist");
  const KernelInfo &k = kernels[c->kernel];
  if (uint64_t(k.numBindings) * 16 + uint64_t(k.numScalars) * 8 > r.remaining())
    return dataLoss("");
  c->bindings.resize(k.numBindings);
  for (Binding &b : c->bindings) {
    b.kind = Binding::Kind(r.u8());
    if (r.u8() || r.u16())
      return dataLoss("binding reserved bytes are not zero");
    b.index = r.u32();
    b.offset = r.u64();
  }
  c->scalars.resize(k.numScalars);
  for (ScalarSource &src : c->scalars) {
    src.kind = ScalarSource::Kind(r.u8());
    if (r.u8() || r.u16())
      return dataLoss("scalar reserved bytes are not zero");
    src.loop = r.u32();
  }
  return r.failed() ? dataLoss("") : Status();
}

static Status readManifest(ByteReader &r, Artifact *a,
                           std::vector<std::pair<uint64_t, uint64_t>> *code) {
  uint32_t numKernels = r.u32();
  if (r.failed())
    return truncatedManifest(r);
  // A kernel takes at least 53 bytes.
  if (numKernels > kMaxKernels || numKernels > r.remaining() / 53)
    return dataLoss("bad kernel count " + std::to_string(numKernels));
  a->kernels.resize(numKernels);
  for (KernelInfo &k : a->kernels) {
    r.str(&k.name);
    k.numBindings = r.u32();
    k.numScalars = r.u32();
    for (int64_t &count : k.workgroupCount)
      count = int64_t(r.u64());
    k.scratchBytes = r.u64();
    if (r.failed())
      return truncatedManifest(r);
    if (k.numBindings > kMaxBindings || k.numScalars > kMaxScalars ||
        k.numBindings > r.remaining() / 9)
      return dataLoss("kernel '" + k.name + "': bad binding or scalar count");
    k.bindingBytes.resize(k.numBindings);
    for (uint64_t &bytes : k.bindingBytes)
      bytes = r.u64();
    k.bindingAccess.resize(k.numBindings);
    for (BindingAccess &access : k.bindingAccess)
      access = BindingAccess(r.u8());
  }
  uint32_t numEntries = r.u32();
  if (r.failed())
    return truncatedManifest(r);
  // An entry takes at least 57 bytes.
  if (numEntries > kMaxEntries || numEntries > r.remaining() / 57)
    return dataLoss("bad entry count " + std::to_string(numEntries));
  a->entries.resize(numEntries);
  for (EntryInfo &e : a->entries) {
    r.str(&e.name);
    e.batchSize = r.u32();
    uint32_t flags = r.u32();
    e.arenaBytes = r.u64();
    e.lowerBoundBytes = r.u64();
    e.naiveSumBytes = r.u64();
    e.inPlaceCount = r.u32();
    uint32_t numInputs = r.u32();
    uint32_t numOutputs = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    if (flags & ~1u)
      return dataLoss("entry '" + e.name + "': unknown flags " +
                      std::to_string(flags));
    e.padsPartialChunks = flags & 1u;
    // An argument takes at least kMinArgBytes (a scalar with a one-byte
    // name), so the counts cannot promise more than the bytes left.
    if (numInputs > kMaxArgs || numOutputs > kMaxArgs ||
        uint64_t(numInputs) + numOutputs > r.remaining() / kMinArgBytes)
      return dataLoss("entry '" + e.name + "': bad argument counts (" +
                      std::to_string(numInputs) + " inputs, " +
                      std::to_string(numOutputs) + " outputs)");
    e.inputs.resize(numInputs);
    e.outputs.resize(numOutputs);
    for (std::vector<ArgInfo> *list : {&e.inputs, &e.outputs}) {
      for (ArgInfo &arg : *list) {
        Status s = readArg(r, &arg);
        if (!s.ok()) {
          if (r.failed())
            return truncatedManifest(r);
          return s.withPrefix("entry '" + e.name + "' ");
        }
      }
    }
    uint32_t numCommands = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    // A command takes at least 8 bytes.
    if (numCommands > kMaxCommands || numCommands > r.remaining() / 8)
      return dataLoss("entry '" + e.name + "': bad command count " +
                      std::to_string(numCommands));
    e.schedule.resize(numCommands);
    for (Command &c : e.schedule) {
      Status s = readCommand(r, a->kernels, &c);
      if (!s.ok()) {
        if (s.message().empty())
          return truncatedManifest(r);
        return s.withPrefix("entry '" + e.name + "' schedule: ");
      }
    }
  }
  uint32_t numObjects = r.u32();
  if (r.failed())
    return truncatedManifest(r);
  // A code object takes at least 29 bytes.
  if (numObjects > kMaxCodeObjects || numObjects > r.remaining() / 29)
    return dataLoss("bad code object count " + std::to_string(numObjects));
  a->codeObjects.resize(numObjects);
  for (size_t i = 0; i < numObjects; ++i) {
    CodeObject &o = a->codeObjects[i];
    uint32_t kind = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    // The kind says which fields follow.
    o.kind = CodeKind(kind);
    if (o.kind != CodeKind::CpuElf && !isCudaCode(o.kind))
      return unsupportedKind(i, kind);
    r.str(&o.level);
    uint32_t numFeatures = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    if (numFeatures > kMaxCpuFeatures || numFeatures > r.remaining() / 4)
      return dataLoss("bad CPU feature count " + std::to_string(numFeatures));
    o.cpuFeatures.resize(numFeatures);
    for (std::string &f : o.cpuFeatures)
      if (!r.str(&f))
        return truncatedManifest(r);
    if (isCudaCode(o.kind)) {
      // A launch record per kernel, 16 bytes each.
      if (uint64_t(a->kernels.size()) * 16 > r.remaining())
        return truncatedManifest(r);
      o.launches.resize(a->kernels.size());
      for (GpuLaunch &l : o.launches) {
        for (uint32_t &b : l.block)
          b = r.u32();
        l.sharedBytes = r.u32();
      }
    }
    uint64_t offset = r.u64();
    uint64_t size = r.u64();
    if (r.failed())
      return truncatedManifest(r);
    code->push_back({offset, size});
  }
  if (r.remaining() != 0)
    return dataLoss("manifest has " + std::to_string(r.remaining()) +
                    " trailing bytes");
  return Status();
}

Status checkArtifactHeader(const void *data, size_t size, uint64_t *fileSize) {
  const auto *p = static_cast<const unsigned char *>(data);
  constexpr uint64_t kMinFileBytes = kHeaderBytes + kChecksumBytes;
  if (size < kHeaderBytes || !p)
    return dataLoss("truncated artifact: " + std::to_string(size) +
                    " bytes, smaller than the " +
                    std::to_string(kMinFileBytes) + "-byte minimum");
  if (std::memcmp(p, kArtifactMagic, sizeof(kArtifactMagic)) != 0)
    return dataLoss("bad magic: not a .vmapc artifact");
  uint32_t version = readU32(p + 8);
  if (version != kFormatVersion)
    return Status::error(StatusCode::kUnimplemented,
                         "runtime supports format " +
                             std::to_string(kFormatVersion) +
                             ", artifact has " + std::to_string(version));
  uint64_t declared = readU64(p + 48);
  if (declared >= kMaxArrayBytes)
    return outOfRange("declared file size " + std::to_string(declared) +
                      " is not below the 2^62-byte limit");
  if (declared < kMinFileBytes)
    return dataLoss("declared file size " + std::to_string(declared) +
                    " is smaller than the " + std::to_string(kMinFileBytes) +
                    "-byte minimum");
  *fileSize = declared;
  return Status();
}

Status parseArtifactInPlace(const void *data, size_t size, Artifact *out,
                            std::vector<std::string_view> *code) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (size < kHeaderBytes + kChecksumBytes || !p)
    return dataLoss("truncated artifact: " + std::to_string(size) +
                    " bytes, smaller than the " +
                    std::to_string(kHeaderBytes + kChecksumBytes) +
                    "-byte minimum");
  uint64_t fileSize = 0;
  VMAPC_RETURN_IF_ERROR(checkArtifactHeader(data, size, &fileSize));
  uint32_t reservedWord = readU32(p + 12);
  uint64_t manifestOffset = readU64(p + 16);
  uint64_t manifestSize = readU64(p + 24);
  uint64_t codeOffset = readU64(p + 32);
  uint64_t codeSize = readU64(p + 40);
  uint64_t reserved = readU64(p + 56);
  if (fileSize > size)
    return dataLoss("truncated artifact: header says " +
                    std::to_string(fileSize) + " bytes, got " +
                    std::to_string(size));
  if (fileSize < size)
    return dataLoss("artifact has " + std::to_string(size - fileSize) +
                    " trailing bytes after its declared size of " +
                    std::to_string(fileSize));
  uint64_t stored = readU64(p + size - kChecksumBytes);
  uint64_t actual = fnv1a64(p, size - kChecksumBytes);
  if (stored != actual)
    return dataLoss("checksum mismatch: the artifact is corrupt");
  if (reserved != 0 || reservedWord != 0)
    return dataLoss("header reserved field is not zero");
  // Each comparison below is against `body` or a difference that cannot
  // wrap: size >= 72, and every field is checked before it is added.
  uint64_t body = size - kChecksumBytes;
  if (manifestOffset != kHeaderBytes || manifestSize > body - kHeaderBytes)
    return dataLoss("manifest [" + std::to_string(manifestOffset) + ", +" +
                    std::to_string(manifestSize) + ") out of bounds");
  if (codeOffset < manifestOffset + manifestSize || codeOffset > body ||
      codeSize != body - codeOffset || codeSize == 0)
    return dataLoss("code [" + std::to_string(codeOffset) + ", +" +
                    std::to_string(codeSize) + ") out of bounds");
  for (uint64_t i = manifestOffset + manifestSize; i < codeOffset; ++i)
    if (p[i] != 0)
      return dataLoss("padding before the code is not zero");

  Artifact a;
  ByteReader r(p + manifestOffset, manifestSize);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  VMAPC_RETURN_IF_ERROR(readManifest(r, &a, &ranges));
  // Code objects: aligned, inside the code, in order and disjoint.
  std::vector<std::string_view> objects;
  uint64_t end = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    auto [offset, objectSize] = ranges[i];
    std::string where = "code object #" + std::to_string(i) + " [" +
                        std::to_string(offset) + ", +" +
                        std::to_string(objectSize) + ")";
    if (offset > codeSize || objectSize > codeSize - offset)
      return dataLoss(where + " out of bounds of the code");
    if (objectSize == 0)
      return dataLoss(where + " is empty");
    if (offset % kCodeAlignment)
      return dataLoss(where + " is not " + std::to_string(kCodeAlignment) +
                      "-byte aligned");
    if (offset < end)
      return dataLoss(where + " overlaps the object before it (objects are "
                              "in order and disjoint)");
    end = offset + objectSize;
    objects.emplace_back(
        reinterpret_cast<const char *>(p + codeOffset + offset), objectSize);
  }
  // The bytes passed the checksum, so a broken rule is a writer that does
  // not follow this header (or an edit that resealed the checksum): data
  // loss, except a size past a limit, which stays out of range.
  Status valid = validate(a, objects);
  if (!valid.ok() && valid.code() == StatusCode::kInvalidArgument)
    return valid.withCode(StatusCode::kDataLoss);
  VMAPC_RETURN_IF_ERROR(valid);
  *out = std::move(a);
  *code = std::move(objects);
  return Status();
}

Status readArtifactFile(const std::string &path, HostBuffer *bytes) {
  FileReader file;
  VMAPC_RETURN_IF_ERROR(file.open(path));
  unsigned char header[kHeaderBytes];
  size_t got = 0;
  VMAPC_RETURN_IF_ERROR(file.read(header, sizeof(header), &got));
  uint64_t fileSize = 0;
  VMAPC_RETURN_IF_ERROR(
      checkArtifactHeader(header, got, &fileSize).withPrefix(path + ": "));
  auto truncated = [&](uint64_t have) {
    return dataLoss(path + ": truncated artifact: header says " +
                    std::to_string(fileSize) + " bytes, got " +
                    std::to_string(have));
  };
  if (std::optional<uint64_t> size = file.regularFileSize()) {
    if (*size < fileSize)
      return truncated(*size);
    if (*size > fileSize)
      return dataLoss(path + ": artifact has " +
                      std::to_string(*size - fileSize) +
                      " trailing bytes after its declared size of " +
                      std::to_string(fileSize));
  }
  HostBuffer buffer;
  VMAPC_RETURN_IF_ERROR(HostBuffer::allocate(fileSize, 64,
                                             "artifact '" + path + "'", &buffer,
                                             HostBuffer::Init::kUninitialized));
  std::memcpy(buffer.data(), header, kHeaderBytes);
  VMAPC_RETURN_IF_ERROR(
      file.read(buffer.data() + kHeaderBytes, fileSize - kHeaderBytes, &got));
  if (got != fileSize - kHeaderBytes)
    return truncated(kHeaderBytes + got);
  bool end = false;
  VMAPC_RETURN_IF_ERROR(file.atEnd(&end));
  if (!end)
    return dataLoss(path +
                    ": artifact has more bytes than its declared size "
                    "of " +
                    std::to_string(fileSize));
  *bytes = std::move(buffer);
  return Status();
}

Status parseArtifact(const void *data, size_t size, Artifact *out) {
  Artifact a;
  std::vector<std::string_view> code;
  VMAPC_RETURN_IF_ERROR(parseArtifactInPlace(data, size, &a, &code));
  for (size_t i = 0; i < code.size(); ++i)
    a.codeObjects[i].bytes.assign(code[i].data(), code[i].size());
  *out = std::move(a);
  return Status();
}

} // namespace vmapc
