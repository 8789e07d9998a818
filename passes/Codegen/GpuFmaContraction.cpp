//===- GpuFmaContraction.cpp - --arr-gpu-fma-contraction ------------------===//
//
// CUDA's one fast-math liberty (FastMath.h): every op with fast-math flags
// of every kernel gets `contract` (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/FastMath.h"
#include "passes/Codegen/GpuThreads.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUFMACONTRACTION
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuFmaContractionPass
    : vmapc::impl::ArrGpuFmaContractionBase<ArrGpuFmaContractionPass> {
  void runOnOperation() override {
    if (failed(forEachGpuKernel(
            getOperation(), getArgument(), [](gpu::GPUFuncOp fn) {
              vmapc::allowFmaContraction(
                  fn, vmapc::ContractionScope::AllFastMathOps);
              return success();
            })))
      signalPassFailure();
  }
};
} // namespace
