//===- Loops.cpp - arr.for to scf.for -------------------------------------===//
//
// `arr.for N consts(...) iter_args(...)` becomes `scf.for %iv = 0 to N step 1
// iter_args(...)`: the body block is moved into the scf.for, its const
// arguments replaced by the const operands themselves (scf.for is not
// isolated from above) and its index argument by `%iv` as a `tensor<i32>`;
// `arr.yield` becomes `scf.yield` of each next carry materialized in the
// current carry's tensor, so that bufferization gives each carry one buffer
// for the whole loop; the buffer planner keeps a buffer used inside the loop
// live over the whole loop.
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace vmapc;

namespace {

struct ForOpLowering : OpConversionPattern<arr::ForOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::ForOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper = arith::ConstantIndexOp::create(
        rewriter, loc, op.getTripCountAttr().getInt());
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(rewriter, loc, lower, upper, step,
                                   adaptor.getInits());
    Block *body = loop.getBody();
    rewriter.setInsertionPointToStart(body);
    Value i32 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                           loop.getInductionVar());
    Value index = tensor::FromElementsOp::create(
        rewriter, loc, RankedTensorType::get({}, rewriter.getI32Type()), i32);
    SmallVector<Value> arguments{index};
    llvm::append_range(arguments, adaptor.getConsts());
    llvm::append_range(arguments, loop.getRegionIterArgs());
    rewriter.mergeBlocks(&op.getBodyBlock(), body, arguments);
    rewriter.replaceOp(op, loop.getResults());
    return success();
  }
};

struct YieldOpLowering : OpConversionPattern<arr::YieldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    if (!loop)
      return rewriter.notifyMatchFailure(op, "arr.for not lowered yet");
    // Each next carry is materialized in the current carry's tensor, so
    // that one-shot bufferization sees every yield equivalent to its
    // iter_arg (one buffer per carry for the whole loop, no allocation per
    // iteration). Empty-tensor elimination then lets the producer write
    // there directly; where that would clobber a value still read, the
    // analysis copies instead.
    //
    // A yielded value that no destination-style op computes (a block
    // argument, as when carries swap; a nested loop's result, which lives in
    // a carry's buffer; a view) is first copied into a new tensor: the copy
    // may be placed out of place, where materializing the value itself
    // could not avoid overwriting a carry that is still to be read.
    // All copies come before all materializations, so that no copy reads a
    // carry already overwritten.
    SmallVector<Value> values;
    for (auto [value, carry] :
         llvm::zip(adaptor.getValues(), loop.getRegionIterArgs())) {
      if (value != carry &&
          !value.getDefiningOp<DestinationStyleOpInterface>()) {
        auto type = cast<RankedTensorType>(value.getType());
        Value empty = tensor::EmptyOp::create(
            rewriter, op.getLoc(), type.getShape(), type.getElementType());
        value = linalg::CopyOp::create(rewriter, op.getLoc(), value, empty)
                    .getResult(0);
      }
      values.push_back(value);
    }
    SmallVector<Value> yielded;
    for (auto [value, carry] : llvm::zip(values, loop.getRegionIterArgs()))
      yielded.push_back(
          value == carry
              ? value
              : bufferization::MaterializeInDestinationOp::create(
                    rewriter, op.getLoc(), value.getType(), value, carry)
                    .getResult());
    rewriter.replaceOpWithNewOp<scf::YieldOp>(op, yielded);
    return success();
  }
};

} // namespace

void vmapc::populateLoopPatterns(RewritePatternSet &patterns) {
  patterns.add<ForOpLowering, YieldOpLowering>(patterns.getContext());
}
