//===- GpuKernelDescriptors.cpp - --arr-gpu-kernel-descriptors ------------===//
//
// Each CUDA kernel's launch record and descriptor: its shared bytes (the
// scratch and the transient region the distribution passes used), checked
// against what a block may have, and `vmapc_kernel_NAME_descriptor` after
// the kernel (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Codegen/GpuThreads.h"
#include "passes/Codegen/KernelDescriptor.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUKERNELDESCRIPTORS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuKernelDescriptorsPass
    : vmapc::impl::ArrGpuKernelDescriptorsBase<ArrGpuKernelDescriptorsPass> {
  using ArrGpuKernelDescriptorsBase::ArrGpuKernelDescriptorsBase;

  void runOnOperation() override {
    if (failed(
            forEachGpuKernel(getOperation(), getArgument(),
                             [&](gpu::GPUFuncOp fn) { return describe(fn); })))
      signalPassFailure();
  }

  LogicalResult describe(gpu::GPUFuncOp fn) {
    if (failed(requireBlockSize(fn)))
      return failure();
    int64_t shared = ThreadDistributor(fn).totalSharedBytes();
    if (shared > maxSharedBytes)
      return fn.emitOpError()
             << "needs " << shared
             << " bytes of shared memory per block, more than the "
             << int64_t(maxSharedBytes) << " a block may have";
    fn->setAttr(
        vmapc::sched::SchedDialect::kScratchBytesAttrName,
        IntegerAttr::get(IntegerType::get(fn.getContext(), 64), shared));
    fn->removeAttr(kTransientSharedBytesAttrName);
    // Bindings are the memref arguments, scalars the i64 ones after them.
    unsigned numScalars = llvm::count_if(
        fn.getArgumentTypes(), [](Type t) { return !isa<MemRefType>(t); });
    OpBuilder after(fn.getContext());
    after.setInsertionPointAfter(fn);
    return vmapc::createKernelDescriptor(after, fn, fn.getName(), numScalars,
                                         /*withScratch=*/false);
  }
};
} // namespace
