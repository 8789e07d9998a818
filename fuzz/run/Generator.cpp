//===- Generator.cpp - artifact_run_fuzzer: manifests from bytes ----------===//

#include "Generator.h"

#include "ArtifactBuilder.h"
#include "vmapc/ArtifactWriter.h"

#include <algorithm>
#include <cstring>

namespace vmapc_run_fuzzer {

using vmapc_test::cpuCodeObject;
using vmapc_test::loop;

namespace {

/// Writes `words` over the descriptor whose marker is `kind`, `index` (see
/// StandInKernels.cpp) in `code`.
void writeDescriptor(std::string &code, uint64_t kind, uint64_t index,
                     const std::vector<uint64_t> &words, size_t room) {
  uint64_t marker[2] = {kMarker | (kind << 8) | index, kMarker2};
  size_t at = code.find(
      std::string(reinterpret_cast<const char *>(marker), sizeof(marker)));
  if (at == std::string::npos)
    fail("no descriptor " + std::to_string(kind) + "/" + std::to_string(index) +
         " in the stand-in code object");
  if (words.size() > room)
    fail("a descriptor larger than the stand-in's room");
  std::memcpy(&code[at], words.data(), words.size() * 8);
}

class ManifestGen {
public:
  explicit ManifestGen(FuzzedDataProvider &fdp) : fdp(fdp) {}

  Artifact artifact(const std::string &standInCode) {
    Artifact a;
    for (int i = fdp.ConsumeIntegralInRange(1, 3); i > 0; --i)
      a.entries.push_back(entry(a, a.entries.size()));
    std::string code = standInCode;
    for (size_t k = 0; k < a.kernels.size(); ++k)
      kernelDescriptor(code, k, a.kernels[k]);
    for (size_t e = 0; e < a.entries.size(); ++e)
      entryDescriptor(code, e, a.entries[e], a.kernels);
    codeObjects(a, code);
    return a;
  }

private:
  bool oneIn(int n) { return fdp.ConsumeIntegralInRange(0, n - 1) == 0; }

  /// Mostly small values, sometimes 0, sometimes anything.
  uint64_t small(uint64_t max) {
    switch (fdp.ConsumeIntegralInRange(0, 15)) {
    case 0:
      return 0;
    case 1:
      return fdp.ConsumeIntegral<uint64_t>();
    default:
      return fdp.ConsumeIntegralInRange<uint64_t>(1, max);
    }
  }

  void codeObjects(Artifact &a, const std::string &code) {
    static const char *kLevels[] = {"x86-64", "x86-64-v3", "x86-64-v4"};
    static const char *kFeatures[] = {"sse2", "sse4.2", "avx512vbmi2",
                                      "no-such-feature"};
    int first = fdp.ConsumeIntegralInRange(0, 2);
    int count = fdp.ConsumeIntegralInRange(1, 3 - first);
    for (int i = first; i < first + count; ++i) {
      CodeObject o =
          cpuCodeObject(kLevels[i], {i == 0 ? "sse2" : kLevels[i]}, code);
      if (oneIn(8))
        o.cpuFeatures.push_back(kFeatures[fdp.ConsumeIntegralInRange(0, 3)]);
      // The level the object says it was compiled for: its own, but for
      // one object in 32.
      std::string level = oneIn(32) ? kLevels[(i + 1) % 3] : kLevels[i];
      std::vector<uint64_t> words(2);
      std::memcpy(words.data(), level.c_str(), level.size() + 1);
      writeDescriptor(o.bytes, 3, 0, words, 2);
      a.codeObjects.push_back(std::move(o));
    }
  }

