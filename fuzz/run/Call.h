//===- Call.h - artifact_run_fuzzer: the call the kernels check -*- C++ -*-===//
//
// What the parts of the run fuzzer (artifact_run_fuzzer.cpp) share: the
// harness's bounds, the stand-in code object's markers, the call in
// progress as the model expects it to run (Model.h) and the kernels check
// it (Checker.h), the caller's arrays, and the ways a call is broken.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FUZZ_RUN_CALL_H
#define VMAPC_FUZZ_RUN_CALL_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Runtime.h"
#include "vmapc/Schedule.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace vmapc_run_fuzzer {

using namespace vmapc;

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

/// How far inputs got (printed at exit with VMAPC_FUZZ_STATS=1).
struct Counts {
  uint64_t inputs = 0, serialized = 0, loaded = 0, runs = 0, rejected = 0,
           workgroups = 0, batchedRuns = 0;
  ~Counts() {
    if (std::getenv("VMAPC_FUZZ_STATS"))
      std::fprintf(stderr,
                   "artifact_run_fuzzer: %llu inputs, %llu valid artifacts, "
                   "%llu loaded, %llu runs checked (%llu workgroups; %llu "
                   "with full chunks run as one dispatch), %llu broken "
                   "calls rejected\n",
                   (unsigned long long)inputs, (unsigned long long)serialized,
                   (unsigned long long)loaded, (unsigned long long)runs,
                   (unsigned long long)workgroups,
                   (unsigned long long)batchedRuns,
                   (unsigned long long)rejected);
  }
};
/// The one Counts of the process.
extern Counts counts;

/// Reports a broken promise and aborts. Workgroups run on several threads:
/// the first to fail aborts, any other waits here, so that libFuzzer saves
/// the input once.
[[noreturn]] void fail(const std::string &what);

/// A batched argument as the runtime moves it: [outer, N or B, inner bytes].
struct Layout {
  bool mapped = false;
  uint64_t outer = 1;
  uint64_t innerBytes = 0;
  uint64_t exampleBytes = 0;
  uint64_t staging = kNoStaging;
};

/// The layout of `arg` as the runtime moves it.
Layout layoutOf(const ArgInfo &arg);

/// The byte kernels write at byte p of a binding of output o in chunk c.
inline unsigned char pattern(uint64_t c, uint64_t o, uint64_t p) {
  return (unsigned char)(c * 151 + o * 73 + p * 7 + 1);
}

/// Whether kernel `k` writes through its binding `j`, as its access says (a
/// binding the manifest gives no access for counts as written, as in the
/// runtime). A kernel the compiler makes does no more than its access says;
/// the runtime relies on that where it runs chunks together.
inline bool writesBinding(const KernelInfo &k, size_t j) {
  return j >= k.bindingAccess.size() || writes(k.bindingAccess[j]);
}

/// Whether the stand-in kernel of `cmd` writes its binding `j`: an output
/// binding its kernel `k` writes.
inline bool writesOutput(const KernelInfo &k, const Command &cmd, size_t j) {
  return cmd.bindings[j].kind == Binding::Kind::Output && writesBinding(k, j);
}

/// One dispatch of the schedule as it runs in one chunk.
struct Execution {
  const Command *command;
  uint64_t chunk;
  uint64_t loops[kMaxLoopDepth];
  uint64_t grid[3];
  /// The arrival number of its first workgroup.
  uint64_t first;
  /// Whether it writes an output binding (one whose kernel's access
  /// writes; then only workgroup 0 touches memory).
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
  /// The full chunks the runtime runs as one dispatch, without a barrier
  /// between them (Model.h), and the execution of the first of them:
  /// chunk c's is executions[batchedFrom + c], c < batchedChunks, and their
  /// workgroups arrive in any order.
  uint64_t batchedChunks = 0;
  size_t batchedFrom = 0;
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
/// The call in progress (null outside Executable::run).
extern Call *current;

/// With VMAPC_FUZZ_VERBOSE=1, prints each entry and call (for triage).
bool verbose();
/// Prints entry `e` of `a`: its batch, arena, arguments and schedule.
void printEntry(const Artifact &a, const EntryInfo &e);

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

/// One of the caller's arrays.
struct UserArg {
  std::vector<int64_t> shape;
  DType dtype;
  std::vector<unsigned char> bytes;
  bool null = false;
};

/// The bytes of `a` as its shape and dtype say.
inline uint64_t byteSize(const UserArg &a) {
  uint64_t n = dtypeBytes(a.dtype);
  for (int64_t d : a.shape)
    n *= uint64_t(d);
  return n;
}

} // namespace vmapc_run_fuzzer

#endif // VMAPC_FUZZ_RUN_CALL_H
