//===- BufferizeKernels.cpp - one-shot bufferization of each kernel -------===//
//
// `--arr-bufferize-kernels`: a kernel's bindings are memrefs already; its
// body, tiled (and vectorized) on tensors, is bufferized by upstream
// one-shot bufferization, after upstream empty-tensor elimination has let
// each result be computed in its output binding. What remains allocated is
// per-workgroup scratch (a fused producer's tile that no register holds);
// `--arr-cpu-workgroups` puts it on the worker's stack.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRBUFFERIZEKERNELS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrBufferizeKernelsPass
    : vmapc::impl::ArrBufferizeKernelsBase<ArrBufferizeKernelsPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::sched::isKernel(kernel) || kernel.isExternal())
        continue;
      if (failed(bufferization::eliminateEmptyTensors(rewriter, kernel)))
        return signalPassFailure();
      bufferization::OneShotBufferizationOptions options;
      options.bufferizeFunctionBoundaries = false;
      bufferization::BufferizationState state;
      if (failed(bufferization::runOneShotBufferize(kernel, options, state)))
        return signalPassFailure();
    }
  }
};
} // namespace
