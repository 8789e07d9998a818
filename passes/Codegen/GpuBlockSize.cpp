//===- GpuBlockSize.cpp - --arr-gpu-block-size ---------------------------===//
//
// Each kernel's block size: `threads-per-block`, or fewer when no op has
// that many iterations (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/GpuThreads.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/MathExtras.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUBLOCKSIZE
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuBlockSizePass
    : vmapc::impl::ArrGpuBlockSizeBase<ArrGpuBlockSizePass> {
  using ArrGpuBlockSizeBase::ArrGpuBlockSizeBase;

  void runOnOperation() override {
    if (threadsPerBlock < kWarpSize || threadsPerBlock > 1024 ||
        threadsPerBlock % kWarpSize != 0) {
      getOperation().emitError("threads-per-block must be a multiple of 32 "
                               "in [32, 1024], not ")
          << int64_t(threadsPerBlock);
      return signalPassFailure();
    }
    if (failed(forEachGpuKernel(
            getOperation(), getArgument(), [&](gpu::GPUFuncOp fn) {
              fn.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(
                  fn.getContext(), {int32_t(chooseBlockSize(fn)), 1, 1}));
              return success();
            })))
      signalPassFailure();
  }

  /// `threadsPerBlock`, or fewer when no op has that many iterations
  /// (rounded up to a warp).
  int64_t chooseBlockSize(gpu::GPUFuncOp fn) {
    int64_t most = 0;
    bool unbounded = false;
    fn.walk([&](linalg::LinalgOp op) {
      if (std::optional<int64_t> n = iterationsBound(op))
        most = std::max(most, *n);
      else
        unbounded = true;
    });
    if (unbounded || most >= threadsPerBlock)
      return threadsPerBlock;
    return std::max<int64_t>(kWarpSize, llvm::alignTo(most, kWarpSize));
  }
};
} // namespace
