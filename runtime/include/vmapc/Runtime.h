//===- Runtime.h - The vmapc embeddable runtime (C++ API) -------*- C++ -*-===//
//
// Load a compiled `.vmapc` artifact and run its entries on any number N >= 0
// of examples, with no heap allocation per call.
//
//   vmapc::Device cpu;
//   if (auto s = vmapc::Device::open("cpu", &cpu); !s.ok()) ...
//   std::unique_ptr<vmapc::Executable> exe;
//   if (auto s = vmapc::Executable::loadFile(cpu, "model.vmapc", &exe); ...)
//   const vmapc::Entry *classify;
//   if (auto s = exe->findEntry("classify", &classify); !s.ok()) ...
//   vmapc::HostArray q{queries, vmapc::DType::F32, {n, 64}};
//   vmapc::HostArray refs{refData, vmapc::DType::F32, {1000, 64}};
//   vmapc::MutableHostArray out{labels, vmapc::DType::I32, {n}};
//   vmapc::Status s = exe->run(*classify, {q, refs}, {out});
//
// Shapes. Each argument's per-example shape and mapped axis are in the
// manifest (`EntryInfo`, see ArtifactFormat.h). A mapped argument is passed
// as a dense C-order array of its batched shape: the per-example shape with N
// inserted at the mapped axis. An unmapped input (axis none) is passed with
// its per-example shape and is shared by all examples; an unmapped output is
// computed once, with its per-example shape. N is the size of the mapped axis
// of the mapped inputs (they must agree); with no mapped input, it comes from
// the mapped outputs (which must agree); with neither, N = 0.
//
// Dtypes and units. f32 (4 bytes), i32 (4 bytes), bool (1 byte, 0 or 1).
// All sizes in `Stats` and `EntryInfo` are bytes.
//
// Execution. A run makes ceil(N / B) launches of the entry's code (B = the
// entry's batch size). A chunk whose mapped inputs are outermost and full is
// passed in place; otherwise it is gathered into the entry's staging slots in
// the arena (padding lanes repeat the last real example) and outputs are
// scattered back from theirs (padding discarded). A schedule computes the
// chunk's n examples only, unless the entry pads partial chunks. With N = 0
// nothing runs unless the entry has an unmapped output; then one walk of the
// schedule with n = 0 computes it (the mapped staging slots are not read,
// except by an entry that pads, which sees whatever they hold). An empty
// argument (a 0 dim) is never copied; when every mapped argument is empty,
// one walk of the schedule computes everything whatever N is.
//
// Donation. An output with `ArgInfo::donatedFrom` = k (the export's
// `donate=`, JAX's donate_argnums) takes the bytes of input k, which has
// its dtype, shape and mapped axis: the code computes it in input k's
// buffer. Pass one buffer as both input k and that output (the same
// pointer and shape): after the call it holds the output, and no memory is
// needed for the output besides. Two buffers that do not overlap work too:
// the runtime copies each chunk of the input into the output first and
// computes there, leaving the input as it was. A donated input that
// overlaps any other argument, or its output partly, is kInvalidArgument.
//
// Devices. "cpu" runs the artifact's x86-64 code on a thread pool, binding
// the caller's host arrays in place where it can. "cuda:N" runs its CUDA code
// on GPU N through the CUDA driver (loaded at run time; see Device::open):
// host arrays are copied through pinned host memory into the entry's staging
// slots in the arena (device memory) and back; with RunOptions::deviceArrays
// the arrays are the caller's device memory, bound in place where a chunk is
// contiguous and copied on the device through the staging slots otherwise.
//
// Errors. Every call returns a `Status` with a code (Status.h); nothing
// throws. Wrong counts, dtypes, ranks or dimensions are kInvalidArgument
// errors naming the argument (kOutOfRange past a limit: more than kMaxRank
// dims, 2^62 bytes or more), and nothing is written to the outputs then. A
// run never writes outside the output arrays as described by their shapes.
// Loading: kDataLoss for bytes that are not a valid artifact (or whose
// manifest disagrees with its code), kUnimplemented for another format
// version or target, kFailedPrecondition for a CPU feature the host lacks,
// kResourceExhausted for an arena larger than the process may use
// (hostMemoryLimitBytes) or whose allocation fails.
//
// Memory and ownership. Loading allocates the arena once (256-byte aligned,
// the largest arena of all entries, at least 1 byte; posix_memalign, never
// operator new, on the CPU; one cuMemAlloc, plus one cuMemHostAlloc of
// pinned staging, on CUDA) plus bookkeeping; `run` never allocates, on the
// host or the device, on success. The caller
// owns every array; the runtime keeps no pointer to them after `run` returns.
// Inputs are only read. Outputs must not overlap inputs or each other. `Entry`
// pointers stay valid as long as their Executable.
//
// Thread safety. `Device::open`, `loadBytes` and `loadFile` may be called
// from any thread, and a Device may be shared by executables running on
// several threads at once: on "cpu" their dispatches take the device's
// thread pool one at a time (a lock, not a queue: each dispatch already
// uses every thread of the pool), which changes no result; a dispatch of
// one small workgroup runs on the calling thread without it. One Executable
// has one arena, so it runs one call at a time: a call made while another
// runs on another thread returns kUnavailable ("this executable is running
// a call on another thread") and touches nothing; use one Executable per
// thread, or a lock around its calls. The const accessors may be called
// concurrently with each other, not with `run` (`stats` changes). A CUDA
// executable may be run from any thread: each call makes the device's
// primary context current and restores the caller's before it returns.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_RUNTIME_H
#define VMAPC_RUNTIME_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vmapc {

