//===- artifact_run_fuzzer.cpp - libFuzzer: load and run artifacts --------===//
//
// Decodes the input (FuzzedDataProvider) into an artifact's manifest: 1-3
// entries with batch sizes, arenas, inputs and outputs (names, dtypes,
// shapes, mapped axes, staging offsets laid out without overlap or raw), and
// per entry a schedule of dispatches and loops over kernels with bindings
// (inputs, outputs, arena offsets), scalars (n, loop indices), grids
// (constants and tiles of n) and scratch; 1-3 code objects of ISA levels
// the host may or may not run. The code is always the known-good stand-in
// object of StandInKernels.cpp with each kernel's and each entry's
// descriptor written to match the manifest (one word in 16 deliberately
// wrong). The artifact is serialized (which validates it) and loaded with
// Executable::loadBytes on a CPU device of 2 threads; then each entry runs
// on N examples, with arrays whose shapes follow the manifest (N and the
// data from the input; at most kMaxUserBytes per array). From inside each
// workgroup, and after the run, the harness checks what ArtifactFormat.h,
// Schedule.h and Runtime.h promise:
//
//   * the runtime runs, chunk after chunk, the schedule's dispatches in
//     order, loops unrolled, each over the grid its kernel gives for n (n =
//     the chunk's examples, or B for an entry that pads), each workgroup
//     exactly once and of the right kernel; the scalars are n and the
//     enclosing loops' indices;
//   * a binding points where it should: an unmapped argument at the
//     caller's array, a mapped one in place (a full chunk of an argument
//     whose batch axis is outermost) or at its staging slot, an arena
//     binding at its offset of one 256-byte aligned arena;
//   * each input holds the chunk's examples gathered from the caller's
//     array (padding lanes of an entry that pads repeat the chunk's last
//     example);
//   * each mapped output the caller gets is what the kernels wrote in its
//     chunk's lanes, scattered back; the count of dispatches in the stats;
//   * a call with a wrong argument count, dtype, rank, dimension or a null
//     data pointer fails, runs no workgroup and leaves the outputs untouched.
//
// The workgroup (0, 0, 0) of a dispatch that binds an output reads every
// byte of every binding and writes a pattern into every byte of its output
// bindings; every workgroup of a dispatch without one reads its bindings'
// first and last bytes and checks its inputs. ASan reports any byte touched
// outside the caller's arrays and the arena.
//
//===----------------------------------------------------------------------===//

#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Runtime.h"
#include "vmapc/Schedule.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace vmapc;

