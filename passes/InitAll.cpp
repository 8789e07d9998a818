//===- InitAll.cpp - one registration entry point for every tool ----------===//

#include "passes/InitAll.h"

#include "dialect/SchedDialect.h"
#include "passes/GpuPipeline.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void vmapc::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<arr::ArrDialect, sched::SchedDialect>();
  sched::registerBufferizableOpInterfaceExternalModels(registry);
  arr::registerExternalBatchingModels(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

void vmapc::registerAllPasses() {
  mlir::registerAllPasses();
  registerVmapcPasses();
  registerPipelines();
  registerGpuPipelines();
}
