//===- CpuWorkgroups.cpp - one call of a CPU kernel per workgroup ---------===//
//
// `--arr-cpu-workgroups`: on a bufferized kernel, the `scf.forall` over the
// grid becomes the kernel's body for one workgroup: the kernel takes three
// more `index` arguments, the workgroup's id along x, y and z, and each
// induction variable is lower bound + id x step. The runtime calls the
// kernel once per workgroup, on any thread of its pool. Allocations left in
// the kernel (per-workgroup scratch) become views of one `memref.alloca` at
// its entry, on the worker's stack: buffers that are never live at once
// share bytes (scratchLiveIntervals, then BufferPlan.h's assignOffsets, as
// for the arena). The kernel records the alloca's size in
// `sched.scratch_bytes`, which must stay below `max-scratch-bytes`.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/BufferPlan.h"
#include "passes/Codegen/BindingAccess.h"
#include "passes/Codegen/WorkgroupLoop.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
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
    SmallVector<memref::AllocOp> allocs;
    kernel.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    // Each allocation's bytes: a dynamic size (the rows of the workgroup's
    // last, partial tile) is bounded by the tile; the bound is allocated
    // and the first rows viewed.
    SmallVector<vmapc::BufferRequest> requests;
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
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
      int64_t elements =
          MemRefType::get(shape, type.getElementType()).getNumElements();
      requests.push_back(
          {elements *
               int64_t(
                   layout.getTypeSize(type.getElementType()).getFixedValue()),
           {}});
    }
    scratchLiveIntervals(kernel, allocs, requests);
    std::optional<vmapc::OffsetAssignment> placed =
        vmapc::assignOffsets(requests, kScratchAlignment);
    if (!placed)
      return kernel.emitOpError("has per-workgroup scratch too large to place");
    int64_t scratch = llvm::alignTo(placed->arenaBytes, kScratchAlignment);
    if (scratch > maxScratchBytes)
      return kernel.emitOpError()
             << "needs " << scratch
             << " bytes of per-workgroup scratch, more than the limit of "
             << int64_t(maxScratchBytes) << " bytes";

    // One stack buffer at the entry (of 0 bytes when every allocation is
    // empty); each allocation a view at its offset.
    OpBuilder b = OpBuilder::atBlockBegin(&kernel.getBody().front());
    Value arena;
    if (!allocs.empty()) {
      auto alloca = memref::AllocaOp::create(
          b, kernel.getLoc(), MemRefType::get({scratch}, b.getI8Type()));
      alloca.setAlignment(kScratchAlignment);
      arena = alloca;
    }
    for (auto [alloc, offset] : llvm::zip(allocs, placed->offsets)) {
      OpBuilder at(alloc);
      Value byteShift =
          arith::ConstantIndexOp::create(at, alloc.getLoc(), offset);
      Value view =
          memref::ViewOp::create(at, alloc.getLoc(), alloc.getType(), arena,
                                 byteShift, alloc.getDynamicSizes());
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    kernel.walk([](memref::DeallocOp dealloc) { dealloc.erase(); });
    kernel->setAttr(vmapc::sched::SchedDialect::kScratchBytesAttrName,
                    b.getI64IntegerAttr(scratch));
    return success();
  }

  /// Fills the live interval of each of `allocs` (the kernel's scratch) in
  /// `requests`, over the kernel's ops numbered in pre-order: a buffer is
  /// live from its allocation to the end of the last op, in the
  /// allocation's block, that uses it or any alias of it (MLIR's
  /// BufferViewFlowAnalysis: views, scf.if results, loop-carried values).
  /// A use outside that block, or before the allocation in it (a value
  /// carried to the next iteration of the loop around it), moves the
  /// interval out to the op that holds the block, and so on up; a buffer
  /// that escapes the kernel's body is live throughout. So the allocations
  /// of the two branches of an scf.if never overlap, nor do a loop's
  /// temporaries and the buffers allocated after it.
  static void scratchLiveIntervals(func::FuncOp kernel,
                                   ArrayRef<memref::AllocOp> allocs,
                                   MutableArrayRef<vmapc::BufferRequest> out) {
    llvm::DenseMap<Operation *, int64_t> index, last;
    int64_t next = 0;
    kernel.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { index[op] = next++; });
    kernel.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t end = index[op];
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &nested : block)
            end = std::max(end, last[&nested]);
      last[op] = end;
    });
    BufferViewFlowAnalysis aliases(kernel);
    for (auto [alloc, request] : llvm::zip(allocs, out)) {
      Operation *anchor = memref::AllocOp(alloc).getOperation();
      // Order-independent below: a maximum and whether any use escapes.
      BufferViewFlowAnalysis::ValueSetT all =
          aliases.resolve(anchor->getResult(0));
      Block *scope = alloc->getBlock();
      while (true) {
        int64_t end = index[anchor];
        bool escapes = false;
        for (Value alias : all) {
          for (OpOperand &use : alias.getUses()) {
            Operation *at = scope->findAncestorOpInBlock(*use.getOwner());
            if (!at || index[at] < index[anchor]) {
              escapes = true;
              break;
            }
            end = std::max(end, last[at]);
          }
          if (escapes)
            break;
        }
        if (!escapes) {
          request.live = {index[anchor], end};
          break;
        }
        Operation *holder = scope->getParentOp();
        if (holder == kernel.getOperation()) {
          request.live = {0, last[kernel]};
          break;
        }
        anchor = holder;
        scope = holder->getBlock();
      }
    }
  }

  /// Alignment of each scratch buffer's offset: a cache line, as the CPU
  /// arena's.
  static constexpr int64_t kScratchAlignment = vmapc::kCpuArenaAlignment;
};
} // namespace
