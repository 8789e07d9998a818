//===- CpuLowerVectors.cpp - vector ops to what LLVM vectorizes well ------===//
//
// `--arr-cpu-lower-vectors`: on bufferized kernels, the high-level vector
// ops that vectorization made become 1-D vector arithmetic, loads and
// stores, which `arr-convert-kernels-to-llvm` then maps to LLVM vectors (the
// order of upstream's vector lowering, as IREE's LLVMCPU vector lowering
// runs it): contractions to outer products, outer products to
// multiply-adds, multi-dimensional reductions to 1-D reductions, transposes
// to shuffles (a transposed broadcast to a broadcast), broadcasts, shape
// casts and transfers to loads and stores.
//
// With `avx-shuffles` (the AVX levels, x86-64-v3 and -v4), 8 x 8 and 4 x 8
// f32 transposes are the two-input shuffles of 8-lane rows that AVX code
// transposes with (unpcklps/unpckhps, shufps, vperm2f128) instead of
// upstream's shuffle of the whole flattened vector (64 or 32 lanes), which
// LLVM's instruction selection takes apart slowly: the host-level compile
// of the cosine 7.7% faster, of attention 7%, run time unchanged or faster
// (bench/RESULTS.md, 2026-12-06, fourth session).
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

#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Dialect/X86Vector/Transforms.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
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