/// A shape of at most kMaxRank dims, stored inline (no heap). Constructing
/// one with more dims records "too large" and `run` then reports it.
class Shape {
public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) {
    assign(dims.begin(), dims.size());
  }
  Shape(const int64_t *dims, size_t rank) { assign(dims, rank); }
  Shape(const std::vector<int64_t> &dims) { assign(dims.data(), dims.size()); }

  size_t rank() const { return rankValue; }
  bool tooLarge() const { return overflow; }
  int64_t operator[](size_t i) const { return dims[i]; }
  const int64_t *data() const { return dims.data(); }
  const int64_t *begin() const { return dims.data(); }
  const int64_t *end() const { return dims.data() + rankValue; }

private:
  void assign(const int64_t *d, size_t rank) {
    overflow = rank > kMaxRank;
    rankValue = overflow ? 0 : rank;
    for (size_t i = 0; i < rankValue; ++i)
      dims[i] = d[i];
  }
  std::array<int64_t, kMaxRank> dims{};
  size_t rankValue = 0;
  bool overflow = false;
};

/// A read-only view of a caller-owned dense C-order host array.
struct HostArray {
  const void *data = nullptr;
  DType dtype = DType::F32;
  Shape shape;
};

/// A writable view of a caller-owned dense C-order host array.
struct MutableHostArray {
  void *data = nullptr;
  DType dtype = DType::F32;
  Shape shape;
};

