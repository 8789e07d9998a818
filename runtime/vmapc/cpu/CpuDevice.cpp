//===- CpuDevice.cpp - the CPU backend ------------------------------------===//

#include "vmapc/cpu/CpuDevice.h"

#include "vmapc/ArtifactDescriptors.h"
#include "vmapc/ArtifactValidator.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/cpu/SharedObject.h"
#include "vmapc/cpu/ThreadPool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <tuple>

namespace vmapc {
namespace cpu {

namespace {

/// The C signature of every kernel (ArtifactFormat.h).
using KernelFn = void (*)(void *const *bindings, const int64_t *scalars,
                          int64_t x, int64_t y, int64_t z);

/// A worker's stack beyond a kernel's scratch: the kernel's own frames
/// (its scratch is its one large frame) and the pool's.
constexpr size_t kFrameReserveBytes = size_t(1) << 20;
/// The workers' stack when the device opens: room for the compiler's
/// default scratch bound (`max-scratch-bytes`, 1 MiB). A load whose kernels
/// need more restarts the workers with bigger stacks (CpuDevice::fitStacks).
constexpr size_t kInitialStackBytes = (size_t(1) << 20) + kFrameReserveBytes;
/// The calling thread runs workgroups of a kernel whose scratch is at most
/// this (the stack of a thread the host made may be small).
constexpr uint64_t kInlineScratchBytes = 256 << 10;

Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}

/// Executables of one device may run on several threads at once; their
/// dispatches share the device's pool, one at a time under `poolMutex`: a
/// lock rather than a queue, since each dispatch already has every thread
/// of the pool (two at once would not run faster) and a lock keeps a run's
/// dispatches in its own order without allocating. A dispatch of one
/// workgroup that the caller runs itself takes no lock.
class CpuDevice final : public backend::Device {
public:
  unsigned threads = 1;
  std::string forcedLevel;

  /// Runs `count` workgroups on the pool (ThreadPool::run), one dispatch of
  /// the device's executables at a time.
  void runOnPool(uint64_t count, ThreadPool::WorkFn fn, void *context,
                 bool callerHelps) {
    std::lock_guard<std::mutex> lock(poolMutex);
    pool->run(count, fn, context, callerHelps);
  }
  /// Makes sure every worker's stack holds `scratchBytes` of kernel scratch
  /// and the frames around it: when the pool's stacks are smaller, starts a
  /// new pool with bigger ones and swaps it in between dispatches (the old
  /// one is kept when the new one cannot start).
  Status fitStacks(uint64_t scratchBytes);
  Status startPool(size_t stackBytes) {
    return ThreadPool::create(threads, stackBytes, &pool);
  }

  Status load(const Artifact &artifact,
              const std::vector<std::string_view> &code, uint64_t arenaBytes,
              std::unique_ptr<backend::Executable> *out) override;
  /// "cpu: 2 threads, x86-64-v4 (AVX-512)": the ISA level its executables
  /// run at (the host's best, or the forced one, then marked ", forced").
  std::string describe() const override {
    std::string level = forcedLevel;
    if (level.empty())
      level = hostSupports("x86-64-v4")   ? "x86-64-v4"
              : hostSupports("x86-64-v3") ? "x86-64-v3"
                                          : "x86-64";
    const char *extension = level == "x86-64-v4"   ? "AVX-512"
                            : level == "x86-64-v3" ? "AVX2 + FMA"
                                                   : "SSE2";
    return "cpu: " + std::to_string(threads) +
           (threads == 1 ? " thread, " : " threads, ") + level + " (" +
           extension + ")" + (forcedLevel.empty() ? "" : ", forced");
  }

private:
  std::mutex poolMutex;
  std::unique_ptr<ThreadPool> pool;
};

Status CpuDevice::fitStacks(uint64_t scratchBytes) {
  // scratchBytes <= kMaxScratchBytes (validated), so this does not wrap.
  size_t need = size_t(scratchBytes) + kFrameReserveBytes;
  {
    std::lock_guard<std::mutex> lock(poolMutex);
    if (pool->stackBytes() >= need)
      return Status();
  }
  // Whole MiBs, so that loads of slightly different needs share a pool.
  need = (need + (size_t(1) << 20) - 1) & ~((size_t(1) << 20) - 1);
  std::unique_ptr<ThreadPool> bigger;
  VMAPC_RETURN_IF_ERROR(ThreadPool::create(threads, need, &bigger));
  {
    std::lock_guard<std::mutex> lock(poolMutex);
    if (pool->stackBytes() < bigger->stackBytes())
      std::swap(pool, bigger);
  }
  return Status(); // `bigger` (the old pool, or the new one unused) joins
}

class CpuExecutable final : public backend::Executable {
public:
  CpuDevice *device = nullptr;
  std::unique_ptr<SharedObject> code;
  std::string level;
  std::vector<KernelFn> kernels;
  std::vector<uint64_t> scratch;
  std::vector<size_t> numBindingsOf;
  HostBuffer arenaBuffer;

