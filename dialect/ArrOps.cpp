//===- ArrOps.cpp - arr op verifiers, type rules and folders --------------===//
//
// The ops' verifiers and `inferReturnTypes` call the type rules of
// TypeInference.cpp; what is left here is structure (regions, symbols) and
// folding.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"
#include "dialect/TypeInference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace vmapc::arr;

#define GET_OP_CLASSES
#include "dialect/ArrOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Size limits
//===----------------------------------------------------------------------===//

LogicalResult vmapc::arr::verifyWithinSizeLimits(Operation *op) {
  auto check = [&](Type type, StringRef what, unsigned i) -> LogicalResult {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || checkedByteSize(shaped))
      return success();
    return op->emitOpError()
           << what << " #" << i << " has type " << type
           << ", past the size limits: " << describeLimitViolation(shaped)
           << " (every dimension is at most " << kMaxDimSize
           << " and every array holds fewer than 2^62 bytes)";
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v.getType(), "result", i)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult ConstantOp::verify() {
  if (!isa<ElementsAttr>(getValue()))
    return emitOpError("value must be an elements attribute");
  return success();
}

//===----------------------------------------------------------------------===//
// BroadcastInDimOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  return verifyBroadcastInDimOp(getLoc(), getOperand().getType(), getDims(),
                                getResult().getType());
}

/// If `reshape` only inserts size-1 dimensions into its operand's shape,
/// the position in its result of each operand dimension.
static std::optional<SmallVector<int64_t>> unitDimInsertion(ReshapeOp reshape) {
  ArrayRef<int64_t> in = reshape.getOperand().getType().getShape();
  ArrayRef<int64_t> out = reshape.getResult().getType().getShape();
  SmallVector<int64_t> positions;
  for (auto [k, size] : llvm::enumerate(out)) {
    if (positions.size() < in.size() && in[positions.size()] == size)
      positions.push_back(k);
    else if (size != 1)
      return std::nullopt;
  }
  if (positions.size() != in.size())
    return std::nullopt;
  return positions;
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getResult().getType())
    return getOperand();
  // broadcast_in_dim(reshape(x)) where the reshape only inserts size-1
  // dimensions (a keepdims reduction) broadcasts x directly: the inserted
  // dimensions are broadcast anyway. In place, so that the reduction feeds
  // the broadcast (and the fusion of its dispatch) with no reshape between.
  if (auto reshape = getOperand().getDefiningOp<ReshapeOp>()) {
    if (std::optional<SmallVector<int64_t>> positions =
            unitDimInsertion(reshape)) {
      SmallVector<int64_t> dims;
      for (int64_t k : *positions)
        dims.push_back(getDims()[k]);
      getOperandMutable().assign(reshape.getOperand());
      setDims(dims);
      return getResult();
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  return inferTransposeOp(location, adaptor.getOperand().getType(),
                          adaptor.getPerm(), types);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (llvm::equal(getPerm(), llvm::seq<int64_t>(0, getPerm().size())))
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  return verifyReshapeOp(getLoc(), getOperand().getType(),
                         getResult().getType());
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getResult().getType())
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// ConvertOp
//===----------------------------------------------------------------------===//

OpFoldResult ConvertOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getResult().getType())
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferConcatOp(location, TypeRange(adaptor.getPieces()),
                       static_cast<int64_t>(adaptor.getDim()), types);
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getPieces().size() == 1)
    return getPieces()[0];
  return {};
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  return verifySliceOp(getLoc(), getOperand().getType(), getStart(),
                       getStride(), getResult().getType());
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getResult().getType() &&
      llvm::all_of(getStart(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getStride(), [](int64_t s) { return s == 1; }))
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  return verifyIotaOp(getLoc(), getDimAttr().getInt(), getResult().getType());
}

//===----------------------------------------------------------------------===//
// ForOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  return inferGatherOp(location, adaptor.getOperand().getType(),
                       adaptor.getIndices().getType(),
                       static_cast<int64_t>(adaptor.getAxis()),
                       static_cast<int64_t>(adaptor.getBatchDims()), types);
}

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  return inferScatterOp(
      location, adaptor.getOperand().getType(), adaptor.getIndices().getType(),
      adaptor.getUpdates().getType(), static_cast<int64_t>(adaptor.getAxis()),
      static_cast<int64_t>(adaptor.getBatchDims()), types);
}

LogicalResult ForOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  return inferForOp(location, TypeRange(adaptor.getInits()), types);
}

