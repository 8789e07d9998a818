//===- WorkgroupLoop.cpp - a kernel's grid loop as one workgroup ----------===//

#include "passes/Codegen/WorkgroupLoop.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

LogicalResult vmapc::lowerWorkgroupLoop(
    Operation *kernel, Block &body,
    function_ref<Value(OpBuilder &, Location, unsigned)> workgroupId) {
  SmallVector<scf::ForallOp> foralls(body.getOps<scf::ForallOp>());
  if (foralls.size() > 1)
    return kernel->emitOpError("has more than one workgroup loop");
  if (foralls.empty())
    return success();
  scf::ForallOp forall = foralls.front();
  if (forall.getRank() > 3 || !forall.getOutputs().empty())
    return forall.emitOpError("is not a bufferized grid of at most 3 "
                              "dimensions");
  MLIRContext *ctx = kernel->getContext();
  IRRewriter rewriter(ctx);
  rewriter.setInsertionPoint(forall);
  SmallVector<Value> ivs;
  for (auto [i, lb, step] :
       llvm::enumerate(forall.getMixedLowerBound(), forall.getMixedStep())) {
    Value id = workgroupId(rewriter, forall.getLoc(), i);
    AffineExpr d0, s0, s1;
    bindDims(ctx, d0);
    bindSymbols(ctx, s0, s1);
    ivs.push_back(affine::makeComposedAffineApply(
        rewriter, forall.getLoc(), AffineMap::get(1, 2, s0 + d0 * s1),
        {OpFoldResult(id), lb, step}));
  }
  Block *loopBody = forall.getBody();
  rewriter.eraseOp(loopBody->getTerminator());
  rewriter.inlineBlockBefore(loopBody, forall, ivs);
  rewriter.eraseOp(forall);
  return success();
}
