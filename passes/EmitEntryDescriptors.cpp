//===- EmitEntryDescriptors.cpp - what each entry's code was compiled for -===//
//
// The code object carries, per entry, the descriptor written down in
// runtime/include/vmapc/ArtifactFormat.h: B, the arena's bytes, the bytes per
// example and mapped axis of every argument, and the digest of the entry's
// schedule (scheduleDigest), read off the planned entry as the manifest is
// (readEntry). The runtime refuses a manifest that disagrees with it.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "passes/Dispatch/ReadSchedule.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactWriter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace vmapc {
#define GEN_PASS_DEF_ARREMITENTRYDESCRIPTORS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

struct ArrEmitEntryDescriptorsPass
    : vmapc::impl::ArrEmitEntryDescriptorsBase<ArrEmitEntryDescriptorsPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Planned, vmapc::Stage::Planned)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    // The kernels' names, as the manifest numbers them.
    std::vector<vmapc::KernelInfo> kernels = vmapc::readKernels(module);
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!vmapc::arr::isEntry(fn))
        continue;
      FailureOr<vmapc::EntryInfo> entry = vmapc::readEntry(fn, kernels);
      if (failed(entry))
        return signalPassFailure();
      std::vector<uint64_t> words =
          vmapc::entryDescriptorWords(*entry, kernels);
      MLIRContext *ctx = module.getContext();
      auto i64 = IntegerType::get(ctx, 64);
      auto value = DenseElementsAttr::get(
          RankedTensorType::get({int64_t(words.size())}, i64),
          ArrayRef<uint64_t>(words));
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      LLVM::GlobalOp::create(b, fn.getLoc(),
                             LLVM::LLVMArrayType::get(i64, words.size()),
                             /*isConstant=*/true, LLVM::Linkage::External,
                             vmapc::entryDescriptorSymbol(entry->name), value,
                             /*alignment=*/8);
    }
  }
};

} // namespace
