//===- EmitCpuKernels.cpp - the C entry point of every CPU kernel ---------===//
//
// `--arr-emit-cpu-kernels`: the runtime calls every kernel through one C
// signature, whatever its bindings (runtime/include/vmapc/ArtifactFormat.h):
//
//   void vmapc_kernel_NAME(void *const *bindings, const int64_t *scalars,
//                          int64_t wg_x, int64_t wg_y, int64_t wg_z);
//
// On the LLVM dialect, after `arr-convert-kernels-to-llvm` (bare-pointer
// calling convention), a kernel takes one pointer per binding, one i64 per
// scalar and the three workgroup ids; the wrapper loads the pointers and
// scalars from the two arrays and calls it. The kernel itself becomes
// internal, so that LLVM inlines it into the wrapper.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"
#include "passes/Codegen/KernelDescriptor.h"
#include "passes/Passes.h"
#include "passes/Stages.h"
#include "vmapc/ArtifactFormat.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace vmapc {
#define GEN_PASS_DEF_ARREMITCPUKERNELS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

struct ArrEmitCpuKernelsPass
    : vmapc::impl::ArrEmitCpuKernelsBase<ArrEmitCpuKernelsPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::LLVM, vmapc::Stage::LLVM)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    SmallVector<LLVM::LLVMFuncOp> kernels;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (vmapc::sched::isKernel(fn) && !fn.isExternal())
        kernels.push_back(fn);

    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i64Type = IntegerType::get(ctx, 64);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    for (LLVM::LLVMFuncOp fn : kernels) {
      LLVM::LLVMFunctionType type = fn.getFunctionType();
      ArrayRef<Type> params = type.getParams();
      unsigned numBindings = 0;
      while (numBindings < params.size() && params[numBindings] == ptrType)
        ++numBindings;
      bool wellFormed = isa<LLVM::LLVMVoidType>(type.getReturnType()) &&
                        params.size() >= numBindings + 3 &&
                        llvm::all_of(params.drop_front(numBindings),
                                     [&](Type t) { return t == i64Type; });
      if (!wellFormed) {
        fn.emitOpError("kernel must take pointers (bindings), then i64s "
                       "(scalars and 3 workgroup ids), and return nothing");
        return signalPassFailure();
      }
      unsigned numScalars = params.size() - numBindings - 3;

      OpBuilder b(module.getBodyRegion());
      b.setInsertionPointAfter(fn);
      Location loc = fn.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          b, loc, ("vmapc_kernel_" + fn.getName()).str(),
          LLVM::LLVMFunctionType::get(
              voidType, {ptrType, ptrType, i64Type, i64Type, i64Type}));
      Block *block = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(block);
      SmallVector<Value> args;
      for (unsigned i = 0; i < numBindings; ++i) {
        auto slot = LLVM::GEPOp::create(
            b, loc, ptrType, ptrType, block->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
      }
      for (unsigned i = 0; i < numScalars; ++i) {
        auto slot = LLVM::GEPOp::create(
            b, loc, ptrType, i64Type, block->getArgument(1),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, i64Type, slot));
      }
      for (unsigned i = 0; i < 3; ++i)
        args.push_back(block->getArgument(2 + i));
      LLVM::CallOp::create(b, loc, fn, args);
      LLVM::ReturnOp::create(b, loc, ValueRange{});
      auto bytes = fn->getAttrOfType<DenseI64ArrayAttr>(
          vmapc::sched::SchedDialect::kBindingBytesAttrName);
      if (!bytes || bytes.size() != int64_t(numBindings)) {
        fn.emitOpError("has no 'sched.binding_bytes' for its ")
            << numBindings << " bindings";
        return signalPassFailure();
      }
      b.setInsertionPointAfter(wrapper);
      if (failed(vmapc::createKernelDescriptor(b, fn, wrapper.getName(),
                                               numScalars,
                                               /*withScratch=*/true)))
        return signalPassFailure();
      fn.setLinkage(LLVM::Linkage::Internal);
      fn.removeArgAttrsAttr();
      for (NamedAttribute attr : llvm::to_vector(fn->getDiscardableAttrs())) {
        StringRef dialect = attr.getName().strref().split('.').first;
        if (dialect == vmapc::sched::SchedDialect::getDialectNamespace() ||
            dialect == vmapc::arr::ArrDialect::getDialectNamespace())
          fn->removeDiscardableAttr(attr.getName());
      }
    }
  }
};

} // namespace