namespace {

/// Bounds that keep one input fast: every array the harness allocates, and
/// the arena, stay below these; so do the work and the dispatches of a run.
constexpr uint64_t kMaxUserBytes = 64 << 10;
constexpr uint64_t kMaxArenaBytes = 1 << 20;
constexpr uint64_t kMaxWorkgroupsPerRun = 1 << 14;
constexpr uint64_t kMaxDispatchesPerRun = 4096;
constexpr uint64_t kMaxChunks = 256;

/// What StandInKernels.cpp exports.
constexpr int kStandInKernels = 8;
constexpr uint32_t kStandInBindings = 8;
constexpr uint64_t kMarker = 0x5afe5afe00000000ull;
constexpr uint64_t kMarker2 = 0xfa11fa11fa11fa11ull;

/// The stand-in code object's bytes (read once), and the device (opened
/// once: its threads live as long as the process).
std::string standInCode;
Device cpu;

/// How far inputs got (printed at exit with VMAPC_FUZZ_STATS=1).
struct Counts {
  uint64_t inputs = 0, serialized = 0, loaded = 0, runs = 0, rejected = 0,
           workgroups = 0;
  ~Counts() {
    if (std::getenv("VMAPC_FUZZ_STATS"))
      std::fprintf(stderr,
                   "artifact_run_fuzzer: %llu inputs, %llu valid artifacts, "
                   "%llu loaded, %llu runs checked (%llu workgroups), %llu "
                   "broken calls rejected\n",
                   (unsigned long long)inputs, (unsigned long long)serialized,
                   (unsigned long long)loaded, (unsigned long long)runs,
                   (unsigned long long)workgroups,
                   (unsigned long long)rejected);
  }
} counts;

/// Reports a broken promise and aborts. Workgroups run on several threads:
/// the first to fail aborts, any other waits here, so that libFuzzer saves
/// the input once.
[[noreturn]] void fail(const std::string &what) {
  static std::mutex failing;
  failing.lock();
  std::fprintf(stderr, "artifact_run_fuzzer: %s\n", what.c_str());
  std::abort();
}

uint64_t product(const std::vector<int64_t> &dims, size_t from, size_t to) {
  uint64_t p = 1;
  for (size_t i = from; i < to; ++i)
    p *= uint64_t(dims[i]);
  return p;
}

/// A batched argument as the runtime moves it: [outer, N or B, inner bytes].
struct Layout {
  bool mapped = false;
  uint64_t outer = 1;
  uint64_t innerBytes = 0;
  uint64_t exampleBytes = 0;
  uint64_t staging = kNoStaging;
};

Layout layoutOf(const ArgInfo &arg) {
  Layout l;
  l.mapped = arg.isMapped();
  size_t axis = l.mapped ? size_t(arg.mappedAxis) : 0;
  l.outer = product(arg.shape, 0, axis);
  l.innerBytes =
      dtypeBytes(arg.dtype) * product(arg.shape, axis, arg.shape.size());
  l.exampleBytes = uint64_t(exampleBytes(arg));
  l.staging = arg.stagingOffset;
  return l;
}

/// The byte kernels write at byte p of a binding of output o in chunk c.
unsigned char pattern(uint64_t c, uint64_t o, uint64_t p) {
  return (unsigned char)(c * 151 + o * 73 + p * 7 + 1);
}

/// One dispatch of the schedule as it runs in one chunk.
struct Execution {
  const Command *command;
  uint64_t chunk;
  uint64_t loops[kMaxLoopDepth];
  uint64_t grid[3];
  /// The arrival number of its first workgroup.
  uint64_t first;
  /// Whether it binds an output (then only workgroup 0 touches memory).
  bool writes;
};

/// The call in progress, which the workgroups check.
struct Call {
  const Artifact *artifact = nullptr;
  const EntryInfo *info = nullptr;
  uint64_t n = 0;
  std::vector<Layout> in, out;
  std::vector<const unsigned char *> inData;
  std::vector<unsigned char *> outData;
  /// Per chunk: its examples, and n as the schedule sees it.
  std::vector<uint64_t> count, chunkN;
  std::vector<Execution> executions;
  uint64_t workgroups = 0;
  std::unique_ptr<std::atomic<bool>[]> seen;
  std::atomic<uint64_t> arrivals{0};
  /// Per chunk, whether a dispatch has written an output yet (inputs may
  /// share bytes with outputs: they are checked before).
  std::unique_ptr<std::atomic<bool>[]> chunkWritten;
  /// Per chunk and mapped output: how many bytes of its binding the kernels
  /// wrote (workgroup 0 of one dispatch at a time writes it).
  std::vector<std::vector<uint64_t>> written;
  std::atomic<uintptr_t> arena{0};
};
Call *current = nullptr;

/// With VMAPC_FUZZ_VERBOSE=1, prints each entry and call (for triage).
bool verbose() {
  static const bool on = std::getenv("VMAPC_FUZZ_VERBOSE") != nullptr;
  return on;
}

void printArg(const char *kind, const ArgInfo &a) {
  std::fprintf(stderr, "  %s %s: dtype %d shape [", kind, a.name.c_str(),
               int(a.dtype));
  for (size_t i = 0; i < a.shape.size(); ++i)
    std::fprintf(stderr, "%s%lld", i ? ", " : "", (long long)a.shape[i]);
  std::fprintf(stderr, "] axis %d staging %lld\n", a.mappedAxis,
               a.hasStaging() ? (long long)a.stagingOffset : -1LL);
}

void printEntry(const Artifact &a, const EntryInfo &e) {
  std::fprintf(stderr, "entry %s: B %u arena %llu%s\n", e.name.c_str(),
               e.batchSize, (unsigned long long)e.arenaBytes,
               e.padsPartialChunks ? " pads" : "");
  for (const ArgInfo &arg : e.inputs)
    printArg("input", arg);
  for (const ArgInfo &arg : e.outputs)
    printArg("output", arg);
  std::fprintf(stderr, "%s", describeSchedule(e.schedule, a.kernels).c_str());
}

//===----------------------------------------------------------------------===//
// Manifest generation
//===----------------------------------------------------------------------===//

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