  ArgInfo arg(int index) {
    static const char *kNames[] = {"x", "y", "z", "w", "x"};
    ArgInfo a;
    a.name =
        kNames[std::min(index, 3) + (oneIn(16) ? 4 - std::min(index, 3) : 0)];
    a.dtype = DType(fdp.ConsumeIntegralInRange(0, 15)
                        ? fdp.ConsumeIntegralInRange(1, 3)
                        : fdp.ConsumeIntegral<uint8_t>());
    size_t rank = fdp.ConsumeIntegralInRange(0, 15)
                      ? fdp.ConsumeIntegralInRange(0, 3)
                      : fdp.ConsumeIntegralInRange(0, 17);
    for (size_t i = 0; i < rank; ++i)
      a.shape.push_back(int64_t(small(5)));
    int kind = fdp.ConsumeIntegralInRange(0, 15);
    if (kind < 5)
      a.mappedAxis = kNoAxis;
    else if (kind < 15)
      a.mappedAxis = fdp.ConsumeIntegralInRange<int32_t>(0, int32_t(rank));
    else
      a.mappedAxis = fdp.ConsumeIntegral<int32_t>();
    return a;
  }

  /// Bytes a binding to `arg` may access: B examples, or one.
  static uint64_t argBytes(const EntryInfo &e, const ArgInfo &arg) {
    int64_t ex = exampleBytes(arg);
    if (ex < 0)
      return 0;
    if (!arg.isMapped())
      return uint64_t(ex);
    std::optional<uint64_t> b = checkedMulBytes(uint64_t(ex), e.batchSize);
    return b ? *b : 0;
  }

  /// A binding of `e` of about `bytes` (a new kernel's binding when
  /// `choose` is set, which then picks the bytes too).
  Binding binding(const EntryInfo &e, uint64_t *bytes, bool choose) {
    Binding b;
    int kind = fdp.ConsumeIntegralInRange(0, 2);
    if (kind == 0 && !e.inputs.empty()) {
      b.kind = Binding::Kind::Input;
      b.index = fdp.ConsumeIntegralInRange<uint32_t>(
          0, uint32_t(e.inputs.size() - (oneIn(32) ? 0 : 1)));
      if (choose)
        *bytes = b.index < e.inputs.size() ? argBytes(e, e.inputs[b.index]) : 4;
    } else if (kind <= 1 && !e.outputs.empty()) {
      b.kind = Binding::Kind::Output;
      b.index = fdp.ConsumeIntegralInRange<uint32_t>(
          0, uint32_t(e.outputs.size() - (oneIn(32) ? 0 : 1)));
      if (choose)
        *bytes =
            b.index < e.outputs.size() ? argBytes(e, e.outputs[b.index]) : 4;
    } else {
      b.kind = Binding::Kind::Arena;
      uint64_t arena = std::min<uint64_t>(e.arenaBytes, kMaxArenaBytes);
      b.offset = fdp.ConsumeIntegralInRange<uint64_t>(0, arena);
      if (fdp.ConsumeBool())
        b.offset &= ~uint64_t(63);
      if (choose)
        *bytes = fdp.ConsumeIntegralInRange<uint64_t>(0, arena - b.offset);
    }
    if (choose && *bytes && oneIn(4))
      *bytes = fdp.ConsumeIntegralInRange<uint64_t>(0, *bytes);
    if (choose && oneIn(32))
      *bytes += 1;
    if (oneIn(64))
      b.kind = Binding::Kind(fdp.ConsumeIntegralInRange(4, 255));
    return b;
  }

  ScalarSource scalar(uint32_t depth) {
    if (fdp.ConsumeBool() || (depth == 0 && !oneIn(16)))
      return {ScalarSource::Kind::NumExamples, 0};
    return {ScalarSource::Kind::LoopIndex,
            oneIn(16) ? fdp.ConsumeIntegral<uint8_t>()
                      : fdp.ConsumeIntegralInRange<uint32_t>(
                            0, depth ? depth - 1 : 0)};
  }

