//===- Pipelines.cpp - vmapc pass pipelines -------------------------------===//

#include "passes/Pipelines.h"

#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vmapc::buildArrToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createArrVmap());
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertArrToLinalg());
  pm.addPass(createArrFuseElementwise());
  // No CSE from here on: it would merge the `linalg.fill` inits of two
  // contractions of one shape, and bufferization would then have to copy
  // the shared init for the second one (a copy and a buffer more).
  pm.addPass(createCanonicalizerPass());
}

void vmapc::buildArrBufferizePipeline(OpPassManager &pm, bool plan) {
  pm.addPass(createArrOutputsToDestinations());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // CSE can merge the two subviews of a copy into one: fold such self-copies.
  pm.addPass(createCanonicalizerPass());
  if (!plan)
    return;
  pm.addPass(createArrPlanBuffers());
  pm.addPass(createArrVerifyBufferPlan());
}

void vmapc::buildArrToLLVMPipeline(OpPassManager &pm) {
  // Read off the planned entries' types before the lowering erases them.
  pm.addPass(createArrEmitEntryDescriptors());
  ArrCopiesToLinalgOptions stridedCopies;
  stridedCopies.stridedOnly = true;
  pm.addNestedPass<func::FuncOp>(createArrCopiesToLinalg(stridedCopies));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createArrExpandMath());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createArrEmitCEntries());
  pm.addPass(createCanonicalizerPass());
}

void vmapc::buildCompileCpuPipeline(OpPassManager &pm) {
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm);
  buildArrToLLVMPipeline(pm);
}

void vmapc::registerPipelines() {
  PassPipelineRegistration<>(
      "arr-to-linalg-pipeline",
      "Batches, inlines and lowers arr to fused linalg on tensors",
      buildArrToLinalgPipeline);
  PassPipelineRegistration<>(
      "arr-bufferize-pipeline",
      "Bufferizes entries in destination-passing style and plans one arena",
      [](OpPassManager &pm) { buildArrBufferizePipeline(pm); });
  PassPipelineRegistration<>("arr-to-llvm-pipeline",
                             "Lowers a planned program to the LLVM dialect",
                             buildArrToLLVMPipeline);
  PassPipelineRegistration<>("arr-compile-cpu-pipeline",
                             "arr to the LLVM dialect with C entries (CPU)",
                             buildCompileCpuPipeline);
}
