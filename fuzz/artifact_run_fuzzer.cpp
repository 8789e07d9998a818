//===- artifact_run_fuzzer.cpp - libFuzzer: load and run artifacts --------===//
//
// Decodes the input (FuzzedDataProvider) into an artifact's manifest: CPU
// features, 1-3 entries with batch sizes, arena sizes, and inputs and outputs
// with names, dtypes, shapes, mapped axes and staging offsets (laid out
// without overlap, or raw). The code is always the known-good stand-in object
// of StandInKernels.cpp, with each entry's descriptor written to match the
// manifest (one word in 16 deliberately wrong). The artifact is serialized
// (which validates it) and
// loaded with Executable::loadBytes; then each entry runs on N examples, with
// arrays whose shapes follow the manifest (N and the data from the input; at
// most kMaxUserBytes per array). From inside the kernel, and after the run,
// the harness checks what ArtifactFormat.h and Runtime.h promise:
//
//   * each input the kernel sees holds the chunk's B examples gathered from
//     the caller's array (padding lanes repeat the chunk's last example; all
//     zeros when N = 0); the arena is 256-byte aligned and holds the entry's
//     arena bytes;
//   * each mapped output the caller gets is the kernel's lanes scattered back
//     (padding dropped); each unmapped output is the last launch's value;
//   * ceil(N / B) launches, or one when N = 0 and an output is unmapped, at
//     most one when every mapped argument is empty (a 0 dim: no bytes);
//   * a call with a wrong argument count, dtype, rank, dimension or a null
//     data pointer fails, launches nothing and leaves the outputs untouched;
//     so does one with an array of 2^62 bytes or more (an empty array whose
//     other dims times N pass the limit), with kOutOfRange.
//
// ASan reports any byte the runtime (or the kernel, reading what the manifest
// promises) touches outside the caller's arrays and the arena.
//
//===----------------------------------------------------------------------===//

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Runtime.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace vmapc;

namespace {

/// Bounds that keep one input fast: every array the harness allocates, and
/// the arena, stay below these; so does the work of one run.
constexpr uint64_t kMaxUserBytes = 64 << 10;
constexpr uint64_t kMaxArenaBytes = 1 << 20;
constexpr uint64_t kMaxRunBytes = 4 << 20;
constexpr uint64_t kMaxLaunches = 4096;

/// The stand-in code object's bytes (read once).
std::string standInCode;

/// How far inputs got (printed at exit with VMAPC_FUZZ_STATS=1).
struct Counts {
  uint64_t inputs = 0, serialized = 0, loaded = 0, runs = 0, rejected = 0;
  ~Counts() {
    if (std::getenv("VMAPC_FUZZ_STATS"))
      std::fprintf(stderr,
                   "artifact_run_fuzzer: %llu inputs, %llu valid artifacts, "
                   "%llu loaded, %llu runs checked, %llu broken calls "
                   "rejected\n",
                   (unsigned long long)inputs, (unsigned long long)serialized,
                   (unsigned long long)loaded, (unsigned long long)runs,
                   (unsigned long long)rejected);
  }
} counts;

[[noreturn]] void fail(const std::string &what) {
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
};

Layout layoutOf(const ArgInfo &arg) {
  Layout l;
  l.mapped = arg.isMapped();
  size_t axis = l.mapped ? size_t(arg.mappedAxis) : 0;
  l.outer = product(arg.shape, 0, axis);
  l.innerBytes =
      dtypeBytes(arg.dtype) * product(arg.shape, axis, arg.shape.size());
  l.exampleBytes = uint64_t(exampleBytes(arg));
  return l;
}

/// The byte the kernel writes at [o, lane k, byte j] of an output in chunk c.
unsigned char pattern(uint64_t c, uint64_t o, uint64_t k, uint64_t j) {
  return (unsigned char)(c * 151 + o * 73 + k * 29 + j * 7 + 1);
}

/// What the kernel checks on each launch: the call in progress.
struct Call {
  const EntryInfo *info = nullptr;
  uint64_t n = 0;
  std::vector<Layout> in, out;
  std::vector<const unsigned char *> inData;
  uint64_t launches = 0;
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

void printEntry(const EntryInfo &e) {
  std::fprintf(stderr, "entry %s: B %u arena %llu\n", e.name.c_str(),
               e.batchSize, (unsigned long long)e.arenaBytes);
  for (const ArgInfo &a : e.inputs)
    printArg("input", a);
  for (const ArgInfo &a : e.outputs)
    printArg("output", a);
}

//===----------------------------------------------------------------------===//
// Manifest generation
//===----------------------------------------------------------------------===//

/// The first two words of an entry descriptor (ArtifactFormat.h).
constexpr uint64_t kDescriptorMagicWord = 0x4353444350414d56ull; // "VMAPCDSC"
constexpr uint64_t kDescriptorVersionWord = 1;

/// Writes the descriptor of stand-in kernel `slot`_`n` in `code` (found by
/// its marker, see StandInKernels.cpp).
void writeDescriptor(std::string &code, size_t slot,
                     const std::vector<uint64_t> &words) {
  uint64_t n = (words.size() - 6) / 2;
  uint64_t marker[2] = {0x5afe5afe00000000ull | (slot << 8) | n,
                        0xfa11fa11fa11fa11ull};
  size_t at = code.find(
      std::string(reinterpret_cast<const char *>(marker), sizeof(marker)));
  if (at == std::string::npos || at < 16)
    fail("no descriptor for stand-in kernel " + std::to_string(slot) + "_" +
         std::to_string(n) + " in the code object");
  std::memcpy(&code[at - 16], words.data(), words.size() * 8);
}

class ManifestGen {
public:
  explicit ManifestGen(FuzzedDataProvider &fdp) : fdp(fdp) {}

