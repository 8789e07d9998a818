//===- Compile.cpp - from arr IR to a .vmapc artifact ---------------------===//

#include "codegen/Compile.h"
#include "dialect/ArrDialect.h"

#include "codegen/CpuObject.h"
#include "codegen/CudaObject.h"
#include "codegen/SplitKernels.h"
#include "dialect/Limits.h"
#include "dialect/SchedDialect.h"
#include "passes/Codegen/TileSizes.h"
#include "passes/Dispatch/ReadSchedule.h"
#include "passes/GpuPipeline.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <atomic>

using namespace mlir;
using namespace vmapc;

/// Runs `pm` on `module`, its passes timed under `timing` (nothing when the
/// scope is empty). Unless `verifyEachPass`, the IR is verified once, at the
/// end, instead of after every pass as MLIR's default does.
static LogicalResult runPipeline(PassManager &pm, ModuleOp module,
                                 bool verifyEachPass, TimingScope &timing) {
  pm.enableVerifier(verifyEachPass);
  pm.enableTiming(timing);
  if (failed(pm.run(module)))
    return failure();
  if (!verifyEachPass && failed(verify(module)))
    return module.emitError(
        "internal error: the IR a pipeline made does not verify (compile "
        "with --verify-each to name the pass)");
  return success();
}

LogicalResult vmapc::lowerToPlannedBuffers(ModuleOp module, bool cuda,
                                           int64_t arenaAlignment,
                                           bool bufferReuse,
                                           bool verifyEachPass,
                                           TimingScope timing) {
  PassManager pm(module.getContext());
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm, /*plan=*/true, /*stageAll=*/cuda,
                            cuda ? kCudaMaxFusedBytesPerExample : 0,
                            arenaAlignment, bufferReuse);
  return runPipeline(pm, module, verifyEachPass, timing);
}

/// The bitwidth of the CUDA kernels' index arithmetic: 32 when every byte
/// offset a kernel can compute fits in an int32, else 64. A kernel indexes
/// its bindings (each at most its `bindingBytes`) and, through them, the
/// arena (every host array of a CUDA artifact is staged there; a device
/// array bound in place is a chunk of the size of its staging slot), so
/// the largest of those sizes decides.
static unsigned cudaIndexBitwidth(const Artifact &artifact) {
  uint64_t most = 0;
  for (const EntryInfo &entry : artifact.entries)
    most = std::max(most, entry.arenaBytes);
  for (const KernelInfo &kernel : artifact.kernels)
    for (uint64_t bytes : kernel.bindingBytes)
      most = std::max(most, bytes);
  return most < (uint64_t(1) << 31) ? 32 : 64;
}

LogicalResult vmapc::readManifest(ModuleOp module,
                                  std::vector<EntryInfo> &entries,
                                  const std::vector<KernelInfo> &kernels) {
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!vmapc::arr::isEntry(fn))
      continue;
    FailureOr<EntryInfo> entry = readEntry(fn, kernels);
    if (failed(entry))
      return failure();
    // The artifact's rules for one entry, reported at the export.
    if (Status status = validateEntry(*entry, kernels); !status.ok())
      return fn.emitError() << status.message();
    entries.push_back(std::move(*entry));
  }
  if (entries.empty())
    return module.emitError("the program exports no entry; add `export NAME "
                            "= vmap(f, in_axes=..., batch=B);`");
  return success();
}

/// Adds what one code object's kernel does through each binding to what
/// the others' do (each object's lowering reads it off its own IR).
static void addAccess(KernelInfo &kernel, ArrayRef<BindingAccess> access) {
  kernel.bindingAccess.resize(access.size(), BindingAccess(0));
  for (auto [known, now] : llvm::zip(kernel.bindingAccess, access))
    known = BindingAccess(uint8_t(known) | uint8_t(now));
}

/// What a CPU code object of ISA `level` needs from the CPU, by GCC's
/// __builtin_cpu_supports names.
static std::vector<std::string> featuresOf(StringRef level) {
  if (level == "x86-64")
    return {"sse2"};
  return {level.str()};
}

