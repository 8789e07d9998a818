//===- OutputsToDestinations.cpp - entry results as output arguments ------===//
//
// Destination-passing style at the entry boundary (TOOLCHAIN pitfall 11):
// upstream `drop-equivalent-buffer-results` only handles private functions,
// and returning a buffer would need a copy into the caller's memory. Instead
// each result is materialised in a new output argument before bufferization
// (a donated input's argument, for an output that takes its bytes).
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "passes/ArrToLinalg/Utils.h"

namespace vmapc {
#define GEN_PASS_DEF_ARROUTPUTSTODESTINATIONS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// Whether `axes` (an ArrayAttr of i64 or unit) maps entry `i`.
static bool isMapped(ArrayAttr axes, unsigned i) {
  return axes && i < axes.size() && isa<IntegerAttr>(axes[i]);
}

struct ArrOutputsToDestinationsPass
    : vmapc::impl::ArrOutputsToDestinationsBase<ArrOutputsToDestinationsPass> {
  using ArrOutputsToDestinationsBase::ArrOutputsToDestinationsBase;
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Linalg,
                                 vmapc::Stage::Dispatched)))
      return signalPassFailure();
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::arr::isEntry(fn))
        continue;
      if (failed(convert(fn)))
        return signalPassFailure();
    }
  }

  LogicalResult convert(func::FuncOp fn) {
    MLIRContext *ctx = fn.getContext();
    auto inAxes =
        fn->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kInAxesAttrName);
    auto outAxes =
        fn->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kOutAxesAttrName);
    // Inputs are read-only: the runtime may pass the caller's own memory
    // (a whole chunk of a mapped input, or an unmapped input), so nothing
    // may be computed in place in them (a loop carry initialised from an
    // input, say); bufferization copies such a value into the arena first.
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      if (stageAll || isMapped(inAxes, i))
        fn.setArgAttr(i, vmapc::arr::ArrDialect::kStagingAttrName,
                      UnitAttr::get(ctx));
      fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                    BoolAttr::get(ctx, false));
    }

    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    unsigned numInputs = fn.getNumArguments();
    SmallVector<Type> resultTypes(fn.getResultTypes());
    // A donated input (docs/runtime.md, "Donation") is the buffer its output
    // is computed into: writable, and the output's own argument is left
    // unused (the caller passes the input's buffer as both; a staged chunk
    // goes through the input's slot both ways).
    SmallVector<std::optional<unsigned>> donor(resultTypes.size());
    for (unsigned i = 0; i < resultTypes.size(); ++i)
      if (auto k = fn.getResultAttrOfType<IntegerAttr>(
              i, vmapc::arr::ArrDialect::kDonatedFromAttrName)) {
        if (k.getInt() >= numInputs ||
            fn.getArgumentTypes()[k.getInt()] != resultTypes[i])
          return fn.emitOpError()
                 << "result " << i << " is donated input " << k.getInt()
                 << ", which is not an input of its type";
        donor[i] = static_cast<unsigned>(k.getInt());
        fn.setArgAttr(*donor[i],
                      bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(ctx, true));
      }
    for (auto [i, type] : llvm::enumerate(resultTypes)) {
      if (!isa<RankedTensorType>(type))
        return fn.emitOpError("entry results must be ranked tensors");
      SmallVector<NamedAttribute> attrs(fn.getResultAttrs(i));
      attrs.emplace_back(
          StringAttr::get(ctx, vmapc::arr::ArrDialect::kOutputAttrName),
          UnitAttr::get(ctx));
      attrs.emplace_back(
          StringAttr::get(
              ctx, bufferization::BufferizationDialect::kWritableAttrName),
          BoolAttr::get(ctx, true));
      if ((stageAll || isMapped(outAxes, i)) && !donor[i])
        attrs.emplace_back(
            StringAttr::get(ctx, vmapc::arr::ArrDialect::kStagingAttrName),
            UnitAttr::get(ctx));
      if (failed(fn.insertArgument(numInputs + i, type,
                                   DictionaryAttr::get(ctx, attrs),
                                   ret.getLoc())))
        return failure();
    }

    OpBuilder b(ret);
    // A value returned twice is written into its first output in place; the
    // later ones get a copy (one buffer cannot be two outputs). So does a
    // returned value that another op also updates in place (the init of a
    // destination-passing op, `y` of `return (y.at[0].add(1.0), y)`): its
    // output cannot be the buffer the update writes, and bufferization
    // cannot copy into a materialization's source. All copies come before
    // all materializations, so that none reads an output already written.
    auto isUpdatedInPlace = [](Value value) {
      return llvm::any_of(value.getUses(), [](OpOperand &use) {
        auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        return dps && dps.isDpsInit(&use);
      });
    };
    SmallVector<Value> values;
    llvm::SmallPtrSet<Value, 4> seen;
    for (Value value : ret.getOperands()) {
      if (!seen.insert(value).second || isUpdatedInPlace(value))
        value = vmapc::copyIntoNewTensor(b, ret.getLoc(), value);
      values.push_back(value);
    }
    for (auto [i, value] : llvm::enumerate(values)) {
      Value output = fn.getArgument(donor[i] ? *donor[i] : numInputs + i);
      // A result assembled piece by piece (`arr.concat`: insert_slices into
      // a tensor.empty) is assembled in the output itself: the empty tensor
      // (undefined contents, so any tensor may stand for it) becomes the
      // output argument, and every piece is written through a subview of it.
      Value root = value;
      while (auto insert = root.getDefiningOp<tensor::InsertSliceOp>())
        root = insert.getDest();
      if (root != value && root.getType() == value.getType())
        if (auto empty = root.getDefiningOp<tensor::EmptyOp>())
          empty.getResult().replaceAllUsesWith(output);
      // The tensor form: its result is unused; one-shot bufferization
      // writes `value` into the writable argument's buffer in place.
      bufferization::MaterializeInDestinationOp::create(b, ret.getLoc(), value,
                                                        output);
    }
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();
    BitVector allResults(resultTypes.size(), true);
    return fn.eraseResults(allResults);
  }
};

} // namespace
