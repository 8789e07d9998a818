//===- CpuLowerVectors.cpp - vector ops to what LLVM vectorizes well ------===//
//
// `--arr-cpu-lower-vectors`: on bufferized kernels, the high-level vector
// ops that vectorization made become 1-D vector arithmetic, loads and
// stores, which `arr-convert-kernels-to-llvm` then maps to LLVM vectors (the
// order of upstream's vector lowering, as IREE's LLVMCPU vector lowering
// runs it): contractions to outer products, outer products to
// multiply-adds, multi-dimensional reductions to 1-D reductions, transposes
// to shuffles, broadcasts, shape casts and transfers to loads and stores.
//
// A multiply-add is emitted as `arith.mulf` + `arith.addf` with the
// `contract` fast-math flag rather than `vector.fma`: LLVM fuses them into
// an FMA where the ISA level has one (x86-64-v3, x86-64-v4) and keeps a
// multiply and an add on plain x86-64, where `llvm.fma` would be a libm
// call per lane.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRCPULOWERVECTORS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// vector.fma → mulf + addf {contract}.
struct FmaToContractedMulAdd : OpRewritePattern<vector::FMAOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::FMAOp op,
                                PatternRewriter &rewriter) const override {
    auto contract = arith::FastMathFlagsAttr::get(
        op.getContext(), arith::FastMathFlags::contract);
    Value product = arith::MulFOp::create(rewriter, op.getLoc(), op.getLhs(),
                                          op.getRhs(), contract);
    rewriter.replaceOpWithNewOp<arith::AddFOp>(op, product, op.getAcc(),
                                               contract);
    return success();
  }
};

struct ArrCpuLowerVectorsPass
    : vmapc::impl::ArrCpuLowerVectorsBase<ArrCpuLowerVectorsPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::sched::isKernel(kernel) || kernel.isExternal())
        continue;
      // Contractions and transfers with permutations first.
      {
        RewritePatternSet patterns(ctx);
        vector::populateVectorContractLoweringPatterns(
            patterns, vector::VectorContractLowering::OuterProduct);
        vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
        vector::populateVectorMultiReductionLoweringPatterns(
            patterns, vector::VectorMultiReductionLowering::InnerReduction);
        if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
          return signalPassFailure();
      }
      // Then everything down to 1-D vectors.
      {
        RewritePatternSet patterns(ctx);
        vector::populateVectorOuterProductLoweringPatterns(patterns);
        vector::populateVectorTransposeLoweringPatterns(
            patterns, vector::VectorTransposeLowering::Shuffle16x16);
        vector::populateVectorBroadcastLoweringPatterns(patterns);
        vector::populateVectorShapeCastLoweringPatterns(patterns);
        vector::populateVectorMaskOpLoweringPatterns(patterns);
        vector::populateVectorTransferLoweringPatterns(patterns,
                                                       /*maxTransferRank=*/1);
        vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
        vector::populateVectorStepLoweringPatterns(patterns);
        // A 0-d or one-element transfer (a scalar read through a strided
        // view, say) is a memref.load or store.
        vector::populateScalarVectorTransferLoweringPatterns(
            patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
        patterns.add<FmaToContractedMulAdd>(ctx);
        if (failed(applyPatternsGreedily(kernel, std::move(patterns))))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