  Artifact artifact() {
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
      CodeObject o;
      o.level = kLevels[i];
      o.cpuFeatures = {i == 0 ? "sse2" : kLevels[i]};
      if (oneIn(8))
        o.cpuFeatures.push_back(kFeatures[fdp.ConsumeIntegralInRange(0, 3)]);
      o.bytes = code;
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
        Command loop;
        loop.kind = Command::Kind::Loop;
        loop.tripCount = oneIn(32) ? uint64_t(1) << 20
                                   : fdp.ConsumeIntegralInRange<uint64_t>(0, 3);
        e.schedule.push_back(loop);
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

//===----------------------------------------------------------------------===//
// The expected run
//===----------------------------------------------------------------------===//

/// Appends the dispatches of commands [begin, end) of the schedule for
/// chunk `c` (`depth` loops around them, their indices in `loops`). False
/// once past the harness's bounds.
bool expand(Call &call, size_t begin, size_t end, uint32_t depth,
            uint64_t *loops, uint64_t c) {
  const std::vector<Command> &s = call.info->schedule;
  for (size_t i = begin; i < end; ++i) {
    const Command &cmd = s[i];
    if (cmd.kind == Command::Kind::Loop) {
      size_t bodyEnd = i + 1 + cmd.bodySize;
      for (uint64_t t = 0; t < cmd.tripCount; ++t) {
        loops[depth] = t;
        if (!expand(call, i + 1, bodyEnd, depth + 1, loops, c))
          return false;
      }
      i = bodyEnd - 1;
      continue;
    }
    const KernelInfo &k = call.artifact->kernels[cmd.kernel];
    Execution ex;
    ex.command = &cmd;
    ex.chunk = c;
    std::copy(loops, loops + kMaxLoopDepth, ex.loops);
    uint64_t total = 1;
    for (int d = 0; d < 3; ++d) {
      ex.grid[d] = workgroupsFor(k.workgroupCount[d], call.chunkN[c]);
      if (ex.grid[d] > kMaxWorkgroupsPerRun)
        return false;
      total *= ex.grid[d];
    }
    ex.first = call.workgroups;
    ex.writes = false;
    for (const Binding &b : cmd.bindings)
      ex.writes |= b.kind == Binding::Kind::Output;
    call.workgroups += total;
    call.executions.push_back(ex);
    if (call.workgroups > kMaxWorkgroupsPerRun ||
        call.executions.size() > kMaxDispatchesPerRun)
      return false;
  }
  return true;
}

/// Fills in the chunks and the dispatches a run of `call.n` examples makes
/// (Runtime.h); false if it would be past the harness's bounds.
bool planRun(Call &call) {
  const EntryInfo &info = *call.info;
  const uint64_t b = info.batchSize, n = call.n;
  bool unmappedOutput = false, mappedBytes = false;
  for (const Layout &l : call.out)
    unmappedOutput |= !l.mapped;
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list)
      mappedBytes |= l.mapped && l.exampleBytes;
  const ChunkPlan plan =
      planChunks(n, b, info.padsPartialChunks, unmappedOutput, mappedBytes);
  const uint64_t chunks = plan.chunks;
  if (chunks > kMaxChunks)
    return false;
  uint64_t loops[kMaxLoopDepth] = {};
  for (uint64_t c = 0; c < chunks; ++c) {
    call.count.push_back(plan.count(c));
    call.chunkN.push_back(plan.scheduleN(c));
    if (!expand(call, 0, info.schedule.size(), 0, loops, c))
      return false;
  }
  call.seen.reset(new std::atomic<bool>[call.workgroups]());
  call.chunkWritten.reset(new std::atomic<bool>[chunks]());
  call.written.assign(chunks, std::vector<uint64_t>(call.out.size(), 0));
  return true;
}

//===----------------------------------------------------------------------===//
// Running one entry
//===----------------------------------------------------------------------===//

/// The ways a call can be wrong; each must fail.
enum class Breakage {
  None,
  InputCount,
  OutputCount,
  DType,
  RankUp,
  RankDown,
  Dim,
  BatchDim,
  NullData,
  TooManyDims,
};

struct UserArg {
  std::vector<int64_t> shape;
  DType dtype;
  std::vector<unsigned char> bytes;
  bool null = false;
};

uint64_t byteSize(const UserArg &a) {
  uint64_t n = dtypeBytes(a.dtype);
  for (int64_t d : a.shape)
    n *= uint64_t(d);
  return n;
}

void runEntry(const Artifact &artifact, Executable &exe, const Entry &entry,
              FuzzedDataProvider &fdp) {
  const EntryInfo &info = entry.info();
  Call call;
  call.artifact = &artifact;
  call.info = &info;
  for (const ArgInfo &a : info.inputs)
    call.in.push_back(layoutOf(a));
  for (const ArgInfo &a : info.outputs)
    call.out.push_back(layoutOf(a));
  size_t numMapped = 0;
  uint64_t maxN = 3 * uint64_t(info.batchSize) + 1;
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list) {
      if (!l.mapped && l.exampleBytes > kMaxUserBytes)
        return;
      numMapped += l.mapped;
      if (l.mapped && l.exampleBytes)
        maxN = std::min(maxN, kMaxUserBytes / l.exampleBytes);
    }
  // With no mapped argument, N is 0 (Runtime.h).
  if (numMapped)
    call.n = fdp.ConsumeIntegralInRange<uint64_t>(0, maxN);

