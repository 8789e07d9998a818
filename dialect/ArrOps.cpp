//===- ArrOps.cpp - arr op verifiers and folders --------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"

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
// Helpers
//===----------------------------------------------------------------------===//

/// Checks that `dims` are unique, sorted and in [0, rank).
static LogicalResult verifyDimList(Operation *op, ArrayRef<int64_t> dims,
                                   int64_t rank, StringRef what) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank)
      return op->emitOpError() << what << " dimension " << d
                               << " is out of range for rank " << rank;
    if (i > 0 && dims[i - 1] >= d)
      return op->emitOpError() << what << " dimensions must be increasing";
  }
  return success();
}

/// The shape of `shape` without the dimensions in `dims` (sorted).
static SmallVector<int64_t> dropDims(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (auto [i, s] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      result.push_back(s);
  return result;
}

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
  auto in = getOperand().getType();
  auto out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element types of operand and result differ");
  ArrayRef<int64_t> dims = getDims();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError() << "needs one dimension per operand dimension ("
                         << in.getRank() << "), got " << dims.size();
  if (failed(verifyDimList(*this, dims, out.getRank(), "broadcast")))
    return failure();
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t s = in.getDimSize(i);
    if (s != 1 && s != out.getDimSize(d))
      return emitOpError() << "operand dimension " << i << " of size " << s
                           << " cannot broadcast to result dimension " << d
                           << " of size " << out.getDimSize(d);
  }
  return success();
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getResult().getType())
    return getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  auto in = getOperand().getType();
  auto out = getResult().getType();
  ArrayRef<int64_t> perm = getPerm();
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOpError() << "permutation has " << perm.size()
                         << " entries for rank " << in.getRank();
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError("perm is not a permutation");
    seen[p] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in.getDimSize(p));
  if (out != RankedTensorType::get(shape, in.getElementType()))
    return emitOpError() << "result type should be "
                         << RankedTensorType::get(shape, in.getElementType());
  return success();
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
  auto in = getOperand().getType();
  auto out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element types of operand and result differ");
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << in.getNumElements()
                         << " elements into " << out.getNumElements();
  return success();
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

LogicalResult ConcatOp::verify() {
  if (getPieces().empty())
    return emitOpError("needs at least one operand");
  auto out = getResult().getType();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= out.getRank())
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << out.getRank();
  int64_t total = 0;
  for (auto [i, piece] : llvm::enumerate(getPieces())) {
    auto t = cast<RankedTensorType>(piece.getType());
    if (t.getElementType() != out.getElementType() ||
        t.getRank() != out.getRank())
      return emitOpError() << "operand " << i << " has type " << t
                           << ", which differs from the result's dtype or rank";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != out.getDimSize(d))
        return emitOpError()
               << "operand " << i << " has size " << t.getDimSize(d)
               << " on dimension " << d << ", the result " << out.getDimSize(d);
    // Sizes are within the limits (Arr_Tensor), so only the sum can grow.
    std::optional<int64_t> sum = llvm::checkedAdd(total, t.getDimSize(dim));
    if (!sum || *sum > vmapc::kMaxDimSize)
      return emitOpError() << "operands add up to more than "
                           << vmapc::kMaxDimSize << " on dimension " << dim;
    total = *sum;
  }
  if (total != out.getDimSize(dim))
    return emitOpError() << "operands add up to " << total << " on dimension "
                         << dim << ", the result has " << out.getDimSize(dim);
  return success();
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
  auto in = getOperand().getType();
  auto out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element types of operand and result differ");
  ArrayRef<int64_t> start = getStart(), stride = getStride();
  if (static_cast<int64_t>(start.size()) != in.getRank() ||
      static_cast<int64_t>(stride.size()) != in.getRank() ||
      out.getRank() != in.getRank())
    return emitOpError() << "needs one start and one stride per dimension of "
                            "the operand and a result of the same rank";
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t n = out.getDimSize(d), size = in.getDimSize(d);
    if (stride[d] == 0)
      return emitOpError() << "stride of dimension " << d << " is 0";
    if (ShapedType::isDynamic(n) || ShapedType::isDynamic(size))
      return emitOpError("needs static shapes");
    // An empty result dimension reads nothing (a batch of 0 examples).
    if (n == 0)
      continue;
    std::optional<int64_t> span = llvm::checkedMul(stride[d], n - 1);
    std::optional<int64_t> last =
        span ? llvm::checkedAdd(start[d], *span) : std::nullopt;
    if (!last)
      return emitOpError() << "dimension " << d
                           << ": start + stride * (size - 1) overflows";
    if (start[d] < 0 || start[d] >= size || *last < 0 || *last >= size)
      return emitOpError() << "dimension " << d << " reads indices " << start[d]
                           << " to " << *last << ", outside [0, " << size
                           << ")";
  }
  return success();
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
  int64_t rank = getResult().getType().getRank();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// ForOp
//===----------------------------------------------------------------------===//