/// One ISA level's code object, compiled from a clone of the planned
/// module, and what its lowering read off the kernels.
struct CpuLevel {
  std::string level;
  OwningOpRef<ModuleOp> module;
  /// Whether the module is split into parts before its MLIR half, each
  /// part then lowering its own kernels, or after it, the parts going
  /// through LLVM only (splitCpuLevel).
  bool splitBeforeLowering = false;
  /// The kernels' names in the planned module's order (read when split
  /// before lowering), and what each kernel's lowering read off it, in that
  /// order.
  std::vector<std::string> kernelNames;
  std::vector<KernelInfo> tiled;
  /// The module's parts (splitKernels; none: the module is compiled
  /// whole); of each part, what its lowering read off its kernels (when
  /// split before lowering) and its object file (empty until compiled); how
  /// many parts are still being compiled.
  SmallVector<OwningOpRef<ModuleOp>> parts;
  std::vector<std::vector<KernelInfo>> partKernels;
  std::vector<std::string> objects;
  std::atomic<size_t> pending{0};
  CodeObject object;
  bool ok = false;
};

/// The module of part `index` of a level (the level's module itself when
/// it was not split).
static ModuleOp partOf(CpuLevel &cpu, size_t index) {
  return cpu.parts.empty() ? *cpu.module : *cpu.parts[index];
}

/// A kernel before lowering: a function marked `sched.kernel`.
static bool isScheduledKernel(Operation *op) {
  auto fn = dyn_cast<func::FuncOp>(op);
  return fn && sched::isKernel(fn);
}

/// A kernel in the LLVM dialect: its exported wrapper `vmapc_kernel_NAME`,
/// a public function with a body.
static bool isKernelWrapper(Operation *op) {
  auto fn = dyn_cast<LLVM::LLVMFuncOp>(op);
  return fn && !fn.isExternal() && fn.isPublic() &&
         fn.getLinkage() == LLVM::Linkage::External;
}

/// Splits the level's module into parts of whole kernels (splitKernels).
/// Before lowering, once the entries' descriptors are read and their
/// schedules erased (the kernels share nothing from there on): a part per
/// kernel, up to kMaxKernelParts. After lowering (the MLIR half of every
/// kernel done here): parts of at least kMinKernelPartOps LLVM-dialect ops.
/// The passes are timed under the level's name in `timing`.
static LogicalResult splitCpuLevel(CpuLevel &cpu, int64_t maxWorkgroupScratch,
                                   bool verifyEachPass, TimingScope &timing) {
  MLIRContext *context = cpu.module->getContext();
  TimingScope levelTimer = timing.nest(cpu.level);
  if (cpu.splitBeforeLowering) {
    PassManager entries(context);
    buildCpuEntriesPipeline(entries);
    if (failed(runPipeline(entries, *cpu.module, verifyEachPass, levelTimer)))
      return failure();
    for (const KernelInfo &kernel : readKernels(*cpu.module))
      cpu.kernelNames.push_back(kernel.name);
    cpu.parts = splitKernels(*cpu.module, isScheduledKernel, kMaxKernelParts,
                             /*minPartOps=*/1);
  } else {
    PassManager kernels(context);
    buildCpuKernelPipeline(kernels, cpu.level, maxWorkgroupScratch);
    if (failed(runPipeline(kernels, *cpu.module, verifyEachPass, levelTimer)))
      return failure();
    cpu.tiled = readKernels(*cpu.module);
    PassManager llvm(context);
    buildKernelsToLLVMPipeline(llvm, cpu.level);
    if (failed(runPipeline(llvm, *cpu.module, verifyEachPass, levelTimer)))
      return failure();
    cpu.parts = splitKernels(*cpu.module, isKernelWrapper);
  }
  size_t count = std::max<size_t>(cpu.parts.size(), 1);
  cpu.partKernels.resize(count);
  cpu.objects.resize(count);
  cpu.pending = count;
  return success();
}

