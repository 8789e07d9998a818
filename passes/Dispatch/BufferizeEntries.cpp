//===- BufferizeEntries.cpp - one-shot bufferization of the schedules -----===//

#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRBUFFERIZEENTRIES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrBufferizeEntriesPass
    : vmapc::impl::ArrBufferizeEntriesBase<ArrBufferizeEntriesPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Linalg,
                                 vmapc::Stage::Dispatched)))
      return signalPassFailure();
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.opFilter.denyOperation([](Operation *op) {
      if (vmapc::sched::isKernel(op))
        return true;
      auto fn = op->getParentOfType<func::FuncOp>();
      return fn && vmapc::sched::isKernel(fn);
    });
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotModuleBufferize(getOperation(), options,
                                                        state)))
      signalPassFailure();
  }
};
} // namespace
