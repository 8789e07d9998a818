//===- Loops.cpp - arr.for to scf.for -------------------------------------===//
//
// `arr.for N consts(...) iter_args(...)` becomes `scf.for %iv = 0 to N step 1
// iter_args(...)`: the body block is moved into the scf.for, its const
// arguments replaced by the const operands themselves (scf.for is not
// isolated from above) and its index argument by `%iv` as a `tensor<i32>`;
// `arr.yield` becomes `scf.yield` of each next carry, copied and
// materialized in the current carry's tensor, so that bufferization gives
// each carry one buffer for the whole loop; the buffer planner keeps a
// buffer used inside the loop live over the whole loop.
//
//===----------------------------------------------------------------------===//

#include "passes/ArrToLinalg/PopulatePatterns.h"
#include "passes/ArrToLinalg/Utils.h"

#include "dialect/ArrDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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
    int64_t tripCount = op.getTripCountAttr().getInt();
    // No loop for 0 or 1 iterations: the inits, or the body once. (The
    // scf.for canonicalizations would fold such loops later, leaving
    // materializations in carries that only make sense inside a loop.)
    if (tripCount == 0) {
      rewriter.replaceOp(op, adaptor.getInits());
      return success();
    }
    if (tripCount == 1) {
      SmallVector<Value> arguments{arr::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({}, rewriter.getI32Type()),
              rewriter.getI32IntegerAttr(0).getValue()))};
      llvm::append_range(arguments, adaptor.getConsts());
      llvm::append_range(arguments, adaptor.getInits());
      auto yield = cast<arr::YieldOp>(op.getBodyBlock().getTerminator());
      SmallVector<Value> results(yield.getValues());
      rewriter.inlineBlockBefore(&op.getBodyBlock(), op, arguments);
      rewriter.eraseOp(yield);
      rewriter.replaceOp(op, results);
      return success();
    }
    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, tripCount);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    // Each carry gets a buffer of its own, updated in place every
    // iteration. An init that no destination-style op computes (an entry
    // argument, which is read-only; a block argument; a constant) or that
    // starts two carries is copied into a new tensor first, so that the
    // loop never has to update a buffer it does not own.
    SmallVector<Value> inits;
    llvm::SmallPtrSet<Value, 4> seen;
    for (Value init : adaptor.getInits()) {
      bool repeated = !seen.insert(init).second;
      if (repeated || !init.getDefiningOp<DestinationStyleOpInterface>())
        init = copyIntoNewTensor(rewriter, loc, init);
      inits.push_back(init);
    }
    auto loop = scf::ForOp::create(rewriter, loc, lower, upper, step, inits);
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

/// Whether `value` is `carry` updated in place: the result of a
/// destination-style op (a scatter's linalg.generic) whose destination is
/// `carry`, or is such an update of it.
bool updatesInPlace(Value value, Value carry) {
  while (auto result = dyn_cast<OpResult>(value)) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(result.getOwner());
    if (!dps)
      return false;
    value = dps.getTiedOpOperand(result)->get();
    if (value == carry)
      return true;
  }
  return false;
}

struct YieldOpLowering : OpConversionPattern<arr::YieldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arr::YieldOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
    if (!loop)
      return rewriter.notifyMatchFailure(op, "arr.for not lowered yet");
    // Each next carry is copied into a new tensor, which is materialized in
    // the current carry's tensor, so that one-shot bufferization sees every
    // yield equivalent to its iter_arg: one buffer per carry for the whole
    // loop, no allocation per iteration. Empty-tensor elimination then makes
    // the copy write into the carry's buffer. The copy is what keeps this
    // bufferizable whatever the body does: the value's producer keeps its
    // own buffer, so no op ever has to overwrite a carry that a later op of
    // the iteration still reads (carries swapped, one value yielded to two
    // carries, a nested loop's result living in a carry's buffer); where
    // two copies would still clash, the analysis may place one out of
    // place. All copies come before all materializations, so that no copy
    // reads a carry already overwritten. A carry yielded unchanged needs
    // neither, and a carry updated in place (`h.at[i].add(1)`) no copy: its
    // update writes the carry's buffer (or, where the carry is still read
    // after it, a copy that bufferization makes), and the materialization
    // is then a copy onto itself, which folds away.
    SmallVector<Value> values;
    for (auto [value, carry] :
         llvm::zip(adaptor.getValues(), loop.getRegionIterArgs()))
      values.push_back(value == carry || updatesInPlace(value, carry)
                           ? value
                           : copyIntoNewTensor(rewriter, op.getLoc(), value));
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