  std::vector<UserArg> ins(info.inputs.size()), outs(info.outputs.size());
  for (size_t i = 0; i < ins.size(); ++i) {
    ins[i].shape = batchedShape(info.inputs[i], int64_t(call.n));
    ins[i].dtype = info.inputs[i].dtype;
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    outs[i].shape = batchedShape(info.outputs[i], int64_t(call.n));
    outs[i].dtype = info.outputs[i].dtype;
  }

  // Maybe break the call in one way that the runtime must reject.
  Breakage broken = Breakage::None;
  if (!fdp.ConsumeIntegralInRange(0, 3))
    broken = Breakage(fdp.ConsumeIntegralInRange(1, 9));
  std::vector<UserArg> *list = fdp.ConsumeBool() ? &ins : &outs;
  if (list->empty())
    list = list == &ins ? &outs : &ins;
  const std::vector<ArgInfo> &infos = list == &ins ? info.inputs : info.outputs;
  size_t victim = list->empty()
                      ? 0
                      : fdp.ConsumeIntegralInRange<size_t>(0, list->size() - 1);
  switch (broken) {
  case Breakage::None:
    break;
  case Breakage::InputCount:
    if (!ins.empty() && fdp.ConsumeBool())
      ins.pop_back();
    else
      ins.push_back(UserArg{{}, DType::F32, {}, false});
    break;
  case Breakage::OutputCount:
    if (!outs.empty() && fdp.ConsumeBool())
      outs.pop_back();
    else
      outs.push_back(UserArg{{}, DType::F32, {}, false});
    break;
  case Breakage::DType:
    if (list->empty())
      return;
    (*list)[victim].dtype = DType((int((*list)[victim].dtype) % 3) + 1);
    break;
  case Breakage::RankUp:
    if (list->empty())
      return;
    (*list)[victim].shape.push_back(1);
    break;
  case Breakage::RankDown:
    if (list->empty() || (*list)[victim].shape.empty())
      return;
    (*list)[victim].shape.pop_back();
    break;
  case Breakage::Dim: {
    if (list->empty())
      return;
    const ArgInfo &a = infos[victim];
    if (a.shape.empty())
      return;
    size_t d = fdp.ConsumeIntegralInRange<size_t>(0, a.shape.size() - 1);
    size_t pos = d + (a.isMapped() && d >= size_t(a.mappedAxis) ? 1 : 0);
    (*list)[victim].shape[pos] += 1;
    break;
  }
  case Breakage::BatchDim: {
    // Another N is an error only where another mapped argument fixes N.
    if (list->empty() || !infos[victim].isMapped() || numMapped < 2)
      return;
    (*list)[victim].shape[size_t(infos[victim].mappedAxis)] += 1;
    break;
  }
  case Breakage::NullData:
    if (list->empty())
      return;
    (*list)[victim].null = true;
    break;
  case Breakage::TooManyDims:
    if (list->empty())
      return;
    (*list)[victim].shape.assign(kMaxRank + 1, 1);
    break;
  }
  for (auto *l : {&ins, &outs})
    for (UserArg &a : *l)
      if (byteSize(a) > 2 * kMaxUserBytes)
        return;
  if (broken == Breakage::NullData) {
    UserArg &a = (*list)[victim];
    if (byteSize(a) == 0)
      return;
  }
  // A well-formed call: what it must run.
  if (broken == Breakage::None && !planRun(call))
    return;