LogicalResult ForOp::verify() {
  if (getTripCountAttr().getInt() < 0 ||
      getTripCountAttr().getInt() > vmapc::kMaxDimSize)
    return emitOpError() << "trip_count must be in [0, " << vmapc::kMaxDimSize
                         << "]";
  if (getInits().getTypes() != getResultTypes())
    return emitOpError("result types must equal the types of the inits");
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

template <typename OpT> static LogicalResult verifyReduce(OpT op) {
  auto in = op.getOperand().getType();
  auto out = op.getResult().getType();
  if (failed(verifyDimList(op, op.getDims(), in.getRank(), "reduced")))
    return failure();
  auto expected = RankedTensorType::get(dropDims(in.getShape(), op.getDims()),
                                        in.getElementType());
  if (out != expected)
    return op.emitOpError() << "result type should be " << expected;
  return success();
}

template <typename OpT> static OpFoldResult foldReduce(OpT op) {
  if (op.getDims().empty())
    return op.getOperand();
  return {};
}

LogicalResult ReduceSumOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMaxOp::verify() { return verifyReduce(*this); }
LogicalResult ReduceMinOp::verify() { return verifyReduce(*this); }
OpFoldResult ReduceSumOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMaxOp::fold(FoldAdaptor) { return foldReduce(*this); }
OpFoldResult ReduceMinOp::fold(FoldAdaptor) { return foldReduce(*this); }

template <typename OpT> static LogicalResult verifyArgReduce(OpT op) {
  auto in = op.getOperand().getType();
  int64_t axis = op.getAxisAttr().getInt();
  if (axis < 0 || axis >= in.getRank())
    return op.emitOpError()
           << "axis " << axis << " is out of range for rank " << in.getRank();
  auto expected =
      RankedTensorType::get(dropDims(in.getShape(), {axis}),
                            op.getResult().getType().getElementType());
  if (op.getResult().getType() != expected)
    return op.emitOpError() << "result type should be " << expected;
  return success();
}

LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }

//===----------------------------------------------------------------------===//
// DotGeneralOp
//===----------------------------------------------------------------------===//

LogicalResult DotGeneralOp::verify() {
  auto lhs = getLhs().getType();
  auto rhs = getRhs().getType();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != getResult().getType().getElementType())
    return emitOpError("operands and result must have one element type");
  if (getLhsBatch().size() != getRhsBatch().size())
    return emitOpError("lhs_batch and rhs_batch differ in length");
  if (getLhsContract().size() != getRhsContract().size())
    return emitOpError("lhs_contract and rhs_contract differ in length");
  auto checkSide = [&](RankedTensorType t, ArrayRef<int64_t> batch,
                       ArrayRef<int64_t> contract,
                       StringRef side) -> LogicalResult {
    SmallVector<bool> used(t.getRank(), false);
    for (int64_t d : llvm::concat<const int64_t>(batch, contract)) {
      if (d < 0 || d >= t.getRank() || used[d])
        return emitOpError() << side << " dimension " << d
                             << " is out of range or used twice";
      used[d] = true;
    }
    return success();
  };
  if (failed(checkSide(lhs, getLhsBatch(), getLhsContract(), "lhs")) ||
      failed(checkSide(rhs, getRhsBatch(), getRhsContract(), "rhs")))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [l, r] : llvm::zip(getLhsBatch(), getRhsBatch())) {
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError() << "batch dimensions " << l << " and " << r
                           << " differ in size";
    shape.push_back(lhs.getDimSize(l));
  }
  for (auto [l, r] : llvm::zip(getLhsContract(), getRhsContract()))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOpError() << "contracting dimensions " << l << " and " << r
                           << " differ in size (" << lhs.getDimSize(l) << " vs "
                           << rhs.getDimSize(r) << ")";
  auto addFree = [&](RankedTensorType t, ArrayRef<int64_t> batch,
                     ArrayRef<int64_t> contract) {
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
        shape.push_back(t.getDimSize(d));
  };
  addFree(lhs, getLhsBatch(), getLhsContract());
  addFree(rhs, getRhsBatch(), getRhsContract());
  auto expected = RankedTensorType::get(shape, lhs.getElementType());
  if (getResult().getType() != expected)
    return emitOpError() << "result type should be " << expected;
  return success();
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
  // Operand i is the callee's parameter with `size` inserted at in_axes[i].
  auto check = [&](Type actual, Type perExample, BatchDim axis, StringRef what,
                   unsigned i) -> LogicalResult {
    auto pe = dyn_cast<RankedTensorType>(perExample);
    if (!pe)
      return emitOpError() << what << " " << i << " is not a ranked tensor";
    Type expected = pe;
    if (axis) {
      if (*axis < 0 || *axis > pe.getRank())
        return emitOpError()
               << what << " " << i << ": axis " << *axis
               << " is out of range for rank " << pe.getRank() + 1;
      expected = insertDim(pe, *axis, size);
    }
    if (actual != expected)
      return emitOpError() << what << " " << i << " has type " << actual
                           << ", expected " << expected;
    return success();
  };
  SmallVector<BatchDim> in = getInAxesList(), out = getOutAxesList();
  for (auto [i, arg] : llvm::enumerate(getArgs()))
    if (failed(check(arg.getType(), fnType.getInput(i), in[i], "operand", i)))
      return failure();
  for (auto [i, res] : llvm::enumerate(getResults()))
    if (failed(check(res.getType(), fnType.getResult(i), out[i], "result", i)))
      return failure();
  return success();
}
