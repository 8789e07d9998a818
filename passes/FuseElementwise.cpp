//===- FuseElementwise.cpp - --arr-fuse-elementwise -----------------------===//
//
// Elementwise fusion of linalg.generic ops, as upstream's
// --linalg-fuse-elementwise-ops but without its reshape propagation and
// constant folding (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRFUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// Fuse a producer into its consumer when the producer has a single use, as
/// upstream's default control does (so nothing is computed twice).
bool fuseSingleUse(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

struct ArrFuseElementwisePass
    : vmapc::impl::ArrFuseElementwiseBase<ArrFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, fuseSingleUse);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