  /// A dispatch in entry `e` inside `depth` loops: of a new kernel, or of
  /// one made before.
  Command dispatch(Artifact &a, const EntryInfo &e, uint32_t depth) {
    Command c;
    c.kind = Command::Kind::Dispatch;
    // Run in the first chunk only (the validator refuses most: in a loop,
    // with scalars, binding an output or a mapped input).
    c.oncePerCall = oneIn(8);
    bool reuse = !a.kernels.empty() &&
                 (a.kernels.size() >= size_t(kStandInKernels) || oneIn(4));
    if (reuse) {
      c.kernel = fdp.ConsumeIntegralInRange<uint32_t>(
          0, uint32_t(a.kernels.size() - 1));
      const KernelInfo &k = a.kernels[c.kernel];
      for (uint32_t j = 0; j < k.numBindings; ++j) {
        uint64_t unused = 0;
        c.bindings.push_back(binding(e, &unused, false));
      }
      for (uint32_t j = 0; j < k.numScalars; ++j)
        c.scalars.push_back(scalar(depth));
      if (oneIn(32))
        c.kernel = uint32_t(a.kernels.size());
      return c;
    }
    KernelInfo k;
    k.name = oneIn(64) ? "nope" : "k" + std::to_string(a.kernels.size());
    k.numBindings = fdp.ConsumeIntegralInRange<uint32_t>(0, kStandInBindings);
    for (uint32_t j = 0; j < k.numBindings; ++j) {
      uint64_t bytes = 0;
      c.bindings.push_back(binding(e, &bytes, true));
      k.bindingBytes.push_back(bytes);
      k.bindingAccess.push_back(access(c.bindings.back()));
    }
    k.numScalars = fdp.ConsumeIntegralInRange<uint32_t>(0, 3);
    for (uint32_t j = 0; j < k.numScalars; ++j)
      c.scalars.push_back(scalar(depth));
    for (int64_t &count : k.workgroupCount) {
      if (oneIn(4))
        count = -fdp.ConsumeIntegralInRange<int64_t>(
            1, std::max<int64_t>(1, std::min<int64_t>(e.batchSize, 16)) +
                   (oneIn(32) ? 1 : 0));
      else if (oneIn(32))
        // Each count within its limit, their product past the dispatch's.
        count = oneIn(2) ? kMaxWorkgroups : kMaxWorkgroups / 2;
      else
        count = fdp.ConsumeIntegralInRange<int64_t>(oneIn(64) ? 0 : 1, 3);
    }
    if (oneIn(16))
      k.scratchBytes = oneIn(8) ? kMaxScratchBytes + 1 : uint64_t(1) << 20;
    c.kernel = uint32_t(a.kernels.size());
    a.kernels.push_back(k);
    return c;
  }

  /// What a kernel does through binding `b`: what the compiler would
  /// record (reads an input, writes an output, either through the arena),
  /// but an input written, an output only read or a bad value, rarely.
  BindingAccess access(const Binding &b) {
    if (oneIn(64))
      return BindingAccess(fdp.ConsumeIntegralInRange<uint8_t>(0, 255));
    if (b.kind == Binding::Kind::Input)
      return oneIn(32) ? BindingAccess::ReadWrite : BindingAccess::Read;
    if (b.kind == Binding::Kind::Output)
      return oneIn(32) ? BindingAccess::Read : BindingAccess::Write;
    return BindingAccess(fdp.ConsumeIntegralInRange<uint8_t>(1, 3));
  }

  /// Appends 0-3 commands (1-3 in a loop body) at `depth`, loops at most 2
  /// deep, at most `budget` commands in all.
  void commands(Artifact &a, EntryInfo &e, uint32_t depth, int &budget) {
    int count = fdp.ConsumeIntegralInRange(depth ? 1 : 0, 3);
    for (int i = 0; i < count && budget > 0; ++i) {
      --budget;
      if (depth < 2 && oneIn(4)) {
        size_t at = e.schedule.size();
        e.schedule.push_back(
            loop(oneIn(32) ? uint64_t(1) << 20
                           : fdp.ConsumeIntegralInRange<uint64_t>(0, 3),
                 0));
        commands(a, e, depth + 1, budget);
        e.schedule[at].bodySize =
            uint32_t(e.schedule.size() - at - 1) + (oneIn(32) ? 1 : 0);
        continue;
      }
      e.schedule.push_back(dispatch(a, e, depth));
    }
  }