  backend::Address arena() const override {
    return backend::Address(arenaBuffer.data());
  }
  bool bindsHostMemory() const override { return true; }
  Status beginRun(const RunOptions &options) override {
    if (options.deviceArrays || options.stream)
      return invalid("the cpu device runs on host arrays: RunOptions "
                     "deviceArrays and stream are for a CUDA device");
    return Status();
  }
  Status upload(backend::Address dst, uint64_t dstPitch, const void *src,
                uint64_t srcPitch, uint64_t rowBytes, uint64_t rows) override {
    copyRows(reinterpret_cast<unsigned char *>(dst), dstPitch,
             static_cast<const unsigned char *>(src), srcPitch, rowBytes, rows);
    return Status();
  }
  Status download(void *dst, uint64_t dstPitch, backend::Address src,
                  uint64_t srcPitch, uint64_t rowBytes,
                  uint64_t rows) override {
    copyRows(static_cast<unsigned char *>(dst), dstPitch,
             reinterpret_cast<const unsigned char *>(src), srcPitch, rowBytes,
             rows);
    return Status();
  }
  Status copyOnDevice(backend::Address, uint64_t, backend::Address, uint64_t,
                      uint64_t, uint64_t) override {
    return Status::error(StatusCode::kInternal,
                         "the cpu device has no device arrays to copy");
  }
  Status dispatch(uint32_t kernel, const uint64_t grid[3],
                  const backend::Address *bindings,
                  const int64_t *scalars) override;
  bool batchesChunks() const override { return true; }
  Status dispatchChunks(uint32_t kernel, const uint64_t grid[3],
                        uint64_t chunks, const backend::Address *bindings,
                        const uint64_t *chunkStrides,
                        const int64_t *scalars) override;
  /// Chunks that dispatchChunks runs in one pool job, at most.
  static constexpr uint64_t kChunksPerJob = 64;
  /// The binding tables of one dispatchChunks job: kChunksPerJob rows of
  /// the largest kernel's bindings, made at load.
  std::vector<void *> chunkBindings;
  size_t maxBindings = 0;
  Status endRun(Status status) override { return status; }
  const std::string &codeLevel() const override { return level; }

private:
  static void copyRows(unsigned char *dst, uint64_t dstPitch,
                       const unsigned char *src, uint64_t srcPitch,
                       uint64_t rowBytes, uint64_t rows) {
    if (dstPitch == rowBytes && srcPitch == rowBytes) {
      std::memcpy(dst, src, rowBytes * rows);
      return;
    }
    for (uint64_t r = 0; r < rows; ++r)
      std::memcpy(dst + r * dstPitch, src + r * srcPitch, rowBytes);
  }
};

/// Runs workgroup `index` (x fastest, then y, then z) of a grid gridX wide
/// and gridY high.
static void runWorkgroup(KernelFn fn, void *const *bindings,
                         const int64_t *scalars, uint64_t gridX, uint64_t gridY,
                         uint64_t index) {
  uint64_t x = index % gridX;
  uint64_t y = (index / gridX) % gridY;
  uint64_t z = index / (gridX * gridY);
  fn(bindings, scalars, int64_t(x), int64_t(y), int64_t(z));
}

/// The workgroups of `grid` in `*total`; an error past
/// kMaxWorkgroupsPerDispatch (the schedule validator bounded the product at
/// n = B, and grids grow with n, which is at most B; checked all the same).
static Status countWorkgroups(uint32_t kernel, const uint64_t grid[3],
                              uint64_t *total) {
  if (__builtin_mul_overflow(grid[0], grid[1], total) ||
      __builtin_mul_overflow(*total, grid[2], total) ||
      *total > kMaxWorkgroupsPerDispatch)
    return Status::error(StatusCode::kInternal,
                         "dispatch of kernel " + std::to_string(kernel) +
                             ": more workgroups than the limit of " +
                             std::to_string(kMaxWorkgroupsPerDispatch));
  return Status();
}

/// What the workers need to run one dispatch.
struct DispatchContext {
  KernelFn fn;
  void *const *bindings;
  const int64_t *scalars;
  uint64_t gridX, gridY;

