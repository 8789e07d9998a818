//===- EmitCEntries.cpp - one `void NAME(void **args)` per entry ----------===//
//
// The runtime calls every entry through one signature, whatever its inputs
// and outputs: an array of pointers (inputs, outputs, arena), the ABI written
// down in runtime/vmapc/ArtifactFormat.h.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace vmapc {
#define GEN_PASS_DEF_ARREMITCENTRIES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

struct ArrEmitCEntriesPass
    : vmapc::impl::ArrEmitCEntriesBase<ArrEmitCEntriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    SmallVector<LLVM::LLVMFuncOp> entries;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn->hasAttr("arr.batch") && !fn.isExternal())
        entries.push_back(fn);

    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    for (LLVM::LLVMFuncOp fn : entries) {
      LLVM::LLVMFunctionType type = fn.getFunctionType();
      if (!isa<LLVM::LLVMVoidType>(type.getReturnType()) ||
          llvm::any_of(type.getParams(),
                       [&](Type t) { return t != ptrType; })) {
        fn.emitOpError("entry must take only pointers and return nothing "
                       "(bare-pointer calling convention)");
        return signalPassFailure();
      }
      OpBuilder b(module.getBodyRegion());
      b.setInsertionPointAfter(fn);
      Location loc = fn.getLoc();
      auto wrapper = LLVM::LLVMFuncOp::create(
          b, loc, vmapc::cEntrySymbol(fn.getName()),
          LLVM::LLVMFunctionType::get(voidType, {ptrType}));
      Block *block = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(block);
      SmallVector<Value> args;
      for (unsigned i = 0; i < type.getNumParams(); ++i) {
        auto slot = LLVM::GEPOp::create(
            b, loc, ptrType, ptrType, block->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
      }
      LLVM::CallOp::create(b, loc, fn, args);
      LLVM::ReturnOp::create(b, loc, ValueRange{});
      fn.setLinkage(LLVM::Linkage::Internal);
      // The manifest was read before lowering; arr attributes mean nothing
      // to LLVM IR.
      fn.removeArgAttrsAttr();
      for (NamedAttribute attr : llvm::to_vector(fn->getDiscardableAttrs()))
        if (attr.getName().strref().starts_with("arr."))
          fn->removeDiscardableAttr(attr.getName());
    }
  }
};

} // namespace
