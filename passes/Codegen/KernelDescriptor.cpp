//===- KernelDescriptor.cpp - a kernel's descriptor as a module global ----===//

#include "passes/Codegen/KernelDescriptor.h"

#include "vmapc/ArtifactFormat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

LLVM::GlobalOp vmapc::createKernelDescriptor(OpBuilder &b, Location loc,
                                             StringRef kernelSymbol,
                                             unsigned numScalars,
                                             ArrayRef<int64_t> bindingBytes) {
  SmallVector<int64_t> words = {int64_t(uint64_t(kKernelDescriptorMagic) |
                                        (uint64_t(bindingBytes.size()) << 32)),
                                int64_t(numScalars)};
  words.append(bindingBytes.begin(), bindingBytes.end());
  auto i64 = b.getI64Type();
  auto type = LLVM::LLVMArrayType::get(i64, words.size());
  return LLVM::GlobalOp::create(
      b, loc, type, /*isConstant=*/true, LLVM::Linkage::External,
      (kernelSymbol + "_descriptor").str(),
      DenseIntElementsAttr::get(
          RankedTensorType::get({int64_t(words.size())}, i64), words),
      /*alignment=*/8);
}