LogicalResult ForOp::verify() {
  if (getTripCountAttr().getInt() < 0 ||
      getTripCountAttr().getInt() > vmapc::kMaxDimSize)
    return emitOpError() << "trip_count must be in [0, " << vmapc::kMaxDimSize
                         << "]";
  Block &body = getBodyBlock();
  auto index = RankedTensorType::get({}, IntegerType::get(getContext(), 32));
  size_t numArgs = 1 + getConsts().size() + getInits().size();
  if (body.getNumArguments() != numArgs)
    return emitOpError() << "body must have " << numArgs
                         << " arguments (index, consts, carries), has "
                         << body.getNumArguments();
  if (body.getArgument(0).getType() != index)
    return emitOpError("the body's first argument (the index) must be ")
           << index;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(
           getConsts().getTypes(), ValueRange(getConstArguments()).getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "const " << i << " has type " << std::get<0>(pair)
                           << " but its body argument " << std::get<1>(pair);
  for (auto [i, pair] : llvm::enumerate(llvm::zip(
           getInits().getTypes(), ValueRange(getCarryArguments()).getTypes())))
    if (std::get<0>(pair) != std::get<1>(pair))
      return emitOpError() << "carry " << i << " has type " << std::get<0>(pair)
                           << " but its body argument " << std::get<1>(pair);
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("body must end with arr.yield");
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError(
        "must yield one value per carry, of the carry's type");
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpT> static OpFoldResult foldReduce(OpT op) {
  if (op.getDims().empty())
    return op.getOperand();
  return {};
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMaxOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMinOp::fold(FoldAdaptor) { return foldReduce(*this); }

//===----------------------------------------------------------------------===//
// DotGeneralOp
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  return inferDotGeneralOp(location, adaptor.getLhs().getType(),
                           adaptor.getRhs().getType(), adaptor.getLhsBatch(),
                           adaptor.getRhsBatch(), adaptor.getLhsContract(),
                           adaptor.getRhsContract(), types);
}

//===----------------------------------------------------------------------===//
// VmapCallOp
//===----------------------------------------------------------------------===//

static SmallVector<BatchDim> axesList(ArrayAttr axes) {
  SmallVector<BatchDim> result;
  for (Attribute a : axes) {
    if (auto i = dyn_cast<IntegerAttr>(a))
      result.push_back(i.getInt());
    else
      result.push_back(std::nullopt);
  }
  return result;
}

SmallVector<BatchDim> VmapCallOp::getInAxesList() {
  return axesList(getInAxes());
}
SmallVector<BatchDim> VmapCallOp::getOutAxesList() {
  return axesList(getOutAxes());
}

LogicalResult VmapCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto fn =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!fn)
    return emitOpError() << "'" << getCallee() << "' does not name a function";
  FunctionType fnType = fn.getFunctionType();
  for (Attribute a : llvm::concat<Attribute>(llvm::to_vector(getInAxes()),
                                             llvm::to_vector(getOutAxes())))
    if (!isa<IntegerAttr, UnitAttr>(a))
      return emitOpError("axes must be integers or unit (none)");
  if (getInAxes().size() != getArgs().size() ||
      fnType.getNumInputs() != getArgs().size())
    return emitOpError() << "has " << getArgs().size() << " operands, "
                         << getInAxes().size() << " in_axes and a callee of "
                         << fnType.getNumInputs() << " parameters";
  if (getOutAxes().size() != getNumResults() ||
      fnType.getNumResults() != getNumResults())
    return emitOpError() << "has " << getNumResults() << " results, "
                         << getOutAxes().size() << " out_axes and a callee of "
                         << fnType.getNumResults() << " results";
  int64_t size = getAxisSize();
  if (size < 0 || size > vmapc::kMaxDimSize)
    return emitOpError() << "axis_size must be in [0, " << vmapc::kMaxDimSize
                         << "]";
  SmallVector<Type> operandTypes, resultTypes;
  if (failed(inferVmapCallOp(getLoc(), fnType, getInAxesList(),
                             getOutAxesList(), size, operandTypes,
                             resultTypes)))
    return failure();
  auto check = [&](TypeRange actual, TypeRange expected,
                   StringRef what) -> LogicalResult {
    for (auto [i, pair] : llvm::enumerate(llvm::zip(actual, expected)))
      if (std::get<0>(pair) != std::get<1>(pair))
        return emitOpError()
               << what << " " << i << " has type " << std::get<0>(pair)
               << ", expected " << std::get<1>(pair);
    return success();
  };
  return failure(failed(check(getArgs().getTypes(), operandTypes, "operand")) ||
                 failed(check(getResultTypes(), resultTypes, "result")));
}