  static void run(void *self, uint64_t index) {
    auto *c = static_cast<DispatchContext *>(self);
    runWorkgroup(c->fn, c->bindings, c->scalars, c->gridX, c->gridY, index);
  }
};

Status CpuExecutable::dispatch(uint32_t kernel, const uint64_t grid[3],
                               const backend::Address *bindings,
                               const int64_t *scalars) {
  uint64_t total = 0;
  VMAPC_RETURN_IF_ERROR(countWorkgroups(kernel, grid, &total));
  if (total == 0)
    return Status();
  static_assert(sizeof(backend::Address) == sizeof(void *),
                "a CPU binding is a pointer");
  DispatchContext context{kernels[kernel],
                          reinterpret_cast<void *const *>(bindings), scalars,
                          grid[0], grid[1]};
  // The caller's stack holds small scratch only.
  bool callerHelps = scratch[kernel] <= kInlineScratchBytes;
  if (total == 1 && callerHelps) {
    DispatchContext::run(&context, 0);
    return Status();
  }
  device->runOnPool(total, &DispatchContext::run, &context, callerHelps);
  return Status();
}

/// What the workers need to run several chunks' dispatches of one kernel:
/// workgroup `index` is chunk index / perChunk's workgroup index % perChunk.
struct ChunksContext {
  KernelFn fn;
  void *const *bindings; // A row of numBindings per chunk.
  size_t numBindings;
  const int64_t *scalars;
  uint64_t gridX, gridY, perChunk;

