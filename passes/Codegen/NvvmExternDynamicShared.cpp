//===- NvvmExternDynamicShared.cpp - extern __shared__ for NVPTX ----------===//
//
// `--arr-nvvm-extern-dynamic-shared` (Passes.td has the why): the globals
// upstream's GPU-to-NVVM lowering makes for `gpu.dynamic_shared_memory`
// become external declarations.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRNVVMEXTERNDYNAMICSHARED
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrNvvmExternDynamicSharedPass
    : vmapc::impl::ArrNvvmExternDynamicSharedBase<
          ArrNvvmExternDynamicSharedPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != unsigned(NVVM::NVVMMemorySpace::Shared) ||
          !global.getSymName().starts_with("__dynamic_shmem__") || !array ||
          array.getNumElements() != 0)
        continue;
      global.setLinkage(LLVM::Linkage::External);
    }
  }
};
} // namespace
