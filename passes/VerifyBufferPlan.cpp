// Placeholder: replaced by the real pass.
#include "passes/Passes.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRVERIFYBUFFERPLAN
#include "passes/Passes.h.inc"
} // namespace vmapc

namespace {
struct ArrVerifyBufferPlanPass : vmapc::impl::ArrVerifyBufferPlanBase<ArrVerifyBufferPlanPass> {
  void runOnOperation() override {
    getOperation().emitError("not implemented yet");
    signalPassFailure();
  }
};
} // namespace
