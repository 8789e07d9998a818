//===- HoistPerCall.cpp - dispatches that run once per call ---------------===//
//
// `--arr-hoist-per-call`, on bufferized entries before planning. The runtime
// runs an entry's schedule once per chunk of at most B examples. A dispatch
// that reads only the entry's unmapped inputs (shared by every example) and
// buffers that other such dispatches write computes the same bytes in every
// chunk: the kNN's transposed references (passes/Dispatch/PackOperands.cpp),
// a weight that a program scales or transposes before its products. Such a
// dispatch is marked `sched.once_per_call`: the runtime runs it in the first
// chunk of each call only, and the planner keeps each buffer it writes live
// over the whole schedule, so that later chunks still find it there. This is
// loop-invariant code motion over the runtime's loop over chunks (as JAX's
// batching gets it for free: an unbatched value is computed once for the
// whole batch).
//
// A dispatch is marked when, in the entry's body (not in a loop):
//   - it has no scalars (its work depends on neither n nor a loop index);
//   - each input is an unmapped input of the entry or an allocation that a
//     marked dispatch before it writes;
//   - each output is an allocation that it alone writes, and that nothing
//     but dispatches (and deallocations) uses.
// One walk in schedule order decides each dispatch after every dispatch
// that writes what it reads.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRHOISTPERCALL
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;
using namespace vmapc;

namespace {

/// The entry's allocations that only dispatches use (as whole buffers) or
/// deallocate, each with the dispatches that write it.
llvm::DenseMap<Value, SmallVector<sched::DispatchOp>>
dispatchOnlyAllocations(func::FuncOp entry) {
  llvm::DenseMap<Value, SmallVector<sched::DispatchOp>> writers;
  for (Operation &op : entry.getBody().front()) {
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      continue;
    Value buffer = op.getResult(0);
    bool onlyDispatches = llvm::all_of(buffer.getUsers(), [](Operation *user) {
      return isa<sched::DispatchOp, memref::DeallocOp>(user);
    });
    if (!onlyDispatches)
      continue;
    SmallVector<sched::DispatchOp> &list = writers[buffer];
    for (OpOperand &use : buffer.getUses())
      if (auto dispatch = dyn_cast<sched::DispatchOp>(use.getOwner()))
        if (dispatch.isDpsInit(&use) && !llvm::is_contained(list, dispatch))
          list.push_back(dispatch);
  }
  return writers;
}

/// Marks the dispatches of `entry` that can run once per call.
void hoistPerCall(func::FuncOp entry) {
  auto writers = dispatchOnlyAllocations(entry);
  auto isUnmappedInput = [&](Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner()->getParentOp() == entry &&
           arr::isUnmappedInput(entry, arg.getArgNumber());
  };

  // In order, so that the writer of each buffer a dispatch reads has been
  // decided before it: the writer must come before the reader.
  llvm::SetVector<Operation *> marked;
  for (auto dispatch : entry.getBody().front().getOps<sched::DispatchOp>()) {
    if (!dispatch.getScalars().empty() || dispatch.getOutputs().empty())
      continue;
    bool ownsOutputs = llvm::all_of(dispatch.getOutputs(), [&](Value out) {
      auto it = writers.find(out);
      return it != writers.end() && it->second.size() == 1 &&
             it->second.front() == dispatch;
    });
    bool readsInvariants = llvm::all_of(dispatch.getInputs(), [&](Value in) {
      if (isUnmappedInput(in))
        return true;
      auto it = writers.find(in);
      return it != writers.end() && it->second.size() == 1 &&
             marked.contains(it->second.front());
    });
    if (ownsOutputs && readsInvariants)
      marked.insert(dispatch);
  }

  UnitAttr unit = UnitAttr::get(entry.getContext());
  for (Operation *op : marked)
    op->setAttr(sched::SchedDialect::kOncePerCallAttrName, unit);
}

struct ArrHoistPerCallPass
    : vmapc::impl::ArrHoistPerCallBase<ArrHoistPerCallPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Bufferized,
                                 vmapc::Stage::Planned)))
      return signalPassFailure();
    for (auto entry : getOperation().getOps<func::FuncOp>())
      if (arr::isEntry(entry) && !entry.isExternal())
        hoistPerCall(entry);
  }
};

} // namespace
