//===- PlanBuffers.cpp - --arr-plan-buffers pass -------------------------===//
//
// Plans every buffer of each function into one static arena. The planning
// itself lives in BufferPlan.{h,cpp} (shared with `vmapc plan`); this pass
// only runs it on every function with a body.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "passes/BufferPlan.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "dialect/SchedDialect.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRPLANBUFFERS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrPlanBuffersPass
    : vmapc::impl::ArrPlanBuffersBase<ArrPlanBuffersPass> {
  using ArrPlanBuffersBase::ArrPlanBuffersBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Bufferized,
                                 vmapc::Stage::Bufferized)))
      return signalPassFailure();
    vmapc::BufferPlanOptions options;
    options.alignment = alignment;
    options.reuse = reuse;
    if (std::string why; !vmapc::isValidArenaAlignment(alignment, &why)) {
      getOperation().emitError() << getArgument() << ": " << why;
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // Kernels keep their own per-workgroup scratch (--arr-cpu-workgroups).
      if (func.isExternal() || vmapc::sched::isKernel(func))
        continue;
      // Only entries (public functions) get an arena argument; a private
      // helper's buffers would need the arena threaded through its calls.
      if (func.isPrivate()) {
        WalkResult walk = func.walk([](Operation *op) {
          return hasEffect<MemoryEffects::Allocate>(op)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        });
        if (walk.wasInterrupted()) {
          func.emitError() << "allocates buffers in a private function; "
                              "inline it into the entry before planning";
          return signalPassFailure();
        }
        continue;
      }
      // Already planned: an arena argument is present.
      if (llvm::any_of(llvm::seq<unsigned>(0, func.getNumArguments()),
                       [&](unsigned i) {
                         return func.getArgAttr(
                             i, vmapc::arr::ArrDialect::kArenaAttrName);
                       }))
        continue;
      FailureOr<vmapc::BufferPlan> plan =
          vmapc::computeBufferPlan(func, options);
      if (failed(plan) || failed(vmapc::applyBufferPlan(func, *plan)))
        return signalPassFailure();
    }
  }
};
} // namespace