  static void run(void *self, uint64_t index) {
    auto *c = static_cast<ChunksContext *>(self);
    uint64_t chunk = index / c->perChunk;
    runWorkgroup(c->fn, c->bindings + chunk * c->numBindings, c->scalars,
                 c->gridX, c->gridY, index % c->perChunk);
  }
};

Status CpuExecutable::dispatchChunks(uint32_t kernel, const uint64_t grid[3],
                                     uint64_t chunks,
                                     const backend::Address *bindings,
                                     const uint64_t *chunkStrides,
                                     const int64_t *scalars) {
  uint64_t perChunk = 0;
  VMAPC_RETURN_IF_ERROR(countWorkgroups(kernel, grid, &perChunk));
  if (perChunk == 0)
    return Status();
  size_t numBindings = numBindingsOf[kernel];
  bool callerHelps = scratch[kernel] <= kInlineScratchBytes;
  for (uint64_t first = 0, group = 0; first < chunks; first += group) {
    // At most kMaxWorkgroupsPerDispatch workgroups in a job, as dispatch.
    group = std::min(
        {kChunksPerJob, chunks - first, kMaxWorkgroupsPerDispatch / perChunk});
    for (uint64_t c = 0; c < group; ++c)
      for (size_t j = 0; j < numBindings; ++j)
        chunkBindings[c * numBindings + j] = reinterpret_cast<void *>(
            bindings[j] + (first + c) * chunkStrides[j]);
    ChunksContext context{kernels[kernel], chunkBindings.data(),
                          numBindings,     scalars,
                          grid[0],         grid[1],
                          perChunk};
    device->runOnPool(group * perChunk, &ChunksContext::run, &context,
                      callerHelps);
  }
  return Status();
}

Status CpuDevice::load(const Artifact &artifact,
                       const std::vector<std::string_view> &code,
                       uint64_t arenaBytes,
                       std::unique_ptr<backend::Executable> *out) {
  size_t index = 0;
  VMAPC_RETURN_IF_ERROR(chooseCodeObject(artifact, forcedLevel, &index));
  auto exe = std::make_unique<CpuExecutable>();
  exe->device = this;
  exe->level = artifact.codeObjects[index].level;
  VMAPC_RETURN_IF_ERROR(
      SharedObject::load(code[index].data(), code[index].size(), &exe->code));
  {
    const void *level = nullptr;
    size_t bytes = 0;
    VMAPC_RETURN_IF_ERROR(
        exe->code->lookupData(kCodeLevelSymbol, &level, &bytes));
    std::string_view text(static_cast<const char *>(level), bytes);
    text = text.substr(0, text.find('\0'));
    if (text != exe->level)
      return Status::error(StatusCode::kDataLoss,
                           "code object #" + std::to_string(index) +
                               ": compiled for ISA level '" +
                               std::string(text) + "', the manifest says '" +
                               exe->level + "'");
  }
  uint64_t maxScratch = 0;
  // The kernels as this object has them: what they access may be less
  // than the manifest says of every object.
  std::vector<KernelInfo> asCompiled = artifact.kernels;
  for (size_t k = 0; k < artifact.kernels.size(); ++k) {
    const KernelInfo &kernel = artifact.kernels[k];
    maxScratch = std::max(maxScratch, kernel.scratchBytes);
    const void *fn = nullptr, *descriptor = nullptr;
    size_t bytes = 0;
    std::string symbol = "vmapc_kernel_" + kernel.name;
    VMAPC_RETURN_IF_ERROR(exe->code->lookup(symbol, &fn));
    VMAPC_RETURN_IF_ERROR(
        exe->code->lookupData(symbol + "_descriptor", &descriptor, &bytes));
    VMAPC_RETURN_IF_ERROR(checkKernelDescriptor(kernel, descriptor, bytes,
                                                &asCompiled[k].bindingAccess));
    exe->kernels.push_back(reinterpret_cast<KernelFn>(const_cast<void *>(fn)));
    exe->scratch.push_back(kernel.scratchBytes);
    exe->numBindingsOf.push_back(kernel.numBindings);
    exe->maxBindings = std::max<size_t>(exe->maxBindings, kernel.numBindings);
  }
  // What the code was compiled for, against the manifest: each kernel
  // (above), then each entry's schedule over them.
  for (const EntryInfo &entry : artifact.entries) {
    const void *descriptor = nullptr;
    size_t bytes = 0;
    std::string where = "entry '" + entry.name + "': ";
    VMAPC_RETURN_IF_ERROR(
        exe->code
            ->lookupData(entryDescriptorSymbol(entry.name), &descriptor, &bytes)
            .withPrefix(where));
    VMAPC_RETURN_IF_ERROR(
        checkEntryDescriptor(entry, artifact.kernels, descriptor, bytes)
            .withPrefix(where));
    if (Status s = validateAccess(entry, asCompiled); !s.ok())
      return Status::error(StatusCode::kDataLoss,
                           "the code (" + exe->level + "): " + s.message());
  }
  exe->chunkBindings.assign(CpuExecutable::kChunksPerJob * exe->maxBindings,
                            nullptr);
  VMAPC_RETURN_IF_ERROR(fitStacks(maxScratch));
  VMAPC_RETURN_IF_ERROR(HostBuffer::allocate(std::max<uint64_t>(arenaBytes, 1),
                                             arenaAlignmentOf(artifact),
                                             "the arena", &exe->arenaBuffer));
  *out = std::move(exe);
  return Status();
}

/// Parses an unsigned decimal option value in [1, max].
bool parseCount(std::string_view text, unsigned max, unsigned *out) {
  if (text.empty() || text.size() > 9)
    return false;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + unsigned(c - '0');
  }
  if (value < 1 || value > max)
    return false;
  *out = value;
  return true;
}

} // namespace

