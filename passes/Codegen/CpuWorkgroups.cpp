//===- CpuWorkgroups.cpp - one call of a CPU kernel per workgroup ---------===//
//
// `--arr-cpu-workgroups`: on a bufferized kernel, the `scf.forall` over the
// grid becomes the kernel's body for one workgroup: the kernel takes three
// more `index` arguments, the workgroup's id along x, y and z, and each
// induction variable is lower bound + id x step. The runtime calls the
// kernel once per workgroup, on any thread of its pool. Allocations left in
// the kernel (per-workgroup scratch) become `memref.alloca`s at its entry,
// on the worker's stack; the kernel records their total in
// `sched.scratch_bytes`, which must stay below `max-scratch-bytes`.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Codegen/BindingAccess.h"
#include "passes/Codegen/WorkgroupLoop.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRCPUWORKGROUPS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrCpuWorkgroupsPass
    : vmapc::impl::ArrCpuWorkgroupsBase<ArrCpuWorkgroupsPass> {
  using ArrCpuWorkgroupsBase::ArrCpuWorkgroupsBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::sched::isKernel(kernel) || kernel.isExternal())
        continue;
      if (failed(lowerGrid(kernel)) || failed(scratchToStack(kernel)))
        return signalPassFailure();
    }
  }

  LogicalResult lowerGrid(func::FuncOp kernel) {
    MLIRContext *ctx = kernel.getContext();
    Block &body = kernel.getBody().front();
    // What each binding spans, for the kernel's descriptor, while the
    // bindings still have their memref types.
    SmallVector<int64_t> bytes;
    for (Type type : kernel.getArgumentTypes())
      if (auto memref = dyn_cast<MemRefType>(type)) {
        std::optional<uint64_t> size = vmapc::sched::bindingBytes(memref);
        if (!size)
          return kernel.emitOpError("has a binding of dynamic shape");
        bytes.push_back(int64_t(*size));
      }
    kernel->setAttr(vmapc::sched::SchedDialect::kBindingBytesAttrName,
                    DenseI64ArrayAttr::get(ctx, bytes));
    vmapc::setBindingAccess(kernel);
    SmallVector<Value> ids;
    for (int i = 0; i < 3; ++i)
      ids.push_back(body.addArgument(IndexType::get(ctx), kernel.getLoc()));
    kernel.setType(FunctionType::get(ctx, body.getArgumentTypes(), {}));
    return vmapc::lowerWorkgroupLoop(
        kernel, body,
        [&](OpBuilder &, Location, unsigned dim) { return ids[dim]; });
  }

  LogicalResult scratchToStack(func::FuncOp kernel) {
    DataLayout layout = DataLayout::closest(kernel);
    int64_t scratch = 0;
    SmallVector<memref::AllocOp> allocs;
    kernel.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      // A dynamic size (the rows of the workgroup's last, partial tile) is
      // bounded by the tile: allocate the bound, view the first rows.
      SmallVector<int64_t> shape(type.getShape());
      auto sizes = alloc.getDynamicSizes().begin();
      for (int64_t &dim : shape) {
        if (!ShapedType::isDynamic(dim))
          continue;
        FailureOr<int64_t> bound =
            ValueBoundsConstraintSet::computeConstantBound(
                presburger::BoundType::UB, *sizes++, /*stopCondition=*/nullptr,
                /*closedUB=*/true);
        if (failed(bound))
          return alloc.emitOpError("allocates per-workgroup scratch of a size "
                                   "with no known bound");
        dim = *bound;
      }
      auto staticType = MemRefType::get(shape, type.getElementType());
      int64_t bytes =
          staticType.getNumElements() *
          int64_t(layout.getTypeSize(type.getElementType()).getFixedValue());
      scratch += (bytes + 63) / 64 * 64;
      Value replacement;
      if (type.hasStaticShape()) {
        auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), type);
        alloca.setAlignment(64);
        replacement = alloca;
      } else {
        // Bytes for the bound, viewed with the actual sizes.
        auto bytesType = MemRefType::get({bytes}, b.getI8Type());
        auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), bytesType);
        alloca.setAlignment(64);
        OpBuilder at(alloc);
        Value zero = arith::ConstantIndexOp::create(at, alloc.getLoc(), 0);
        replacement = memref::ViewOp::create(at, alloc.getLoc(), type, alloca,
                                             zero, alloc.getDynamicSizes());
      }
      alloc.replaceAllUsesWith(replacement);
      alloc.erase();
    }
    kernel.walk([](memref::DeallocOp dealloc) { dealloc.erase(); });
    if (scratch > maxScratchBytes)
      return kernel.emitOpError()
             << "needs " << scratch
             << " bytes of per-workgroup scratch, more than the limit of "
             << int64_t(maxScratchBytes) << " bytes";
    kernel->setAttr(vmapc::sched::SchedDialect::kScratchBytesAttrName,
                    b.getI64IntegerAttr(scratch));
    return success();
  }
};
} // namespace