  /// The kernel's descriptor as the compiler would write it, but for one
  /// word in 16 inputs.
  void kernelDescriptor(std::string &code, size_t index, const KernelInfo &k) {
    if (index >= size_t(kStandInKernels) || k.numBindings > kStandInBindings)
      return;
    std::vector<uint64_t> words = kernelDescriptorWords(k, 0);
    if (oneIn(16))
      words[fdp.ConsumeIntegralInRange<size_t>(0, words.size() - 1)] +=
          fdp.ConsumeIntegralInRange<uint64_t>(1, 3);
    writeDescriptor(code, 1, index, words, 8 + 2 * kStandInBindings);
  }

  /// The entry's descriptor as the compiler would write it, but for one
  /// word in 16 inputs.
  void entryDescriptor(std::string &code, size_t slot, const EntryInfo &e,
                       const std::vector<KernelInfo> &kernels) {
    std::vector<uint64_t> words = entryDescriptorWords(e, kernels);
    if (oneIn(16))
      words[fdp.ConsumeIntegralInRange<size_t>(0, words.size() - 1)] +=
          fdp.ConsumeIntegralInRange<uint64_t>(1, 3);
    writeDescriptor(code, 2, slot, words, 7 + 2 * 7);
  }

  EntryInfo entry(Artifact &a, size_t index) {
    EntryInfo e;
    // Entry e<i> has the stand-in's descriptor slot i; "e9" has none.
    e.name = "e" + std::to_string(index);
    if (oneIn(16))
      e.name = fdp.ConsumeBool() ? "e0" : "e9";
    e.batchSize = uint32_t(small(8));
    e.padsPartialChunks = oneIn(4);
    int numIn = fdp.ConsumeIntegralInRange(0, 4);
    int numOut = fdp.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < numIn; ++i)
      e.inputs.push_back(arg(i));
    for (int i = 0; i < numOut; ++i)
      e.outputs.push_back(arg(i));
    e.lowerBoundBytes = fdp.ConsumeIntegral<uint64_t>();
    e.naiveSumBytes = fdp.ConsumeIntegral<uint64_t>();
    e.inPlaceCount = fdp.ConsumeIntegral<uint32_t>();

    if (fdp.ConsumeBool()) {
      // Staging slots one after another (inputs, then outputs from 0 or
      // after the inputs), aligned to 1, 64 or 256 bytes: a valid layout.
      uint64_t align =
          std::vector<uint64_t>{1, 64, 256}[fdp.ConsumeIntegralInRange(0, 2)];
      uint64_t end = 0;
      auto place = [&](std::vector<ArgInfo> &args, uint64_t cursor) {
        for (ArgInfo &arg : args) {
          bool stage = arg.isMapped() || oneIn(8);
          int64_t ex = exampleBytes(arg);
          if (!stage || ex < 0)
            continue;
          cursor = (cursor + align - 1) / align * align;
          arg.stagingOffset = cursor;
          uint64_t bytes = uint64_t(ex);
          if (arg.isMapped() && e.batchSize &&
              bytes < (uint64_t(1) << 62) / e.batchSize)
            bytes *= e.batchSize;
          cursor += bytes;
          end = std::max(end, cursor);
        }
        return cursor;
      };
      uint64_t afterInputs = place(e.inputs, 0);
      place(e.outputs, fdp.ConsumeBool() ? 0 : afterInputs);
      e.arenaBytes = end + fdp.ConsumeIntegralInRange<uint64_t>(0, 300);
    } else {
      e.arenaBytes = small(4096);
      for (auto *args : {&e.inputs, &e.outputs})
        for (ArgInfo &arg : *args)
          if (arg.isMapped() || oneIn(8))
            arg.stagingOffset =
                fdp.ConsumeIntegralInRange(0, 7)
                    ? fdp.ConsumeIntegralInRange<uint64_t>(0, e.arenaBytes)
                    : fdp.ConsumeIntegral<uint64_t>();
    }
    int budget = 6;
    commands(a, e, 0, budget);
    return e;
  }

  FuzzedDataProvider &fdp;
};

} // namespace

Artifact generateArtifact(FuzzedDataProvider &fdp,
                          const std::string &standInCode) {
  return ManifestGen(fdp).artifact(standInCode);
}

} // namespace vmapc_run_fuzzer