/// Compiles part `index` of a level into an object file: when split before
/// lowering, its kernels tiled, vectorized and lowered to the LLVM dialect
/// first (the MLIR half); then translated, optimized and compiled by LLVM
/// in an LLVMContext of its own. Part 0 defines the level's symbol. Timed
/// under the level's name in `timing` (merged with the other parts').
static void compileCpuPart(CpuLevel &cpu, size_t index,
                           int64_t maxWorkgroupScratch, bool verifyEachPass,
                           TimingScope &timing) {
  ModuleOp part = partOf(cpu, index);
  TimingScope levelTimer = timing.nest(cpu.level);
  if (cpu.splitBeforeLowering) {
    PassManager kernels(part.getContext());
    buildCpuKernelBodiesPipeline(kernels, cpu.level, maxWorkgroupScratch);
    if (failed(runPipeline(kernels, part, verifyEachPass, levelTimer)))
      return;
    cpu.partKernels[index] = readKernels(part);
    PassManager llvm(part.getContext());
    buildKernelsToLLVMPipeline(llvm, cpu.level);
    if (failed(runPipeline(llvm, part, verifyEachPass, levelTimer)))
      return;
  }
  FailureOr<std::string> object = emitCpuObjectFile(
      part, cpu.level, /*withLevelSymbol=*/index == 0, std::move(levelTimer));
  if (failed(object))
    return;
  cpu.objects[index] = std::move(*object);
}

/// Once every part is compiled: the parts' kernels in the module's order
/// (when split before lowering), and the objects, in part order, linked
/// into the level's shared object (timed under the level's name in
/// `timing`).
static void linkCpuLevel(CpuLevel &cpu, TimingScope &timing) {
  // A part that failed has no object (an object file is never empty).
  if (llvm::any_of(cpu.objects,
                   [](const std::string &object) { return object.empty(); }))
    return;
  if (cpu.splitBeforeLowering)
    for (const std::string &name : cpu.kernelNames)
      for (const std::vector<KernelInfo> &kernels : cpu.partKernels)
        for (const KernelInfo &kernel : kernels)
          if (kernel.name == name)
            cpu.tiled.push_back(kernel);
  cpu.object.kind = CodeKind::CpuElf;
  cpu.object.level = cpu.level;
  cpu.object.cpuFeatures = featuresOf(cpu.level);
  TimingScope levelTimer = timing.nest(cpu.level);
  TimingScope linkTimer = levelTimer.nest("Link (ld)");
  cpu.ok = succeeded(
      linkCpuSharedObject(*cpu.module, cpu.objects, &cpu.object.bytes));
}