  for (UserArg &a : ins) {
    a.bytes.resize(byteSize(a));
    std::string fill = fdp.ConsumeBytesAsString(a.bytes.size());
    for (size_t i = 0; i < a.bytes.size(); ++i)
      a.bytes[i] = i < fill.size() ? (unsigned char)fill[i]
                                   : (unsigned char)(i * 13 + 5);
  }
  for (UserArg &a : outs)
    a.bytes.assign(byteSize(a), 0xEE);

  std::vector<HostArray> inArrays;
  std::vector<MutableHostArray> outArrays;
  for (UserArg &a : ins)
    inArrays.push_back(
        {a.null ? nullptr : a.bytes.data(), a.dtype, Shape(a.shape)});
  for (UserArg &a : outs)
    outArrays.push_back(
        {a.null ? nullptr : a.bytes.data(), a.dtype, Shape(a.shape)});
  if (broken == Breakage::None) {
    for (UserArg &a : ins)
      call.inData.push_back(a.bytes.data());
    for (UserArg &a : outs)
      call.outData.push_back(a.bytes.data());
  }

  if (verbose()) {
    printEntry(artifact, info);
    std::fprintf(stderr, "run: N = %llu, broken %d, %zu dispatches\n",
                 (unsigned long long)call.n, int(broken),
                 call.executions.size());
  }
  Stats before = exe.stats();
  current = &call;
  Status s = exe.run(entry, inArrays, outArrays);
  current = nullptr;

  // An empty array's other dims times N can pass the 2^62-byte limit,
  // which the manifest's check (times B) does not bound: kOutOfRange.
  bool overLimit = false;
  for (auto *l : {&ins, &outs})
    for (UserArg &a : *l)
      overLimit |= !arrayBytes(a.dtype, a.shape.data(), a.shape.size());
  if (broken != Breakage::None || overLimit) {
    if (s.ok())
      fail("entry '" + info.name + "': a call broken in way " +
           std::to_string(int(broken)) + " succeeded");
    if (call.arrivals.load() != 0 || exe.stats().launches != before.launches)
      fail("a rejected call ran the code");
    for (UserArg &a : outs)
      for (unsigned char c : a.bytes)
        if (c != 0xEE)
          fail("a rejected call wrote an output");
    ++counts.rejected;
    return;
  }
  if (!s.ok())
    fail("entry '" + info.name +
         "': a well-formed call failed: " + s.message());

