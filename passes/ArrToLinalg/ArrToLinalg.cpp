// Placeholder: replaced by the real pass.
#include "passes/Passes.h"

namespace vmapc {
#define GEN_PASS_DEF_CONVERTARRTOLINALG
#include "passes/Passes.h.inc"
} // namespace vmapc

namespace {
struct ConvertArrToLinalgPass : vmapc::impl::ConvertArrToLinalgBase<ConvertArrToLinalgPass> {
  void runOnOperation() override {
    getOperation().emitError("not implemented yet");
    signalPassFailure();
  }
};
} // namespace