Status chooseCodeObject(const Artifact &artifact, std::string_view forcedLevel,
                        size_t *index, bool (*supports)(const std::string &)) {
  auto runs = [&](const CodeObject &o) {
    return o.kind == CodeKind::CpuElf &&
           checkCpuFeatures(o.cpuFeatures, supports).ok();
  };
  auto rank = [](const std::string &level) {
    for (size_t i = 0; i < std::size(kCpuIsaLevels); ++i)
      if (level == kCpuIsaLevels[i])
        return int(i);
    return -1;
  };
  // CUDA objects are another device's.
  int firstCpu = -1;
  for (size_t i = 0; i < artifact.codeObjects.size() && firstCpu < 0; ++i)
    if (artifact.codeObjects[i].kind == CodeKind::CpuElf)
      firstCpu = int(i);
  if (firstCpu < 0)
    return Status::error(StatusCode::kFailedPrecondition,
                         "the artifact has no code for the CPU (it was "
                         "compiled with --target=cuda)");
  int best = -1;
  for (size_t i = 0; i < artifact.codeObjects.size(); ++i) {
    const CodeObject &o = artifact.codeObjects[i];
    if (o.kind != CodeKind::CpuElf)
      continue;
    if (!forcedLevel.empty()) {
      if (o.level != forcedLevel)
        continue;
      VMAPC_RETURN_IF_ERROR(checkCpuFeatures(o.cpuFeatures, supports)
                                .withPrefix("ISA level " + o.level + ": "));
      *index = i;
      return Status();
    }
    if (runs(o) &&
        (best < 0 || rank(o.level) > rank(artifact.codeObjects[best].level)))
      best = int(i);
  }
  if (!forcedLevel.empty())
    return Status::error(StatusCode::kNotFound,
                         "the artifact has no code for ISA level '" +
                             std::string(forcedLevel) + "'");
  if (best < 0) {
    Status why =
        checkCpuFeatures(artifact.codeObjects[firstCpu].cpuFeatures, supports);
    if (why.ok())
      why = Status::error(StatusCode::kFailedPrecondition,
                          "no code object of the artifact runs here");
    return why.withPrefix("this CPU can run none of the artifact's code: ");
  }
  *index = size_t(best);
  return Status();
}

Status openCpuDevice(std::string_view options,
                     std::shared_ptr<backend::Device> *out) {
  unsigned threads = 0;
  std::string level;
  bool hasThreads = false, hasIsa = false;
  auto apply = [&](std::string_view key, std::string_view value,
                   std::string_view option) -> Status {
    if (key == "threads") {
      hasThreads = true;
      if (!parseCount(value, 1024, &threads))
        return invalid("cpu device: threads must be an integer in [1, 1024], "
                       "got '" +
                       std::string(value) + "'");
    } else if (key == "isa") {
      hasIsa = true;
      if (std::find_if(std::begin(kCpuIsaLevels), std::end(kCpuIsaLevels),
                       [&](const char *l) { return value == l; }) ==
          std::end(kCpuIsaLevels))
        return invalid("cpu device: isa must be x86-64, x86-64-v3 or "
                       "x86-64-v4, got '" +
                       std::string(value) + "'");
      level = value;
    } else {
      return invalid("cpu device: unknown option '" + std::string(option) +
                     "' (options: threads=K, isa=LEVEL)");
    }
    return Status();
  };
  std::string_view rest = options;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view option = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
    size_t eq = option.find('=');
    std::string_view value =
        eq == std::string_view::npos ? "" : option.substr(eq + 1);
    VMAPC_RETURN_IF_ERROR(apply(option.substr(0, eq), value, option));
  }
  // The environment gives the options the string does not; its errors name
  // the variable. A value is taken whole (a comma in it is no separator).
  for (auto [name, key, given] :
       {std::tuple{"VMAPC_CPU_THREADS", "threads", hasThreads},
        std::tuple{"VMAPC_CPU_ISA", "isa", hasIsa}}) {
    const char *value = std::getenv(name);
    if (given || !value || !*value)
      continue;
    VMAPC_RETURN_IF_ERROR(
        apply(key, value, "").withPrefix(std::string(name) + ": "));
  }
  auto device = std::make_shared<CpuDevice>();
  device->forcedLevel = level;
  device->threads = threads ? threads : hardwareThreads();
  VMAPC_RETURN_IF_ERROR(device->startPool(kInitialStackBytes));
  *out = std::move(device);
  return Status();
}

} // namespace cpu

} // namespace vmapc
