//===- Pipelines.cpp - vmapc pass pipelines -------------------------------===//

#include "passes/Pipelines.h"

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vmapc::buildArrToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createArrVmap());
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertArrToLinalg());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void vmapc::registerPipelines() {
  PassPipelineRegistration<>(
      "arr-to-linalg-pipeline",
      "Batches, inlines and lowers arr to fused linalg on tensors",
      buildArrToLinalgPipeline);
}
