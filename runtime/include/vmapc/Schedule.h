//===- Schedule.h - an entry as a schedule of kernel dispatches -*- C++ -*-===//
//
// Plain data, shared by the compiler (which writes it into the artifact) and
// the runtime (which walks it for every chunk of examples). See
// ArtifactFormat.h for its encoding and dialect/SchedDialect.td for the IR
// it is read from.
//
// For a chunk of n examples (1 <= n <= B), the runtime runs the commands in
// order. A dispatch launches a kernel over its grid of workgroups (x, y, z;
// along each, a constant count c or ceil(n / T)), each workgroup once, on
// any thread, and waits for all of them before the next command. A loop
// runs the `bodySize` commands that follow it `tripCount` times; the
// kernels inside may read the loop's index as a scalar. A dispatch marked
// `oncePerCall` runs in the first chunk of a call only: it reads nothing
// that differs between chunks, and what it writes stays in the arena for
// the later chunks.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_SCHEDULE_H
#define VMAPC_SCHEDULE_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vmapc {

/// Where one binding (a pointer argument) of a dispatch points in a chunk.
struct Binding {
  enum class Kind : uint8_t {
    /// The entry's input `index` for this chunk: the caller's array (at the
    /// chunk's first example), or the input's staging slot in the arena.
    Input = 1,
    /// The entry's output `index` for this chunk, likewise.
    Output = 2,
    /// `offset` bytes into the arena.
    Arena = 3,
  };
  Kind kind = Kind::Arena;
  uint32_t index = 0;
  uint64_t offset = 0;
};

/// Where one scalar (int64) argument of a dispatch comes from.
struct ScalarSource {
  enum class Kind : uint8_t {
    /// n, the number of examples of the chunk.
    NumExamples = 1,
    /// The index (0 .. tripCount - 1) of the enclosing loop `loop`: 0 is the
    /// outermost loop around the dispatch.
    LoopIndex = 2,
  };
  Kind kind = Kind::NumExamples;
  uint32_t loop = 0;
};

/// One step of a schedule.
struct Command {
  enum class Kind : uint8_t { Dispatch = 1, Loop = 2 };
  Kind kind = Kind::Dispatch;
  /// Dispatch: index into `Artifact::kernels`, its bindings and scalars in
  /// the kernel's argument order.
  uint32_t kernel = 0;
  /// Dispatch: run in a call's first chunk only (outside every loop, no
  /// scalars, writes only arena bindings; the loader checks).
  bool oncePerCall = false;
  std::vector<Binding> bindings;
  std::vector<ScalarSource> scalars;
  /// Loop: how many times the body runs, and how many of the following
  /// commands form the body (a nested loop counts with its body).
  uint64_t tripCount = 0;
  uint32_t bodySize = 0;
};

/// What a kernel does through one binding: read it, write it, or both. The
/// compiler reads it off the kernel's body (every op that touches the
/// binding's memory, through views); the loader refuses a schedule that
/// binds an entry's input to a binding the kernel writes.
enum class BindingAccess : uint8_t {
  Read = 1,
  Write = 2,
  ReadWrite = 3,
};

/// Whether `access` includes writing.
inline bool writes(BindingAccess access) {
  return (uint8_t(access) & uint8_t(BindingAccess::Write)) != 0;
}

/// How a run of `total` examples of an entry of batch `batch` is cut into
/// chunks, the one plan the runtime (Runtime.cpp) and the run fuzzer's model
/// (fuzz/run/Model.cpp) both follow: ceil(total / batch) chunks,
/// the last one partial; one chunk when `total` is 0 but an output is
/// unmapped (it is computed all the same); at most one when no mapped
/// argument has a byte (every chunk would compute the same).
struct ChunkPlan {
  uint64_t chunks = 0;
  uint64_t batch = 0;
  uint64_t total = 0;
  bool padsPartialChunks = false;

  /// The examples of chunk `c` (< chunks): `batch`, or fewer in the last.
  uint64_t count(uint64_t c) const {
    uint64_t start = c * batch;
    return std::min(batch, total - std::min(total, start));
  }
  /// n as chunk `c`'s schedule sees it: its count, or `batch` for an entry
  /// that pads partial chunks.
  uint64_t scheduleN(uint64_t c) const {
    return padsPartialChunks ? batch : count(c);
  }
};

/// The chunk plan of `total` examples (batch >= 1).
inline ChunkPlan planChunks(uint64_t total, uint64_t batch,
                            bool padsPartialChunks, bool hasUnmappedOutput,
                            bool hasMappedBytes) {
  ChunkPlan plan;
  plan.batch = batch;
  plan.total = total;
  plan.padsPartialChunks = padsPartialChunks;
  plan.chunks = (total + batch - 1) / batch;
  if (total == 0 && hasUnmappedOutput)
    plan.chunks = 1;
  if (!hasMappedBytes)
    plan.chunks = std::min<uint64_t>(plan.chunks, 1);
  return plan;
}

/// A kernel: what every code object of the artifact exports for it.
struct KernelInfo {
  /// The kernel's C symbol is "vmapc_kernel_" + name.
  std::string name;
  uint32_t numBindings = 0;
  uint32_t numScalars = 0;
  /// Workgroups along x, y, z: a constant c > 0, or -T for ceil(n / T).
  int64_t workgroupCount[3] = {1, 1, 1};
  /// Bytes of per-workgroup scratch the kernel keeps on its stack (CPU).
  uint64_t scratchBytes = 0;
  /// Bytes the kernel may access through each binding (its memref type's
  /// size), so that a binding can be checked against what it points to.
  std::vector<uint64_t> bindingBytes;
  /// What the kernel does through each binding.
  std::vector<BindingAccess> bindingAccess;
};

/// The number of workgroups along one dimension for a chunk of `n`
/// examples, from a `KernelInfo::workgroupCount` entry (a validated one:
/// nonzero, at least -2^31). Never wraps: ceil(n / T) is computed as
/// n / T + (n % T != 0).
inline uint64_t workgroupsFor(int64_t count, uint64_t n) {
  if (count > 0)
    return uint64_t(count);
  uint64_t tile = uint64_t(0) - uint64_t(count);
  return n / tile + (n % tile != 0);
}

/// The workgroups of one dispatch of `kernel` for a chunk of `n` examples:
/// the product of its grid (0 when a dimension has none), or nullopt when
/// that product passes `limit` (or 64 bits): checked, never wrapped. A
/// count of 0 (a grid not chosen yet) gives 0.
std::optional<uint64_t> workgroupsOfDispatch(const KernelInfo &kernel,
                                             uint64_t n, uint64_t limit);

/// A readable listing of `commands` (one line per command, loops indented),
/// with kernel names from `kernels` (a grid count of 0 prints as `?`):
///   dispatch classify_dispatch_0 grid(ceil(n/8), 1, 1) (input 0, input 1,
///   output 0) scalars(n) loop 20 (a dispatch run once per call ends in
///   "once per call")
///     dispatch ...
std::string describeSchedule(const std::vector<Command> &commands,
                             const std::vector<KernelInfo> &kernels);

} // namespace vmapc

#endif // VMAPC_SCHEDULE_H
