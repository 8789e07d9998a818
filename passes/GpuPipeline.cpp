//===- GpuPipeline.cpp - the CUDA (NVVM/PTX) pipeline ---------------------===//
//
// The kernel half repeats the CPU's (Pipelines.cpp) up to bufferization, so
// that both see the same grids; then arr-gpu-workgroups and upstream's GPU
// to NVVM conversion and serialization.
//
//===----------------------------------------------------------------------===//

#include "passes/GpuPipeline.h"

#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vmapc::buildCudaKernelPipeline(OpPassManager &pm,
                                    const GpuPipelineOptions &options) {
  pm.addPass(createArrEmitEntryDescriptors());
  pm.addPass(createArrEraseSchedules());
  ArrTileWorkgroupsOptions tiles;
  tiles.target = options.tileTarget;
  tiles.maxWorkgroupScratch = options.maxWorkgroupScratch;
  pm.addPass(createArrTileWorkgroups(tiles));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createArrBufferizeKernels());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createArrCopiesToLinalg());
  buildGpuWorkgroupsPipeline(pm, options.threadsPerBlock);

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  // Kernels take bare pointers (static shapes, identity layouts).
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createCanonicalizerPass());
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  // Index arithmetic in 32 bits where every offset fits (the kernels'
  // scalar parameters stay i64: arr-gpu-outline-kernels casts them).
  nvvm.indexBitwidth = options.indexBitwidth == 32 ? 32 : 64;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createArrNvvmExternDynamicShared());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

void vmapc::buildGpuWorkgroupsPipeline(OpPassManager &pm,
                                       int64_t threadsPerBlock,
                                       int64_t maxSharedBytes) {
  pm.addPass(createArrGpuOutlineKernels());
  pm.addPass(createArrGpuWorkgroupIds());
  pm.addPass(createArrGpuPromoteScratch());
  ArrGpuBlockSizeOptions blockSize;
  blockSize.threadsPerBlock = threadsPerBlock;
  pm.addPass(createArrGpuBlockSize(blockSize));
  pm.addPass(createArrGpuReductions());
  pm.addPass(createArrGpuContractionTiles());
  pm.addPass(createArrGpuDistributeThreads());
  pm.addPass(createArrGpuFmaContraction());
  ArrGpuKernelDescriptorsOptions descriptors;
  descriptors.maxSharedBytes = maxSharedBytes;
  pm.addPass(createArrGpuKernelDescriptors(descriptors));
}

void vmapc::buildArrToNvvmPipeline(OpPassManager &pm,
                                   const GpuPipelineOptions &options) {
  buildCudaKernelPipeline(pm, options);
  if (!options.serialize)
    return;
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void vmapc::buildCompileGpuPipeline(OpPassManager &pm,
                                    const GpuPipelineOptions &options) {
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm, /*plan=*/true, /*stageAll=*/true,
                            kCudaMaxFusedBytesPerExample);
  buildArrToNvvmPipeline(pm, options);
}

namespace {
/// The options of arr-gpu-workgroups.
struct GpuWorkgroupsOptions : PassPipelineOptions<GpuWorkgroupsOptions> {
  Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads of a block (a multiple of 32, at most 1024)"),
      llvm::cl::init(256)};
  Option<int64_t> maxSharedBytes{
      *this, "max-shared-bytes",
      llvm::cl::desc("Most bytes of shared memory a block may use (sm_90: "
                     "227 KiB)"),
      llvm::cl::init(232448)};
};
} // namespace

void vmapc::registerGpuPipelines() {
  PassPipelineRegistration<GpuWorkgroupsOptions>(
      "arr-gpu-workgroups",
      "Makes each bufferized kernel a CUDA kernel: a workgroup per thread "
      "block, its ops spread over the block's threads",
      [](OpPassManager &pm, const GpuWorkgroupsOptions &options) {
        buildGpuWorkgroupsPipeline(pm, options.threadsPerBlock,
                                   options.maxSharedBytes);
      });
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-cuda-kernel-pipeline",
      "Makes the kernels of a planned program NVVM kernels in a gpu.module",
      buildCudaKernelPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-to-nvvm-pipeline",
      "Lowers a planned program's kernels to NVVM and a gpu.binary (PTX or "
      "cubin)",
      buildArrToNvvmPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-compile-gpu-pipeline",
      "arr to CUDA kernels in a gpu.binary (NVIDIA GPUs)",
      buildCompileGpuPipeline);
}