  Artifact artifact() {
    Artifact a;
    a.code = standInCode;
    static const char *kFeatures[] = {"sse2", "sse4.2", "popcnt", "avx512vbmi2",
                                      "no-such-feature"};
    for (int i = fdp.ConsumeIntegralInRange(0, 2); i > 0; --i)
      a.cpuFeatures.push_back(kFeatures[fdp.ConsumeIntegralInRange(0, 4)]);
    for (int i = fdp.ConsumeIntegralInRange(1, 3); i > 0; --i)
      a.entries.push_back(entry(a.entries.size()));
    for (size_t i = 0; i < a.entries.size(); ++i)
      descriptor(a.code, i, a.entries[i]);
    return a;
  }

private:
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

  ArgInfo arg(int index) {
    static const char *kNames[] = {"x", "y", "z", "w", "x"};
    ArgInfo a;
    a.name = kNames[std::min(index, 3) + (fdp.ConsumeIntegralInRange(0, 15)
                                              ? 0
                                              : 4 - std::min(index, 3))];
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

  /// The entry's descriptor as the compiler would write it, but for one
  /// word in 16 inputs.
  void descriptor(std::string &code, size_t slot, const EntryInfo &e) {
    std::vector<uint64_t> words = {kDescriptorMagicWord, kDescriptorVersionWord,
                                   e.batchSize,          e.arenaBytes,
                                   e.inputs.size(),      e.outputs.size()};
    for (const auto *list : {&e.inputs, &e.outputs})
      for (const ArgInfo &a : *list) {
        words.push_back(uint64_t(exampleBytes(a)));
        words.push_back(uint64_t(int64_t(a.mappedAxis)));
      }
    if (!fdp.ConsumeIntegralInRange(0, 15))
      words[fdp.ConsumeIntegralInRange<size_t>(0, words.size() - 1)] +=
          fdp.ConsumeIntegralInRange<uint64_t>(1, 3);
    writeDescriptor(code, slot, words);
  }

  EntryInfo entry(size_t index) {
    EntryInfo e;
    e.name =
        fdp.ConsumeIntegralInRange(0, 15) ? "e" + std::to_string(index) : "e0";
    e.batchSize = uint32_t(small(8));
    int numIn = fdp.ConsumeIntegralInRange(0, 4);
    int numOut = fdp.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < numIn; ++i)
      e.inputs.push_back(arg(i));
    for (int i = 0; i < numOut; ++i)
      e.outputs.push_back(arg(i));
    // Kernel `index`_`numIn + numOut` has a descriptor of the right size.
    e.symbol = fdp.ConsumeIntegralInRange(0, 31)
                   ? "vmapc_fuzz_kernel_" + std::to_string(index) + "_" +
                         std::to_string(numIn + numOut)
                   : "no_such_symbol";
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
        for (ArgInfo &a : args) {
          bool stage = a.isMapped() || !fdp.ConsumeIntegralInRange(0, 7);
          int64_t ex = exampleBytes(a);
          if (!stage || ex < 0)
            continue;
          cursor = (cursor + align - 1) / align * align;
          a.stagingOffset = cursor;
          uint64_t bytes = uint64_t(ex);
          if (a.isMapped() && e.batchSize &&
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
        for (ArgInfo &a : *args)
          if (a.isMapped() || !fdp.ConsumeIntegralInRange(0, 7))
            a.stagingOffset =
                fdp.ConsumeIntegralInRange(0, 7)
                    ? fdp.ConsumeIntegralInRange<uint64_t>(0, e.arenaBytes)
                    : fdp.ConsumeIntegral<uint64_t>();
    }
    return e;
  }

  FuzzedDataProvider &fdp;
};

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

/// Largest N such that the run stays within the harness's bounds.
uint64_t maxExamples(const EntryInfo &info, const std::vector<Layout> &in,
                     const std::vector<Layout> &out) {
  uint64_t b = info.batchSize;
  uint64_t perLaunch = info.arenaBytes;
  uint64_t maxN = 3 * b + 1;
  for (const auto *list : {&in, &out})
    for (const Layout &l : *list) {
      perLaunch += l.mapped ? b * l.exampleBytes : l.exampleBytes;
      if (l.mapped && l.exampleBytes)
        maxN = std::min(maxN, kMaxUserBytes / l.exampleBytes);
    }
  uint64_t launches =
      std::max<uint64_t>(1, kMaxRunBytes / std::max<uint64_t>(perLaunch, 1));
  launches = std::min(launches, kMaxLaunches);
  return std::min(maxN, launches * b);
}

void runEntry(Executable &exe, const Entry &entry, FuzzedDataProvider &fdp) {
  const EntryInfo &info = entry.info();
  Call call;
  call.info = &info;
  for (const ArgInfo &a : info.inputs)
    call.in.push_back(layoutOf(a));
  for (const ArgInfo &a : info.outputs)
    call.out.push_back(layoutOf(a));
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list)
      if (!l.mapped && l.exampleBytes > kMaxUserBytes)
        return;
  size_t numMapped = 0;
  for (const ArgInfo &a : info.inputs)
    numMapped += a.isMapped();
  for (const ArgInfo &a : info.outputs)
    numMapped += a.isMapped();
  // With no mapped argument, N is 0 (Runtime.h).
  if (numMapped)
    call.n = fdp.ConsumeIntegralInRange<uint64_t>(
        0, maxExamples(info, call.in, call.out));

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
  if (broken == Breakage::None)
    for (UserArg &a : ins)
      call.inData.push_back(a.bytes.data());