/// vector.transpose of vector<8x8xf32> (or 1 x ... x 8 x 8) → the AVX
/// 8 x 8 transpose: rows interleaved in pairs (unpacklo/unpackhi), then in
/// 64-bit pairs (shufps 0x44 and 0xEE), then the 128-bit halves of rows i
/// and i + 4 (vperm2f128 0x20 and 0x31): 24 shuffles of two 8-lane vectors,
/// one AVX instruction each. The shuffles are x86vector's AVX2 helpers,
/// which emit vector.shuffle (x86vector's own 8 x 8 pattern blends with
/// inline assembly).
struct Transpose8x8F32ToAvxShuffles : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    // Leading unit dimensions (a 1 x 8 x 8 tile) are kept in place.
    VectorType type = op.getSourceVectorType();
    int64_t rank = type.getRank();
    ArrayRef<int64_t> shape = type.getShape();
    ArrayRef<int64_t> permutation = op.getPermutation();
    bool leadingKept =
        rank >= 2 &&
        llvm::all_of(llvm::seq<int64_t>(0, rank - 2), [&](int64_t d) {
          return shape[d] == 1 && permutation[d] == d;
        });
    if (!leadingKept || shape.take_back(2) != ArrayRef<int64_t>{8, 8} ||
        type.isScalable() || !type.getElementType().isF32() ||
        permutation.take_back(2) != ArrayRef<int64_t>{rank - 1, rank - 2})
      return rewriter.notifyMatchFailure(op, "not an 8 x 8 f32 transpose");
    namespace avx = x86vector::avx2::intrin;
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    // The position of row i: the leading zeros, then i.
    SmallVector<int64_t> position(rank - 1, 0);
    Value rows[8], pairs[8], quads[8];
    for (int64_t i = 0; i < 8; ++i) {
      position.back() = i;
      rows[i] = vector::ExtractOp::create(b, op.getVector(), position);
    }
    for (int i = 0; i < 8; i += 2) {
      pairs[i] = avx::mm256UnpackLoPs(b, rows[i], rows[i + 1]);
      pairs[i + 1] = avx::mm256UnpackHiPs(b, rows[i], rows[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
      quads[i] = avx::mm256ShufflePs(b, pairs[i], pairs[i + 2], 0x44);
      quads[i + 1] = avx::mm256ShufflePs(b, pairs[i], pairs[i + 2], 0xEE);
      quads[i + 2] = avx::mm256ShufflePs(b, pairs[i + 1], pairs[i + 3], 0x44);
      quads[i + 3] = avx::mm256ShufflePs(b, pairs[i + 1], pairs[i + 3], 0xEE);
    }
    Value result = ub::PoisonOp::create(b, type);
    for (int64_t i = 0; i < 4; ++i) {
      Value low = avx::mm256Permute2f128Ps(b, quads[i], quads[i + 4], 0x20);
      Value high = avx::mm256Permute2f128Ps(b, quads[i], quads[i + 4], 0x31);
      position.back() = i;
      result = vector::InsertOp::create(b, low, result, position);
      position.back() = i + 4;
      result = vector::InsertOp::create(b, high, result, position);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// vector.transpose of a vector.broadcast whose source keeps the order of
/// its non-unit dimensions → one broadcast of the source, shape_cast to
/// where the transpose moves it. Vectorization reads the A column of an
/// `m` x `n` contraction tile whose generic iterates the columns before the
/// rows (the RNN's `w @ h` batched over h, the kNN's distances, the
/// cosine's dot products) as vector<m>, broadcast along the columns (vector<n x
/// m>), then transposed to the tile's vector<m x n>. Upstream lowers that
/// transpose to a shuffle of the flattened vector (<256 x float> for AVX-512's
/// 8 x 32 tile), which LLVM then takes apart again into one splat a row, a step
/// of the tile's reduction loop at a time. As a broadcast of vector<m x 1>,
/// each row is the splat of one element from the start: the RNN's x86-64-v4
/// kernels 15% less time in LLVM's optimizer, its three levels' compile 6-8%
/// faster, the kNN's 7-9%, the cosine's 2-3%, their run time unchanged
/// (bench/RESULTS.md, 2026-12-07 fourteenth session).
struct TransposeOfBroadcastToBroadcast : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getVector().getDefiningOp<vector::BroadcastOp>();
    if (!broadcast)
      return rewriter.notifyMatchFailure(op, "not a transpose of a broadcast");
    VectorType resultType = op.getResultVectorType();
    if (resultType.isScalable())
      return rewriter.notifyMatchFailure(op, "scalable");
    auto sourceType = dyn_cast<VectorType>(broadcast.getSourceType());
    if (!sourceType) {
      // A splat stays a splat.
      rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, resultType,
                                                       broadcast.getSource());
      return success();
    }
    // The source's shape aligned to the broadcast's trailing dimensions, then
    // permuted as the transpose permutes the broadcast.
    int64_t rank = resultType.getRank();
    SmallVector<int64_t> aligned(rank - sourceType.getRank(), 1);
    llvm::append_range(aligned, sourceType.getShape());
    ArrayRef<int64_t> permutation = op.getPermutation();
    SmallVector<int64_t> moved(rank);
    int64_t lastNonUnit = -1;
    for (int64_t i = 0; i < rank; ++i) {
      moved[i] = aligned[permutation[i]];
      if (moved[i] == 1)
        continue;
      if (permutation[i] < lastNonUnit)
        return rewriter.notifyMatchFailure(op, "transposes the source");
      lastNonUnit = permutation[i];
    }
    Value source = broadcast.getSource();
    auto movedType = VectorType::get(moved, sourceType.getElementType());
    if (movedType != sourceType)
      source =
          vector::ShapeCastOp::create(rewriter, op.getLoc(), movedType, source);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, resultType, source);
    return success();
  }
};

struct ArrCpuLowerVectorsPass
    : vmapc::impl::ArrCpuLowerVectorsBase<ArrCpuLowerVectorsPass> {
  using ArrCpuLowerVectorsBase::ArrCpuLowerVectorsBase;

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
        patterns.add<TransposeOfBroadcastToBroadcast>(ctx);
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
        if (avxShuffles) {
          patterns.add<Transpose8x8F32ToAvxShuffles>(ctx, /*benefit=*/10);
          x86vector::avx2::populateSpecializedTransposeLoweringPatterns(
              patterns,
              x86vector::avx2::LoweringOptions().setTransposeOptions(
                  x86vector::avx2::TransposeLoweringOptions().lower4x8xf32()));
        }
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
