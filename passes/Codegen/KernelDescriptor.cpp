//===- KernelDescriptor.cpp - a kernel's descriptor as a global -----------===//

#include "passes/Codegen/KernelDescriptor.h"

#include "dialect/SchedDialect.h"
#include "vmapc/ArtifactFormat.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

FailureOr<LLVM::GlobalOp> vmapc::createKernelDescriptor(OpBuilder &b,
                                                        Operation *kernel,
                                                        StringRef kernelSymbol,
                                                        unsigned numScalars,
                                                        bool withScratch) {
  using sched::SchedDialect;
  auto bytes = kernel->getAttrOfType<DenseI64ArrayAttr>(
      SchedDialect::kBindingBytesAttrName);
  auto access = kernel->getAttrOfType<DenseI64ArrayAttr>(
      SchedDialect::kBindingAccessAttrName);
  auto grid = kernel->getAttrOfType<DenseI64ArrayAttr>(
      SchedDialect::kWorkgroupCountAttrName);
  if (!bytes || !access || bytes.size() != access.size())
    return kernel->emitOpError("has no '")
           << SchedDialect::kBindingBytesAttrName << "' and '"
           << SchedDialect::kBindingAccessAttrName
           << "' of one size for its descriptor";
  // A kernel without a grid is one workgroup.
  SmallVector<int64_t> counts = {1, 1, 1};
  if (grid && grid.size() != 3)
    return kernel->emitOpError("has a '")
           << SchedDialect::kWorkgroupCountAttrName
           << "' of other than 3 counts";
  if (grid)
    counts.assign(grid.asArrayRef().begin(), grid.asArrayRef().end());
  int64_t scratch = 0;
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(
          SchedDialect::kScratchBytesAttrName);
      attr && withScratch)
    scratch = attr.getInt();
  SmallVector<int64_t> words = {int64_t(uint64_t(kKernelDescriptorMagic) |
                                        (uint64_t(bytes.size()) << 32)),
                                int64_t(numScalars)};
  words.append(counts.begin(), counts.end());
  words.push_back(scratch);
  // The launch: a CUDA kernel's block (gpu.known_block_size) and dynamic
  // shared memory (its scratch), as the launch record says; 1 x 1 x 1 and
  // 0 on the CPU.
  uint64_t block[3] = {1, 1, 1}, shared = 0;
  if (!withScratch) {
    // A gpu.func's own attribute, or the discardable one it becomes on an
    // llvm.func.
    DenseI32ArrayAttr known;
    if (auto fn = dyn_cast<gpu::GPUFuncOp>(kernel))
      known = fn.getKnownBlockSizeAttr();
    else
      known = gpu::GPUDialect::KnownBlockSizeAttrHelper(kernel->getContext())
                  .getAttr(kernel);
    if (known)
      for (auto [i, threads] : llvm::enumerate(known.asArrayRef()))
        block[i] = uint64_t(uint32_t(threads));
    if (auto attr = kernel->getAttrOfType<IntegerAttr>(
            SchedDialect::kScratchBytesAttrName))
      shared = uint64_t(attr.getInt());
  }
  words.push_back(int64_t(block[0] | block[1] << 32));
  words.push_back(int64_t(block[2] | shared << 32));
  words.append(bytes.asArrayRef().begin(), bytes.asArrayRef().end());
  words.append(access.asArrayRef().begin(), access.asArrayRef().end());
  auto i64 = b.getI64Type();
  auto type = LLVM::LLVMArrayType::get(i64, words.size());
  return LLVM::GlobalOp::create(
      b, kernel->getLoc(), type, /*isConstant=*/true, LLVM::Linkage::External,
      (kernelSymbol + "_descriptor").str(),
      DenseIntElementsAttr::get(
          RankedTensorType::get({int64_t(words.size())}, i64), words),
      /*alignment=*/8);
}