/// Adds one CPU code object per ISA level of `isaLevels` to `artifact`,
/// compiled from the planned `module` on up to `threads` threads (0: one
/// per hardware thread); the first level's tiling sets the kernels' grids.
/// The artifact does not depend on `threads`: each level is compiled
/// alone and the results are added in level order. Each level's work is
/// timed under its name in `timing`.
static LogicalResult addCpuObjects(ModuleOp module,
                                   ArrayRef<std::string> isaLevels,
                                   int64_t maxWorkgroupScratch,
                                   unsigned threads, bool verifyEachPass,
                                   TimingScope &timing, Artifact &artifact) {
  SmallVector<std::string> levels(isaLevels.begin(), isaLevels.end());
  if (levels.empty())
    for (const VectorIsa &isa : VectorIsa::all())
      levels.push_back(isa.name);
  // One code object per ISA level, from the same planned module: the
  // kernels are tiled into the same workgroups at every level and
  // vectorized for each.
  std::vector<CpuLevel> cpus(levels.size());
  for (auto [cpu, level] : llvm::zip(cpus, levels)) {
    if (!VectorIsa::named(level))
      return module.emitError() << "unknown ISA level '" << level
                                << "' (x86-64, x86-64-v3, x86-64-v4)";
    cpu.level = level;
    cpu.module = module.clone();
    cpu.splitBeforeLowering = levels.size() == 1;
  }
  // What the threads share: every dialect a pass may load, and LLVM's
  // x86 target, set up before they start.
  module.getContext()->loadAllAvailableDialects();
  initializeCpuTarget();
  // Tasks per level: the level split into parts; then, queued when that
  // ends, each part's compile, the last of which to end links the level.
  // With fewer threads than tasks, a thread that finishes a level's split
  // takes the next level's while the other threads compile parts, instead
  // of one thread compiling two whole levels after the others are done
  // (three levels on two threads: 1.5 levels' time, not 2). Several levels
  // keep the threads busy through their MLIR halves, so each level is split
  // after its MLIR half, where each part costs only its LLVMContext: split
  // before, the parts' own pass managers took three levels of MLP 784 from
  // 0.307 to 0.328 s and the histogram's from 0.079 to 0.094 s. One level
  // alone (`--cpu-isa`) has only its kernels to share out, and is split
  // before its MLIR half (x86-64-v3 alone: the cosine 0.122 -> 0.104 s,
  // MLP 784 0.157 -> 0.147 s, DP-SGD 0.175 -> 0.141 s). Either way the
  // parts depend on the program and the levels asked for, not on the
  // threads.
  llvm::StdThreadPool pool(llvm::hardware_concurrency(threads));
  for (CpuLevel &cpu : cpus)
    pool.async([&pool, &cpu, maxWorkgroupScratch, verifyEachPass, &timing] {
      if (failed(
              splitCpuLevel(cpu, maxWorkgroupScratch, verifyEachPass, timing)))
        return;
      for (size_t index = 0; index < cpu.objects.size(); ++index)
        pool.async([&cpu, index, maxWorkgroupScratch, verifyEachPass, &timing] {
          compileCpuPart(cpu, index, maxWorkgroupScratch, verifyEachPass,
                         timing);
          if (cpu.pending.fetch_sub(1) == 1)
            linkCpuLevel(cpu, timing);
        });
    });
  pool.wait();
  for (auto [index, cpu] : llvm::enumerate(cpus)) {
    if (!cpu.ok)
      return failure();
    // Grids do not depend on the level; scratch may.
    for (auto [known, now] : llvm::zip(artifact.kernels, cpu.tiled)) {
      if (index == 0)
        std::copy(std::begin(now.workgroupCount), std::end(now.workgroupCount),
                  std::begin(known.workgroupCount));
      known.scratchBytes = std::max(known.scratchBytes, now.scratchBytes);
      addAccess(known, now.bindingAccess);
    }
    artifact.codeObjects.push_back(std::move(cpu.object));
  }
  return success();
}

