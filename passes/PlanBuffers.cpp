// Placeholder: replaced by the real pass.
#include "passes/Passes.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRPLANBUFFERS
#include "passes/Passes.h.inc"
} // namespace vmapc

namespace {
struct ArrPlanBuffersPass : vmapc::impl::ArrPlanBuffersBase<ArrPlanBuffersPass> {
  using ArrPlanBuffersBase::ArrPlanBuffersBase;
  void runOnOperation() override {
    getOperation().emitError("not implemented yet");
    signalPassFailure();
  }
};
} // namespace
