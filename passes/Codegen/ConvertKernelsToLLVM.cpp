//===- ConvertKernelsToLLVM.cpp - CPU kernels to LLVM in one conversion ---===//
//
// `--arr-convert-kernels-to-llvm`: the CPU kernels' vector, memref, math,
// arith, func, cf and ub ops to the LLVM dialect in one dialect conversion,
// where upstream's passes take one each (convert-vector-to-llvm,
// finalize-memref-to-llvm, ... then reconcile-unrealized-casts).
//
// Each of those passes walks the module, builds its own type converter and
// pattern set, and leaves unrealized casts at its boundary for the next one
// to see through: about a quarter of the CPU pipeline's MLIR time. Here the
// same populate functions, with the same options, fill one pattern set over
// one LLVMTypeConverter, and one partial conversion applies them; the ops
// out are the same. On the 17 bench programs the eight passes and the
// canonicalizer after them took 434 ms per ISA level in all, this pass and
// that canonicalizer 279 ms (bench/RESULTS.md, 2026-12-06).
//
// Before it, upstream's vector-to-vector lowerings, the greedy step that
// convert-vector-to-llvm runs first (ConvertVectorToLLVMPass.cpp, LLVM 22):
// after arr-cpu-lower-vectors and convert-vector-to-scf, what is left for
// it is rank-1 transfers (to loads, stores, masked ones at a boundary) and
// the odd broadcast or shape cast.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRCONVERTKERNELSTOLLVM
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// The greedy step that convert-vector-to-llvm runs before its conversion,
/// with that pass's default options (dot products for contractions,
/// element-wise transposes, 32-bit mask indices).
void lowerVectorsForLLVM(ModuleOp module) {
  RewritePatternSet patterns(module.getContext());
  vector::populateVectorToVectorCanonicalizationPatterns(patterns);
  vector::populateVectorBitCastLoweringPatterns(patterns);
  vector::populateVectorBroadcastLoweringPatterns(patterns);
  vector::populateVectorContractLoweringPatterns(
      patterns, vector::VectorContractLowering::Dot);
  vector::populateVectorMaskOpLoweringPatterns(patterns);
  vector::populateVectorShapeCastLoweringPatterns(patterns);
  vector::populateVectorInterleaveLoweringPatterns(patterns);
  vector::populateVectorTransposeLoweringPatterns(
      patterns, vector::VectorTransposeLowering::EltWise);
  // Transfers of rank > 1 were unrolled by convert-vector-to-scf.
  vector::populateVectorTransferLoweringPatterns(patterns,
                                                 /*maxTransferRank=*/1);
  vector::populateVectorMaskMaterializationPatterns(
      patterns, /*force32BitVectorIndices=*/true);
  vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
  vector::populateVectorStepLoweringPatterns(patterns);
  vector::populateVectorRankReducingFMAPattern(patterns);
  vector::populateVectorGatherLoweringPatterns(patterns);
  vector::populateVectorFromElementsUnrollPatterns(patterns);
  vector::populateVectorToElementsUnrollPatterns(patterns);
  (void)applyPatternsGreedily(module, std::move(patterns));
}

/// The op that a cast the conversion could not fold stands for: the
/// producer of its operand (the op of the region, for a block argument) or
/// a user of its result that is still outside the LLVM dialect, else the
/// cast itself.
Operation *unconvertedNeighbour(UnrealizedConversionCastOp cast) {
  auto outsideLLVM = [](Operation *op) {
    return op && !isa<UnrealizedConversionCastOp>(op) &&
           !isa<LLVM::LLVMDialect>(op->getDialect());
  };
  for (Value operand : cast.getInputs()) {
    Operation *producer = operand.getDefiningOp();
    if (auto argument = dyn_cast<BlockArgument>(operand))
      producer = argument.getOwner()->getParentOp();
    if (outsideLLVM(producer))
      return producer;
  }
  for (Operation *user : cast->getUsers())
    if (outsideLLVM(user))
      return user;
  return cast;
}

struct ArrConvertKernelsToLLVMPass
    : vmapc::impl::ArrConvertKernelsToLLVMBase<ArrConvertKernelsToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The range of arr-cpu-lower-vectors, which comes first.
    if (failed(vmapc::checkStage(module, getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    MLIRContext *ctx = module.getContext();
    lowerVectorsForLLVM(module);

    // The module carries no data layout: LLVM's defaults (64-bit index),
    // as each upstream pass derived them.
    LowerToLLVMOptions options(ctx);
    options.useBarePtrCallConv = true;
    LLVMTypeConverter converter(ctx, options);
    SymbolTableCollection symbolTables;
    RewritePatternSet patterns(ctx);
    vector::populateVectorTransferLoweringPatterns(patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns,
                                           /*reassociateFPReductions=*/true,
                                           /*force32BitVectorIndices=*/true);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns,
                                                   &symbolTables);
    populateMathToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns, &symbolTables);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    // Casts the conversion left where a value's producer and user were
    // rewritten at different times.
    SmallVector<UnrealizedConversionCastOp> casts;
    module.walk(
        [&](UnrealizedConversionCastOp cast) { casts.push_back(cast); });
    SmallVector<UnrealizedConversionCastOp> unresolved;
    reconcileUnrealizedCasts(casts, &unresolved);
    if (!unresolved.empty()) {
      Operation *culprit = unconvertedNeighbour(unresolved.front());
      culprit->emitOpError() << "has no conversion to the LLVM dialect";
      return signalPassFailure();
    }
  }
};

} // namespace
