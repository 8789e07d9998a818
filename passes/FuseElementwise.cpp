//===- FuseElementwise.cpp - --arr-fuse-elementwise -----------------------===//
//
// Elementwise fusion of linalg.generic ops, as upstream's
// --linalg-fuse-elementwise-ops but without its reshape propagation and
// constant folding (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRFUSEELEMENTWISE
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// The most ops a fused payload may hold. Each fusion clones both payloads
/// into a new op, so fusing a chain of N elementwise ops into one would cost
/// O(N^2) (a chain of 4000 `let`s took 21 s); bounded, it costs O(N * this)
/// and the chain becomes N * (ops per link) / this kernels. XLA bounds its
/// fusions the same way (instruction count, operands per fusion). A kernel
/// this large is already compute-bound: splitting it adds one buffer of
/// the chain's shape per piece, which the planner reuses.
constexpr size_t kMaxFusedPayloadOps = 256;

/// Ops in the payload of a linalg op (its terminator included).
size_t payloadOps(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp ? linalgOp.getBlock()->getOperations().size() : 0;
}

/// Whether the payload of `op` reads one of its inits: an update of its
/// destination (a scatter), not an elementwise function of its inputs.
bool readsInit(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp &&
         llvm::any_of(linalgOp.getDpsInitsMutable(), [&](OpOperand &init) {
           return linalgOp.payloadUsesValueFromOperand(&init);
         });
}

/// Fuse a producer into its consumer when the producer has a single use, as
/// upstream's default control does (so nothing is computed twice), and the
/// fused payload stays within kMaxFusedPayloadOps. A producer that updates
/// its destination is not fused: in a consumer that iterates over more
/// (a broadcast), its update would be applied once per extra iteration.
bool fuseSingleUse(OpOperand *fusedOperand) {
  Operation *producer = fusedOperand->get().getDefiningOp();
  return producer && producer->hasOneUse() && !readsInit(producer) &&
         payloadOps(producer) + payloadOps(fusedOperand->getOwner()) <=
             kMaxFusedPayloadOps;
}

struct ArrFuseElementwisePass
    : vmapc::impl::ArrFuseElementwiseBase<ArrFuseElementwisePass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Linalg,
                                 vmapc::Stage::Dispatched)))
      return signalPassFailure();
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
