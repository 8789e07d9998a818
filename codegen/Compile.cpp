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

/// Runs `pm` on `module`. Unless `verifyEachPass`, the IR is verified once,
/// at the end, instead of after every pass as MLIR's default does.
static LogicalResult runPipeline(PassManager &pm, ModuleOp module,
                                 bool verifyEachPass) {
  pm.enableVerifier(verifyEachPass);
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
                                           bool verifyEachPass) {
  PassManager pm(module.getContext());
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm, /*plan=*/true, /*stageAll=*/cuda,
                            cuda ? kCudaMaxFusedBytesPerExample : 0,
                            arenaAlignment, bufferReuse);
  return runPipeline(pm, module, verifyEachPass);
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
  std::vector<KernelInfo> tiled;
  /// The lowered module's kernels, split for the LLVM half (splitKernels;
  /// none: the module is compiled whole), an object file of each part, and
  /// how many parts are still being compiled.
  SmallVector<OwningOpRef<ModuleOp>> parts;
  std::vector<std::string> objects;
  std::vector<char> objectOk;
  std::atomic<size_t> pending{0};
  CodeObject object;
  bool ok = false;
};

/// Tiles, vectorizes and lowers `cpu.module` for `cpu.level` to the LLVM
/// dialect: the MLIR half of a level's compile. Levels run concurrently,
/// each on its own clone in the shared context (dialects loaded
/// beforehand).
static LogicalResult lowerCpuLevel(CpuLevel &cpu, int64_t maxWorkgroupScratch,
                                   bool verifyEachPass) {
  MLIRContext *context = cpu.module->getContext();
  PassManager kernels(context);
  buildCpuKernelPipeline(kernels, cpu.level, maxWorkgroupScratch);
  if (failed(runPipeline(kernels, *cpu.module, verifyEachPass)))
    return failure();
  cpu.tiled = readKernels(*cpu.module);
  PassManager llvm(context);
  buildKernelsToLLVMPipeline(llvm, cpu.level);
  return runPipeline(llvm, *cpu.module, verifyEachPass);
}

/// The module of part `index` of a level (the lowered module itself when
/// it was not split).
static ModuleOp partOf(CpuLevel &cpu, size_t index) {
  return cpu.parts.empty() ? *cpu.module : *cpu.parts[index];
}

/// Compiles part `index` of the lowered `cpu.module` into an object file:
/// the LLVM half (translation, LLVM's pipeline, instruction selection), in
/// its own LLVMContext. Part 0 defines the level's symbol.
static void emitCpuPart(CpuLevel &cpu, size_t index) {
  FailureOr<std::string> object =
      emitCpuObjectFile(partOf(cpu, index), cpu.level,
                        /*withLevelSymbol=*/index == 0);
  if (failed(object))
    return;
  cpu.objects[index] = std::move(*object);
  cpu.objectOk[index] = 1;
}

/// Links the level's objects, in part order, into its shared object.
static void linkCpuLevel(CpuLevel &cpu) {
  if (llvm::is_contained(cpu.objectOk, 0))
    return;
  cpu.object.kind = CodeKind::CpuElf;
  cpu.object.level = cpu.level;
  cpu.object.cpuFeatures = featuresOf(cpu.level);
  cpu.ok = succeeded(
      linkCpuSharedObject(*cpu.module, cpu.objects, &cpu.object.bytes));
}

/// Adds one CPU code object per ISA level of `isaLevels` to `artifact`,
/// compiled from the planned `module` on up to `threads` threads (0: one
/// per hardware thread); the first level's tiling sets the kernels' grids.
/// The artifact does not depend on `threads`: each level is compiled
/// alone and the results are added in level order.
static LogicalResult addCpuObjects(ModuleOp module,
                                   ArrayRef<std::string> isaLevels,
                                   int64_t maxWorkgroupScratch,
                                   unsigned threads, bool verifyEachPass,
                                   Artifact &artifact) {
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
  }
  // What the threads share: every dialect a pass may load, and LLVM's
  // x86 target, set up before they start.
  module.getContext()->loadAllAvailableDialects();
  initializeCpuTarget();
  // Tasks per level: its MLIR half; then, queued when that ends, the LLVM
  // half of each part of its kernels (splitKernels), the last of which to
  // end links the level. With fewer threads than tasks, a thread that
  // finishes a level's MLIR half takes the next level's while the other
  // threads run LLVM, instead of one thread compiling two whole levels
  // after the others are done (three levels on two threads: 1.5 levels'
  // time, not 2), and one level alone (`--cpu-isa`) compiles its kernels
  // on every core.
  llvm::StdThreadPool pool(llvm::hardware_concurrency(threads));
  for (CpuLevel &cpu : cpus)
    pool.async([&pool, &cpu, maxWorkgroupScratch, verifyEachPass] {
      if (failed(lowerCpuLevel(cpu, maxWorkgroupScratch, verifyEachPass)))
        return;
      cpu.parts = splitKernels(*cpu.module);
      size_t count = std::max<size_t>(cpu.parts.size(), 1);
      cpu.objects.resize(count);
      cpu.objectOk.assign(count, 0);
      cpu.pending = count;
      for (size_t index = 0; index < count; ++index)
        pool.async([&cpu, index] {
          emitCpuPart(cpu, index);
          if (cpu.pending.fetch_sub(1) == 1)
            linkCpuLevel(cpu);
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
                                    bool cpuTiles, Artifact &artifact) {
  OwningOpRef<ModuleOp> clone(module.clone());
  GpuPipelineOptions gpu;
  gpu.chip = options.cudaChip;
  gpu.tileTarget = cpuTiles ? "cpu" : "cuda";
  gpu.maxWorkgroupScratch = kGpuWorkgroupScratch;
  gpu.indexBitwidth = cudaIndexBitwidth(artifact);
  PassManager kernels(module.getContext());
  buildCudaKernelPipeline(kernels, gpu);
  if (failed(runPipeline(kernels, *clone, options.verifyEachPass)))
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
  if (failed(emitCudaObjects(*clone, options.cudaChip, toolkit, &ptx.bytes,
                             &cubin.bytes)))
    return failure();
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
  if (!options.cpu && !options.cuda)
    return module.emitError("no target to compile for (cpu, cuda)");
  if (failed(lowerToPlannedBuffers(module, /*cuda=*/options.cuda,
                                   options.arenaAlignment, options.bufferReuse,
                                   options.verifyEachPass)))
    return failure();
  artifact = Artifact();
  artifact.kernels = readKernels(module);
  if (failed(readManifest(module, artifact.entries, artifact.kernels)))
    return failure();
  // With CUDA code, the CPU's tiles are the GPU's too (one schedule): a
  // workgroup's scratch then fits a block's shared memory.
  int64_t cpuScratch = options.cuda ? kGpuWorkgroupScratch : 0;
  if (options.cpu &&
      failed(addCpuObjects(module, options.isaLevels, cpuScratch,
                           options.threads, options.verifyEachPass, artifact)))
    return failure();
  if (options.cuda && failed(addCudaObjects(
                          module, options, /*cpuTiles=*/options.cpu, artifact)))
    return failure();
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
