//===- GpuPromoteScratch.cpp - --arr-gpu-promote-scratch -----------------===//
//
// Per-workgroup scratch becomes views of the block's dynamic shared memory,
// packed by live interval (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/BufferPlan.h"
#include "passes/Codegen/GpuThreads.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUPROMOTESCRATCH
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
using namespace vmapc::gpu_threads;

struct ArrGpuPromoteScratchPass
    : vmapc::impl::ArrGpuPromoteScratchBase<ArrGpuPromoteScratchPass> {
  void runOnOperation() override {
    if (failed(
            forEachGpuKernel(getOperation(), getArgument(),
                             [&](gpu::GPUFuncOp fn) { return promote(fn); })))
      signalPassFailure();
  }

  /// Per-workgroup scratch (allocations left in the kernel) becomes views of
  /// the block's dynamic shared memory, each sized for the bound of its
  /// dynamic sizes (the rows of a partial tile). Offsets are packed like the
  /// arena's (BufferPlan.h: live intervals over the body's top-level ops,
  /// greedy by size with best fit), so that scratch no longer read shares
  /// memory with later scratch; the ops between run separated by barriers.
  LogicalResult promote(gpu::GPUFuncOp fn) {
    MLIRContext *ctx = fn.getContext();
    DataLayout layout = DataLayout::closest(fn);
    SmallVector<memref::AllocOp> allocs;
    fn.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    Block &body = fn.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (Operation &op : body)
      position[&op] = position.size();
    auto pointOf = [&](Operation *op) {
      return position.lookup(body.findAncestorOpInBlock(*op));
    };
    SmallVector<vmapc::BufferRequest> requests;
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (!type.getLayout().isIdentity())
        return alloc.emitOpError("allocates scratch with a non-identity "
                                 "layout");
      int64_t elements = 1;
      auto sizes = alloc.getDynamicSizes().begin();
      for (int64_t dim : type.getShape()) {
        if (ShapedType::isDynamic(dim)) {
          FailureOr<int64_t> bound = upperBound(*sizes++);
          if (failed(bound))
            return alloc.emitOpError("allocates per-workgroup scratch of a "
                                     "size with no known bound");
          dim = *bound;
        }
        elements *= dim;
      }
      vmapc::BufferRequest request;
      request.bytes =
          elements *
          int64_t(layout.getTypeSize(type.getElementType()).getFixedValue());
      // Live from the allocation to the last access through any view.
      request.live = {pointOf(alloc), pointOf(alloc)};
      SmallVector<Value> aliases{alloc.getResult()};
      while (!aliases.empty()) {
        Value alias = aliases.pop_back_val();
        for (Operation *user : alias.getUsers()) {
          if (isa<memref::DeallocOp>(user))
            continue;
          if (auto view = dyn_cast<ViewLikeOpInterface>(user);
              view && view.getViewSource() == alias)
            aliases.append(user->result_begin(), user->result_end());
          int64_t point = pointOf(user);
          request.live.start = std::min(request.live.start, point);
          request.live.end = std::max(request.live.end, point);
        }
      }
      requests.push_back(request);
    }
    std::optional<vmapc::OffsetAssignment> assignment =
        vmapc::assignOffsetsGreedyBySize(requests, kSharedAlignment);
    if (!assignment)
      return fn.emitOpError("has per-workgroup scratch too large to place");

    OpBuilder b = OpBuilder::atBlockBegin(&body);
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value shared;
    for (auto [alloc, offset] : llvm::zip(allocs, assignment->offsets)) {
      MemRefType type = alloc.getType();
      if (!shared)
        shared = gpu::DynamicSharedMemoryOp::create(
            b, fn.getLoc(),
            MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                            MemRefLayoutAttrInterface(), workgroup));
      OpBuilder at(alloc);
      Value offsetValue =
          arith::ConstantIndexOp::create(at, alloc.getLoc(), offset);
      auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
      Value view =
          memref::ViewOp::create(at, alloc.getLoc(), sharedType, shared,
                                 offsetValue, alloc.getDynamicSizes());
      // Users keep the default memory space (generic addressing; NVPTX
      // infers the shared one where it can).
      Value generic =
          memref::MemorySpaceCastOp::create(at, alloc.getLoc(), type, view);
      alloc.replaceAllUsesWith(generic);
      alloc.erase();
    }
    fn.walk([](memref::DeallocOp dealloc) { dealloc.erase(); });
    fn->setAttr(vmapc::sched::SchedDialect::kScratchBytesAttrName,
                b.getI64IntegerAttr(assignment->arenaBytes));
    return success();
  }
};
} // namespace
