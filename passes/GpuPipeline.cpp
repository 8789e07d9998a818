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
  ArrGpuWorkgroupsOptions workgroups;
  workgroups.threadsPerBlock = options.threadsPerBlock;
  pm.addPass(createArrGpuWorkgroups(workgroups));

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
  // scalar parameters stay i64: arr-gpu-workgroups casts them).
  nvvm.indexBitwidth = options.indexBitwidth == 32 ? 32 : 64;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createArrNvvmExternDynamicShared());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
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

void vmapc::registerGpuPipelines() {
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