  ++counts.runs;
  counts.workgroups += call.workgroups;
  if (call.arrivals.load() != call.workgroups)
    fail("expected " + std::to_string(call.workgroups) +
         " workgroups, the kernels saw " +
         std::to_string(call.arrivals.load()));
  if (exe.stats().launches - before.launches != call.executions.size())
    fail("expected " + std::to_string(call.executions.size()) +
         " dispatches, stats say " +
         std::to_string(exe.stats().launches - before.launches));
  // Unmapped outputs: the caller's arrays, which the kernels wrote in
  // place, dispatch after dispatch.
  std::vector<std::vector<unsigned char>> unmapped(outs.size());
  for (size_t i = 0; i < outs.size(); ++i)
    if (!call.out[i].mapped)
      unmapped[i].assign(outs[i].bytes.size(), 0xEE);
  for (const Execution &ex : call.executions) {
    const KernelInfo &k = artifact.kernels[ex.command->kernel];
    if (!ex.writes || ex.grid[0] * ex.grid[1] * ex.grid[2] == 0)
      continue;
    for (size_t j = 0; j < ex.command->bindings.size(); ++j) {
      const Binding &bd = ex.command->bindings[j];
      if (bd.kind == Binding::Kind::Output && !call.out[bd.index].mapped)
        for (uint64_t p = 0; p < k.bindingBytes[j]; ++p)
          unmapped[bd.index][p] = pattern(ex.chunk, bd.index, p);
    }
  }
  for (size_t i = 0; i < outs.size(); ++i)
    if (!call.out[i].mapped && unmapped[i] != outs[i].bytes)
      fail("unmapped output '" + info.outputs[i].name +
           "' is not what the kernels wrote last");
  const uint64_t b = info.batchSize;
  for (size_t i = 0; i < outs.size(); ++i) {
    const Layout &l = call.out[i];
    if (!l.mapped || l.exampleBytes == 0)
      continue;
    const unsigned char *got = outs[i].bytes.data();
    for (uint64_t o = 0; o < l.outer; ++o)
      for (uint64_t e = 0; e < call.n; ++e)
        for (uint64_t j = 0; j < l.innerBytes; ++j) {
          uint64_t c = e / b;
          uint64_t p = (o * b + e % b) * l.innerBytes + j;
          if (p < call.written[c][i] &&
              got[(o * call.n + e) * l.innerBytes + j] != pattern(c, i, p))
            fail("output '" + info.outputs[i].name + "' example " +
                 std::to_string(e) + " byte " + std::to_string(j) +
                 " is not what the kernels wrote");
        }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// The kernels' side
//===----------------------------------------------------------------------===//

namespace {

/// Where a binding must point: at `address` in the caller's memory, or at
/// `offset` into the arena (whose base is unknown before the first staged
/// or arena binding).
struct Expected {
  bool inArena;
  uintptr_t address;
  uint64_t offset;
};

/// Where binding `b` of a dispatch in chunk `c` must point.
Expected expectedAddress(const Call &call, const Binding &b, uint64_t c) {
  const uint64_t bsize = call.info->batchSize;
  const uint64_t count = call.count[c];
  auto argAddress = [&](const Layout &l, const unsigned char *user) {
    if (!l.mapped)
      return Expected{false, uintptr_t(user), 0};
    // In place: a full chunk of an outermost-mapped argument with bytes.
    if (l.exampleBytes && count == bsize && l.outer == 1)
      return Expected{false, uintptr_t(user + c * bsize * l.innerBytes), 0};
    return Expected{true, 0, l.staging};
  };
  switch (b.kind) {
  case Binding::Kind::Input:
    return argAddress(call.in[b.index], call.inData[b.index]);
  case Binding::Kind::Output:
    return argAddress(call.out[b.index], call.outData[b.index]);
  case Binding::Kind::Arena:
    break;
  }
  return Expected{true, 0, b.offset};
}

/// Checks the input that binding `b` (to input `i`) shows in chunk `c`.
void checkInput(const Call &call, size_t i, const unsigned char *got,
                uint64_t c) {
  const Layout &l = call.in[i];
  const EntryInfo &info = *call.info;
  const unsigned char *user = call.inData[i];
  const uint64_t b = info.batchSize, n = call.n, count = call.count[c];
  if (l.exampleBytes == 0 || count == 0)
    return;
  if (!l.mapped) {
    if (std::memcmp(got, user, l.exampleBytes) != 0)
      fail("unmapped input '" + info.inputs[i].name +
           "' differs from the caller's");
    return;
  }
  const uint64_t lanes = info.padsPartialChunks ? b : count;
  for (uint64_t o = 0; o < l.outer; ++o)
    for (uint64_t k = 0; k < lanes; ++k) {
      // Padding lanes repeat the chunk's last example.
      uint64_t e = c * b + std::min(k, count - 1);
      if (std::memcmp(got + (o * b + k) * l.innerBytes,
                      user + (o * n + e) * l.innerBytes, l.innerBytes) != 0)
        fail("input '" + info.inputs[i].name + "' lane " + std::to_string(k) +
             " of chunk " + std::to_string(c) + " is not example " +
             std::to_string(e));
    }
}

volatile unsigned char sink;

} // namespace

extern "C" __attribute__((visibility("default"))) void
vmapc_fuzz_on_workgroup(int kernel, void *const *bindings,
                        const int64_t *scalars, int64_t x, int64_t y,
                        int64_t z) {
  Call *call = current;
  if (!call)
    fail("the code was called outside Executable::run");
  const uint64_t a = call->arrivals.fetch_add(1);
  if (a >= call->workgroups)
    fail("more workgroups ran than the schedule has (" +
         std::to_string(call->workgroups) + ")");
  // The dispatch this arrival belongs to: dispatches run one after another.
  auto next = std::upper_bound(
      call->executions.begin(), call->executions.end(), a,
      [](uint64_t v, const Execution &ex) { return v < ex.first; });
  const Execution &ex = *(next - 1);
  const Command &cmd = *ex.command;
  const KernelInfo &k = call->artifact->kernels[cmd.kernel];
  const std::string where = "dispatch of kernel '" + k.name + "' in chunk " +
                            std::to_string(ex.chunk) + ": ";
  if (k.name != "k" + std::to_string(kernel))
    fail(where + "a workgroup of stand-in kernel k" + std::to_string(kernel) +
         " ran");
  if (x < 0 || y < 0 || z < 0 || uint64_t(x) >= ex.grid[0] ||
      uint64_t(y) >= ex.grid[1] || uint64_t(z) >= ex.grid[2])
    fail(where + "workgroup (" + std::to_string(x) + ", " + std::to_string(y) +
         ", " + std::to_string(z) + ") is outside the grid");
  const uint64_t linear =
      (uint64_t(z) * ex.grid[1] + uint64_t(y)) * ex.grid[0] + uint64_t(x);
  if (call->seen[ex.first + linear].exchange(true))
    fail(where + "a workgroup ran twice");

  for (size_t j = 0; j < cmd.scalars.size(); ++j) {
    const ScalarSource &src = cmd.scalars[j];
    int64_t want = src.kind == ScalarSource::Kind::NumExamples
                       ? int64_t(call->chunkN[ex.chunk])
                       : int64_t(ex.loops[src.loop]);
    if (scalars[j] != want)
      fail(where + "scalar " + std::to_string(j) + " is " +
           std::to_string(scalars[j]) + ", expected " + std::to_string(want));
  }

  // Where each binding points; the arena's base is learned once.
  for (size_t j = 0; j < cmd.bindings.size(); ++j) {
    Expected want = expectedAddress(*call, cmd.bindings[j], ex.chunk);
    uintptr_t got = uintptr_t(bindings[j]);
    if (want.inArena) {
      uintptr_t base = got - want.offset, none = 0;
      if (!call->arena.compare_exchange_strong(none, base) && none != base)
        fail(where + "binding " + std::to_string(j) +
             " is not at its arena offset " + std::to_string(want.offset));
      if (base % kArenaAlignment)
        fail("the arena is not 256-byte aligned");
      continue;
    }
    if (got != want.address)
      fail(where + "binding " + std::to_string(j) +
           " does not point at its argument's chunk");
  }

  if (ex.writes) {
    // One workgroup reads all the bindings' bytes and writes the outputs'.
    if (linear != 0)
      return;
    unsigned char sum = 0;
    for (size_t j = 0; j < cmd.bindings.size(); ++j) {
      const auto *p = static_cast<const unsigned char *>(bindings[j]);
      uint64_t bytes = k.bindingBytes[j];
      // Every byte of a small binding; the ends of a large one.
      uint64_t full = std::min(bytes, kMaxUserBytes);
      for (uint64_t i = 0; i < full; ++i)
        sum += p[i];
      if (bytes > full)
        sum += p[bytes - 1];
    }
    sink = sum;
    call->chunkWritten[ex.chunk] = true;
    for (size_t j = 0; j < cmd.bindings.size(); ++j) {
      const Binding &b = cmd.bindings[j];
      if (b.kind != Binding::Kind::Output)
        continue;
      auto *p = static_cast<unsigned char *>(bindings[j]);
      for (uint64_t i = 0; i < k.bindingBytes[j]; ++i)
        p[i] = pattern(ex.chunk, b.index, i);
      uint64_t &w = call->written[ex.chunk][b.index];
      w = std::max(w, k.bindingBytes[j]);
    }
    return;
  }
  // Reads only: the ends of every binding, and the inputs' contents until
  // an output was written in this chunk.
  for (size_t j = 0; j < cmd.bindings.size(); ++j) {
    const auto *p = static_cast<const unsigned char *>(bindings[j]);
    if (k.bindingBytes[j])
      sink = p[0] + p[k.bindingBytes[j] - 1];
  }
  if (call->chunkWritten[ex.chunk])
    return;
  for (size_t j = 0; j < cmd.bindings.size(); ++j)
    if (cmd.bindings[j].kind == Binding::Kind::Input)
      checkInput(*call, cmd.bindings[j].index,
                 static_cast<const unsigned char *>(bindings[j]), ex.chunk);
}

//===----------------------------------------------------------------------===//
// libFuzzer entry points
//===----------------------------------------------------------------------===//

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *path = std::getenv("VMAPC_FUZZ_KERNELS");
  if (!path)
    path = VMAPC_FUZZ_KERNELS;
  FILE *f = std::fopen(path, "rb");
  if (!f) {
    std::fprintf(stderr,
                 "artifact_run_fuzzer: cannot open the stand-in code "
                 "object '%s' (set VMAPC_FUZZ_KERNELS)\n",
                 path);
    std::exit(1);
  }
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0)
    standInCode.append(buf, got);
  std::fclose(f);
  // Two threads: workgroups of one dispatch run concurrently.
  Status s = Device::open("cpu:threads=2", &cpu);
  if (!s.ok()) {
    std::fprintf(stderr, "artifact_run_fuzzer: %s\n", s.message().c_str());
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ++counts.inputs;
  FuzzedDataProvider fdp(data, size);
  Artifact artifact = ManifestGen(fdp).artifact();
  for (const EntryInfo &e : artifact.entries)
    if (e.arenaBytes > kMaxArenaBytes)
      return 0;
  std::string bytes;
  if (!serializeArtifact(artifact, &bytes).ok())
    return 0;
  ++counts.serialized;
  std::unique_ptr<Executable> exe;
  Status loaded = Executable::loadBytes(cpu, bytes.data(), bytes.size(), &exe);
  if (!loaded.ok()) {
    if (std::getenv("DEBUG_LOAD"))
      std::fprintf(stderr, "LOAD: %s\n", loaded.message().c_str());
    return 0;
  }
  ++counts.loaded;
  if (exe->numEntries() != artifact.entries.size() ||
      exe->stats().allocations != 1)
    fail("a loaded executable does not match its manifest");
  for (size_t i = 0; i < exe->numEntries(); ++i)
    runEntry(exe->artifact(), *exe, exe->entry(i), fdp);
  return 0;
}
