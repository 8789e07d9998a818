//===- GpuWorkgroupIds.cpp - --arr-gpu-workgroup-ids ---------------------===//
//
// Each kernel's grid loop becomes the body of one thread block: the
// workgroup ids are `gpu.block_id` (Passes.td; the CPU's are arguments,
// WorkgroupLoop.h).
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/GpuThreads.h"
#include "passes/Codegen/WorkgroupLoop.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUWORKGROUPIDS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuWorkgroupIdsPass
    : vmapc::impl::ArrGpuWorkgroupIdsBase<ArrGpuWorkgroupIdsPass> {
  void runOnOperation() override {
    auto blockId = [](OpBuilder &b, Location loc, unsigned dim) -> Value {
      gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                               gpu::Dimension::z};
      return gpu::BlockIdOp::create(b, loc, dims[dim]);
    };
    if (failed(forEachGpuKernel(getOperation(), getArgument(),
                                [&](gpu::GPUFuncOp fn) {
                                  return vmapc::lowerWorkgroupLoop(
                                      fn, fn.getBody().front(), blockId);
                                })))
      signalPassFailure();
  }
};
} // namespace
