//===- TensorSubsetModels.cpp - subset interfaces of tensor slices --------===//

#include "passes/TensorSubsetModels.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SubsetOpInterface.h"

using namespace mlir;

namespace {

/// Whether two components of a slice are equal; failure when value bounds
/// cannot tell.
FailureOr<bool> areEqualComponents(OpFoldResult a, OpFoldResult b) {
  // The same value is equal to itself; value bounds answers failure when
  // the value's constraints cannot all hold (a loop that never runs).
  if (a == b)
    return true;
  std::optional<int64_t> constantA = getConstantIntValue(a);
  std::optional<int64_t> constantB = getConstantIntValue(b);
  if (constantA && constantB)
    return *constantA == *constantB;
  return ValueBoundsConstraintSet::areEqual(a, b);
}

/// The subset a slice op reads or writes: its offsets, sizes and strides.
template <typename SliceOp>
struct SliceSubsetModel
    : SubsetOpInterface::ExternalModel<SliceSubsetModel<SliceOp>, SliceOp> {
  FailureOr<HyperrectangularSlice>
  getAccessedHyperrectangularSlice(Operation *op) const {
    return HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(op));
  }

  /// detail::defaultOperatesOnEquivalentSubset with the fast comparison.
  bool operatesOnEquivalentSubset(
      Operation *op, SubsetOpInterface candidate,
      function_ref<bool(Value, Value)> equivalenceFn) const {
    FailureOr<HyperrectangularSlice> other =
        candidate.getAccessedHyperrectangularSlice();
    if (failed(other))
      return false;
    if (!equivalenceFn(cast<SubsetOpInterface>(op).getTensorContainer(),
                       candidate.getTensorContainer()))
      return false;
    FailureOr<bool> equivalent = vmapc::areEquivalentSlices(
        HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(op)),
        *other);
    return succeeded(equivalent) && *equivalent;
  }
};

struct ExtractSliceExtractionModel
    : SubsetExtractionOpInterface::ExternalModel<ExtractSliceExtractionModel,
                                                 tensor::ExtractSliceOp> {
  OpOperand &getSourceOperand(Operation *op) const {
    return cast<tensor::ExtractSliceOp>(op).getSourceMutable();
  }
};

/// tensor.insert_slice and tensor.parallel_insert_slice: the source is
/// written into the destination's slice, which an extract_slice of the
/// same offsets, sizes and strides reads back.
template <typename InsertOp>
struct InsertSliceInsertionModel
    : SubsetInsertionOpInterface::ExternalModel<
          InsertSliceInsertionModel<InsertOp>, InsertOp> {
  OpOperand &getSourceOperand(Operation *op) const {
    return cast<InsertOp>(op).getSourceMutable();
  }

  OpOperand &getDestinationOperand(Operation *op) const {
    return cast<InsertOp>(op).getDestMutable();
  }

  Value buildSubsetExtraction(Operation *op, OpBuilder &builder,
                              Location loc) const {
    auto insert = cast<InsertOp>(op);
    return tensor::ExtractSliceOp::create(
        builder, loc, insert.getSourceType(), insert.getDest(),
        insert.getMixedOffsets(), insert.getMixedSizes(),
        insert.getMixedStrides());
  }

  SmallVector<Value>
  getValuesNeededToBuildSubsetExtraction(Operation *op) const {
    auto insert = cast<InsertOp>(op);
    SmallVector<Value> values(insert.getOffsets());
    llvm::append_range(values, insert.getSizes());
    llvm::append_range(values, insert.getStrides());
    values.push_back(insert.getDest());
    return values;
  }
};

} // namespace

FailureOr<bool> vmapc::areEquivalentSlices(const HyperrectangularSlice &a,
                                           const HyperrectangularSlice &b) {
  // Offsets, then sizes, then strides, each in order, as upstream compares
  // them: the first component value bounds cannot decide is a failure, the
  // first unequal one false.
  for (auto [componentsA, componentsB] :
       {std::make_pair(a.getMixedOffsets(), b.getMixedOffsets()),
        std::make_pair(a.getMixedSizes(), b.getMixedSizes()),
        std::make_pair(a.getMixedStrides(), b.getMixedStrides())}) {
    for (auto [componentA, componentB] :
         llvm::zip_equal(componentsA, componentsB)) {
      FailureOr<bool> equal = areEqualComponents(componentA, componentB);
      if (failed(equal) || !*equal)
        return equal;
    }
  }
  return true;
}

void vmapc::registerTensorSubsetModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    // SubsetOpInterface first: the other two require it.
    tensor::ExtractSliceOp::attachInterface<
        SliceSubsetModel<tensor::ExtractSliceOp>, ExtractSliceExtractionModel>(
        *context);
    tensor::InsertSliceOp::attachInterface<
        SliceSubsetModel<tensor::InsertSliceOp>,
        InsertSliceInsertionModel<tensor::InsertSliceOp>>(*context);
    tensor::ParallelInsertSliceOp::attachInterface<
        SliceSubsetModel<tensor::ParallelInsertSliceOp>,
        InsertSliceInsertionModel<tensor::ParallelInsertSliceOp>>(*context);
  });
}