  if (verbose()) {
    printEntry(info);
    std::fprintf(stderr, "run: N = %llu, broken %d\n",
                 (unsigned long long)call.n, int(broken));
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
      fail("entry '" + info.name + "': " +
           (broken == Breakage::None
                ? std::string("a call with an array of 2^62 bytes or more")
                : "a call broken in way " + std::to_string(int(broken))) +
           " succeeded");
    if (broken == Breakage::None && s.code() != StatusCode::kOutOfRange)
      fail("an array past 2^62 bytes failed with another code: " + s.message());
    if (call.launches != 0 || exe.stats().launches != before.launches)
      fail("a rejected call launched the code");
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
  uint64_t b = info.batchSize;
  bool unmappedOutput = false, mappedBytes = false;
  for (const Layout &l : call.out)
    unmappedOutput |= !l.mapped;
  for (const auto *list : {&call.in, &call.out})
    for (const Layout &l : *list)
      mappedBytes |= l.mapped && l.exampleBytes != 0;
  uint64_t launches = (call.n + b - 1) / b;
  if (call.n == 0 && unmappedOutput)
    launches = 1;
  // With no mapped bytes to move, one launch computes all a run can show.
  if (!mappedBytes)
    launches = std::min<uint64_t>(launches, 1);
  if (call.launches != launches ||
      exe.stats().launches - before.launches != launches)
    fail("expected " + std::to_string(launches) + " launches, the kernel saw " +
         std::to_string(call.launches) + ", stats say " +
         std::to_string(exe.stats().launches - before.launches));
  for (size_t i = 0; i < outs.size(); ++i) {
    const Layout &l = call.out[i];
    const unsigned char *got = outs[i].bytes.data();
    if (l.exampleBytes == 0)
      continue;
    if (!l.mapped) {
      for (uint64_t j = 0; j < l.exampleBytes; ++j)
        if (got[j] != pattern(launches - 1, 0, 0, j))
          fail("unmapped output '" + info.outputs[i].name +
               "' is not the last launch's value at byte " + std::to_string(j));
      continue;
    }
    for (uint64_t o = 0; o < l.outer; ++o)
      for (uint64_t e = 0; e < call.n; ++e)
        for (uint64_t j = 0; j < l.innerBytes; ++j)
          if (got[(o * call.n + e) * l.innerBytes + j] !=
              pattern(e / b, o, e % b, j))
            fail("output '" + info.outputs[i].name + "' example " +
                 std::to_string(e) + " byte " + std::to_string(j) +
                 " is not what the kernel wrote");
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// The kernel's side
//===----------------------------------------------------------------------===//

extern "C" __attribute__((visibility("default"))) void
vmapc_fuzz_on_launch(void **args) {
  Call *call = current;
  if (!call)
    fail("the code was called outside Executable::run");
  const EntryInfo &info = *call->info;
  const uint64_t b = info.batchSize, n = call->n;
  const uint64_t c = call->launches++;
  const uint64_t start = c * b;
  const uint64_t count = std::min(b, n - std::min(n, start));
  const size_t numIn = call->in.size(), numOut = call->out.size();

  for (size_t i = 0; i < numIn; ++i) {
    const Layout &l = call->in[i];
    const auto *got = static_cast<const unsigned char *>(args[i]);
    const unsigned char *user = call->inData[i];
    if (l.exampleBytes == 0)
      continue;
    if (!l.mapped) {
      if (std::memcmp(got, user, l.exampleBytes) != 0)
        fail("unmapped input '" + info.inputs[i].name +
             "' differs from the caller's");
      continue;
    }
    for (uint64_t o = 0; o < l.outer; ++o)
      for (uint64_t k = 0; k < b; ++k) {
        const unsigned char *lane = got + (o * b + k) * l.innerBytes;
        if (count == 0) {
          for (uint64_t j = 0; j < l.innerBytes; ++j)
            if (lane[j] != 0)
              fail("input '" + info.inputs[i].name +
                   "' is not zero with N = 0");
          continue;
        }
        uint64_t e = start + std::min(k, count - 1);
        if (std::memcmp(lane, user + (o * n + e) * l.innerBytes,
                        l.innerBytes) != 0)
          fail("input '" + info.inputs[i].name + "' lane " + std::to_string(k) +
               " of launch " + std::to_string(c) + " is not example " +
               std::to_string(e));
      }
  }

  auto *arena = static_cast<unsigned char *>(args[numIn + numOut]);
  if (reinterpret_cast<uintptr_t>(arena) % kArenaAlignment != 0)
    fail("the arena is not 256-byte aligned");
  std::memset(arena, 0xA5, info.arenaBytes);

  for (size_t i = 0; i < numOut; ++i) {
    const Layout &l = call->out[i];
    auto *dst = static_cast<unsigned char *>(args[numIn + i]);
    if (l.exampleBytes == 0)
      continue;
    if (!l.mapped) {
      for (uint64_t j = 0; j < l.exampleBytes; ++j)
        dst[j] = pattern(c, 0, 0, j);
      continue;
    }
    for (uint64_t o = 0; o < l.outer; ++o)
      for (uint64_t k = 0; k < b; ++k)
        for (uint64_t j = 0; j < l.innerBytes; ++j)
          dst[(o * b + k) * l.innerBytes + j] = pattern(c, o, k, j);
  }
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
  Device cpu;
  if (!Device::open("cpu", &cpu).ok())
    fail("cannot open the cpu device");
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
    runEntry(*exe, exe->entry(i), fdp);
  return 0;
}
