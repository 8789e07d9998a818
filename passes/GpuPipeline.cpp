//===- GpuPipeline.cpp - the GPU (NVVM/PTX) pipeline ----------------------===//
//
// Upstream passes, in the order docs/toolchain.md found to work, plus three
// small passes of ours that upstream lacks: arr-copies-to-linalg
// (CopiesToLinalg.cpp), arr-gpu-tile-parallel-loops and
// arr-gpu-sink-into-launch (GpuKernels.cpp).
//
//===----------------------------------------------------------------------===//

#include "passes/GpuPipeline.h"

#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vmapc::buildArrToNvvmPipeline(OpPassManager &pm,
                                   const GpuPipelineOptions &options) {
  // Loop nests → gpu.launch, in each function.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createArrCopiesToLinalg());
  fn.addPass(createConvertLinalgToParallelLoopsPass());
  // No canonicalization between tiling and mapping: it folds a nest whose
  // outer loop runs once back into one loop (one thread per block).
  fn.addPass(createArrGpuTileParallelLoops(
      ArrGpuTileParallelLoopsOptions{options.threadsPerBlock}));
  GpuMapParallelLoopsPassOptions mapping;
  mapping.mappingPolicyStr = "innermost-first";
  fn.addPass(createGpuMapParallelLoopsPass(mapping));
  fn.addPass(createConvertParallelLoopToGpuPass());
  fn.addPass(createLowerAffinePass());
  // Constant launch sizes (the kernels get known block and grid sizes);
  // after sinking, no canonicalization until outlining: it would hoist the
  // sunk constants back out of the launch regions (not isolated from above).
  fn.addPass(createCanonicalizerPass());
  fn.addPass(createArrGpuSinkIntoLaunch());

  pm.addPass(createGpuKernelOutliningPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  // Device side: kernels take bare pointers (static shapes, identity layouts).
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  // Host side: what is left is constants and gpu.launch_func; entries take
  // bare pointers, as the CPU entries do.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  GpuToLLVMConversionPassOptions host;
  host.hostBarePtrCallConv = true;
  host.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(host));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());

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
  // The GPU path bufferizes entries whole (it does not run schedules yet).
  buildArrBufferizePipeline(pm, /*plan=*/true, /*dispatches=*/false);
  buildArrToNvvmPipeline(pm, options);
}

void vmapc::registerGpuPipelines() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-to-nvvm-pipeline",
      "Lowers a planned program to host LLVM and NVVM kernels in gpu.binary",
      buildArrToNvvmPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-compile-gpu-pipeline",
      "arr to host LLVM and PTX/cubin kernels (NVIDIA GPUs)",
      buildCompileGpuPipeline);
}