/// A non-owning view of `size` contiguous Ts (like std::span). Built from a
/// braced list (valid for the full expression), a std::vector, a std::array,
/// or a pointer and a count.
template <typename T> class Span {
public:
  Span() = default;
  Span(const T *data, size_t size) : ptr(data), count(size) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // The list's array lives until the end of the full expression, which is
  // as long as a call like `run(e, {a, b}, {y})` needs it.
  Span(std::initializer_list<T> list) : ptr(list.begin()), count(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  Span(const std::vector<T> &v) : ptr(v.data()), count(v.size()) {}
  template <size_t N>
  Span(const std::array<T, N> &a) : ptr(a.data()), count(N) {}
  const T *begin() const { return ptr; }
  const T *end() const { return ptr + count; }
  size_t size() const { return count; }
  const T &operator[](size_t i) const { return ptr[i]; }

private:
  const T *ptr = nullptr;
  size_t count = 0;
};

/// Counters of one Executable, since it was loaded.
struct Stats {
  uint64_t arenaBytes = 0;  ///< Bytes of the arena allocation.
  uint64_t allocations = 0; ///< Arena allocations made (1 after a load).
  uint64_t calls = 0;       ///< Successful `run` calls.
  /// Dispatches of the schedule walked (kernel launches; one whose grid
  /// has no workgroup for the chunk counts too, though nothing runs).
  uint64_t launches = 0;
  uint64_t examples = 0; ///< Sum of N over successful calls.
  /// Device memory and pinned host memory allocations (cuMemAlloc,
  /// cuMemHostAlloc): 2 after a load on CUDA (the arena, the staging), never
  /// more in later calls; 0 on the CPU.
  uint64_t deviceAllocations = 0;
  /// Bytes copied from host memory to the device and back (0 on the CPU,
  /// and for device arrays).
  uint64_t bytesToDevice = 0;
  uint64_t bytesFromDevice = 0;
  /// Chunks whose dispatch ran in one job with other chunks', without a
  /// barrier between them (the CPU, where a call's full chunks bound in
  /// place are independent; docs/runtime.md, "Chunks without barriers").
  /// Counted in `launches` too.
  uint64_t batchedChunks = 0;
};

/// How `Executable::run` takes its arrays. The defaults are host arrays on
/// the executable's own stream.
struct RunOptions {
  /// Every input's and output's `data` is a device address on the
  /// executable's device (a CUdeviceptr), valid for the bytes its shape
  /// says. A chunk that is contiguous there (a full chunk of an argument
  /// mapped at axis 0, or an unmapped argument) is bound in place; any
  /// other is copied through its staging slot on the device. CUDA only.
  bool deviceArrays = false;
  /// A CUstream of the device's primary context (as the CUDA runtime,
  /// PyTorch and JAX make them) to run on instead of the executable's own
  /// (made at load). With host arrays, `run` waits for its work on it
  /// before returning; with device arrays, it returns once everything is
  /// enqueued there, and the caller synchronizes the stream before reading
  /// the outputs. A later run on another stream waits for it (an event, no
  /// host wait). CUDA only.
  void *stream = nullptr;
};

namespace backend {
class Device;
} // namespace backend

/// Where code runs. Cheap to copy: copies share the device (its threads),
/// which lives as long as any copy or any Executable loaded on it.
class Device {
public:
  /// Opens `name`: "cpu", or "cpu:OPTIONS" with OPTIONS a comma-separated
  /// list of `threads=K` (worker threads, 1 to 1024; default: every
  /// hardware thread this process may run on) and `isa=LEVEL` (run the
  /// artifact's code for ISA level x86-64, x86-64-v3 or x86-64-v4 rather
  /// than the best the CPU supports). The environment variables
  /// VMAPC_CPU_THREADS and VMAPC_CPU_ISA set the same options when the
  /// string does not. The worker threads start here, once.
  ///
  /// Or "cuda" (= "cuda:0") or "cuda:N": GPU N as the CUDA driver numbers
  /// them. The driver is loaded here with dlopen("libcuda.so.1"), or the
  /// library the environment variable VMAPC_CUDA_DRIVER names; nothing
  /// links CUDA, so a host program starts without one. Opening retains the
  /// GPU's primary context (released with the last copy of the Device).
  ///
  /// Errors: kNotFound "unknown device 'NAME' (available: cpu, cuda)",
  /// kInvalidArgument for a bad option, kResourceExhausted when threads
  /// cannot start; for CUDA, kUnavailable "no CUDA device: libcuda.so.1
  /// could not be loaded (...)" or "no CUDA device: cuInit failed:
  /// CUDA_ERROR_NO_DEVICE (...)", kNotFound "no CUDA device: cuda:N does not
  /// exist (M devices)", kUnimplemented "no CUDA device: this runtime was
  /// built without CUDA support ..." (built without cuda.h).
  static Status open(std::string_view name, Device *out);

  const std::string &name() const { return deviceName; }
  /// "cpu: 2 threads", "cuda:0: NVIDIA H200 (sm_90), CUDA driver 13.0"
  /// (what was opened).
  std::string describe() const;

private:
  friend class Executable;
  std::string deviceName;
  std::shared_ptr<backend::Device> impl;
};

class Executable;

/// One entry point of a loaded Executable. Owned by the Executable.
class Entry {
public:
  const EntryInfo &info() const { return *entryInfo; }
  const std::string &name() const { return entryInfo->name; }
  size_t numInputs() const { return entryInfo->inputs.size(); }
  size_t numOutputs() const { return entryInfo->outputs.size(); }
  uint32_t batchSize() const { return entryInfo->batchSize; }

private:
  friend class Executable;
  Entry() = default;
  const EntryInfo *entryInfo = nullptr;
  size_t index = 0;
};

/// A loaded artifact: its code, its manifest and its arena.
class Executable {
public:
  /// Parses, validates and loads `size` bytes of a .vmapc artifact (the
  /// caller may free them afterwards). Checks the CPU features the code
  /// needs, loads the code and resolves every entry's symbol, and allocates
  /// the arena.
  static Status loadBytes(const Device &device, const void *data, size_t size,
                          std::unique_ptr<Executable> *out);
  /// Reads the file at `path` (readArtifactFile: header first, never past
  /// the size it declares) and calls loadBytes; errors are prefixed with the
  /// path.
  static Status loadFile(const Device &device, const std::string &path,
                         std::unique_ptr<Executable> *out);

  ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const Device &device() const;
  /// The manifest. Its `code` is empty: the code is loaded, not kept.
  const Artifact &artifact() const;
  size_t numEntries() const;
  const Entry &entry(size_t index) const;

  /// Finds an entry by name; else kNotFound "unknown entry 'x'; entries are:
  /// a, b".
  Status findEntry(std::string_view name, const Entry **out) const;

  /// Runs `entry` on N examples (see the file comment). `inputs` and
  /// `outputs` are in manifest order. Errors besides the arrays' (file
  /// comment): kInvalidArgument for `options` the device does not take
  /// (the CPU takes no device arrays or stream); from CUDA, a status whose
  /// message carries the CUDA error's name ("cuLaunchKernel of kernel 'k':
  /// CUDA_ERROR_LAUNCH_FAILED (...)") and whose code follows it
  /// (kResourceExhausted for out of memory, kUnavailable for a device that
  /// is gone, kInternal for an error that leaves the context unusable, ...;
  /// docs/runtime.md lists them).
  Status run(const Entry &entry, Span<HostArray> inputs,
             Span<MutableHostArray> outputs,
             const RunOptions &options = RunOptions());
  /// Same, by entry name.
  Status run(std::string_view entryName, Span<HostArray> inputs,
             Span<MutableHostArray> outputs,
             const RunOptions &options = RunOptions());

  Stats stats() const;
  /// The code in use: the ISA level of the CPU code object ("x86-64-v4"),
  /// or the SM architecture of the CUDA code object and how it was loaded
  /// ("sm_90 (cubin)", or "sm_90 (PTX JIT)" when the driver refused the
  /// cubin and compiled the PTX).
  const std::string &codeLevel() const;

private:
  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace vmapc

#endif // VMAPC_RUNTIME_H
