//===- ArrToLinalg.cpp - the --convert-arr-to-linalg pass -----------------===//
//
// Sets up the conversion target (the arr dialect illegal; linalg, tensor,
// arith and math legal) and collects the patterns of each category from
// PopulatePatterns.h, as torch-mlir's TorchToLinalg.cpp. Functions, calls and
// returns are untouched: arr values are builtin tensors already.
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace vmapc {
#define GEN_PASS_DEF_CONVERTARRTOLINALG
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ConvertArrToLinalgPass
    : vmapc::impl::ConvertArrToLinalgBase<ConvertArrToLinalgPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Batched, vmapc::Stage::Linalg)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    ConversionTarget target(*ctx);
    target.addIllegalDialect<vmapc::arr::ArrDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           scf::SCFDialect,
                           bufferization::BufferizationDialect>();

    RewritePatternSet patterns(ctx);
    vmapc::populateElementwisePatterns(patterns);
    vmapc::populateReductionPatterns(patterns);
    vmapc::populateContractionPatterns(patterns);
    vmapc::populateShapePatterns(patterns);
    vmapc::populateIndexingPatterns(patterns);
    vmapc::populateLoopPatterns(patterns);

    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