/// Adds the CUDA code objects (a cubin, then the PTX) to `artifact`,
/// compiled from the planned `module`. Unless `cpuTiles` (the grids are
/// the CPU's, set already), the CUDA tiling sets the kernels' grids.
static LogicalResult addCudaObjects(ModuleOp module,
                                    const CompileOptions &options,
                                    bool cpuTiles, TimingScope &timing,
                                    Artifact &artifact) {
  OwningOpRef<ModuleOp> clone(module.clone());
  GpuPipelineOptions gpu;
  gpu.chip = options.cudaChip;
  gpu.tileTarget = cpuTiles ? "cpu" : "cuda";
  gpu.maxWorkgroupScratch = kGpuWorkgroupScratch;
  gpu.indexBitwidth = cudaIndexBitwidth(artifact);
  PassManager kernels(module.getContext());
  buildCudaKernelPipeline(kernels, gpu);
  if (failed(runPipeline(kernels, *clone, options.verifyEachPass, timing)))
    return failure();
  auto gpuModule = clone->lookupSymbol<gpu::GPUModuleOp>("vmapc_kernels");
  if (!gpuModule)
    return module.emitError("the CUDA pipeline made no gpu.module");
  // The launch of each kernel: its block size and shared memory, from the
  // gpu.func the arr-gpu-workgroups pipeline made of it.
  std::vector<GpuLaunch> launches;
  for (KernelInfo &kernel : artifact.kernels) {
    auto fn =
        gpuModule.lookupSymbol<LLVM::LLVMFuncOp>("vmapc_kernel_" + kernel.name);
    if (!fn)
      return module.emitError()
             << "kernel '" << kernel.name << "' has no CUDA kernel";
    GpuLaunch launch;
    if (auto block = gpu::GPUDialect::KnownBlockSizeAttrHelper(fn.getContext())
                         .getAttr(fn))
      for (auto [i, threads] : llvm::enumerate(block.asArrayRef()))
        launch.block[i] = uint32_t(threads);
    if (auto shared = fn->getAttrOfType<IntegerAttr>(
            sched::SchedDialect::kScratchBytesAttrName))
      launch.sharedBytes = uint32_t(shared.getInt());
    if (auto access = fn->getAttrOfType<DenseI64ArrayAttr>(
            sched::SchedDialect::kBindingAccessAttrName)) {
      std::vector<BindingAccess> each;
      for (int64_t a : access.asArrayRef())
        each.push_back(BindingAccess(a));
      addAccess(kernel, each);
    }
    if (auto grid = fn->getAttrOfType<DenseI64ArrayAttr>(
            sched::SchedDialect::kWorkgroupCountAttrName);
        grid && !cpuTiles)
      for (auto [i, count] : llvm::enumerate(grid.asArrayRef()))
        kernel.workgroupCount[i] = count;
    launches.push_back(launch);
  }
  std::string toolkit =
      options.cudaToolkit.empty() ? defaultCudaToolkit() : options.cudaToolkit;
  CodeObject cubin, ptx;
  TimingScope emitTimer = timing.nest("PTX and cubin (ptxas)");
  if (failed(emitCudaObjects(*clone, options.cudaChip, toolkit, &ptx.bytes,
                             &cubin.bytes)))
    return failure();
  emitTimer.stop();
  cubin.kind = CodeKind::CudaCubin;
  ptx.kind = CodeKind::CudaPtx;
  cubin.level = ptx.level = options.cudaChip;
  cubin.launches = ptx.launches = launches;
  artifact.codeObjects.push_back(std::move(cubin));
  artifact.codeObjects.push_back(std::move(ptx));
  return success();
}

LogicalResult vmapc::compileArtifact(ModuleOp module,
                                     const CompileOptions &options,
                                     Artifact &artifact) {
  TimingScope untimed;
  return compileArtifact(module, options, artifact, untimed);
}

LogicalResult vmapc::compileArtifact(ModuleOp module,
                                     const CompileOptions &options,
                                     Artifact &artifact, TimingScope &timing) {
  if (!options.cpu && !options.cuda)
    return module.emitError("no target to compile for (cpu, cuda)");
  if (failed(lowerToPlannedBuffers(
          module, /*cuda=*/options.cuda, options.arenaAlignment,
          options.bufferReuse, options.verifyEachPass,
          timing.nest("Plan (arr to planned buffers)"))))
    return failure();
  artifact = Artifact();
  artifact.kernels = readKernels(module);
  if (failed(readManifest(module, artifact.entries, artifact.kernels)))
    return failure();
  // With CUDA code, the CPU's tiles are the GPU's too (one schedule): a
  // workgroup's scratch then fits a block's shared memory.
  int64_t cpuScratch = options.cuda ? kGpuWorkgroupScratch : 0;
  if (options.cpu) {
    TimingScope cpuTimer = timing.nest("CPU code objects");
    if (failed(addCpuObjects(module, options.isaLevels, cpuScratch,
                             options.threads, options.verifyEachPass, cpuTimer,
                             artifact)))
      return failure();
  }
  if (options.cuda) {
    TimingScope cudaTimer = timing.nest("CUDA code objects");
    if (failed(addCudaObjects(module, options, /*cpuTiles=*/options.cpu,
                              cudaTimer, artifact)))
      return failure();
  }
  // Each entry passed validateEntry; what is left (the kernels' grids, the
  // code objects, unique names) belongs to the whole file.
  if (Status status = validateArtifact(artifact); !status.ok())
    return module.emitError() << status.message();
  return success();
}

LogicalResult vmapc::compileForCpu(ModuleOp module, Artifact &artifact,
                                   ArrayRef<std::string> isaLevels) {
  CompileOptions options;
  options.isaLevels.assign(isaLevels.begin(), isaLevels.end());
  return compileArtifact(module, options, artifact);
}
