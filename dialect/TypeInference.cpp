//===- TypeInference.cpp - the type rule of every arr op ------------------===//
//
// See TypeInference.h. Messages name dimensions and types as the verifier
// prints them; the front end checks its own, source-level, rules before it
// builds an op, so a failure here on imported IR is a bug in vmapc.
//
//===----------------------------------------------------------------------===//

#include "dialect/TypeInference.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace vmapc::arr;

/// Checks that `dims` are increasing and in [0, rank).
static LogicalResult verifyDimList(std::optional<Location> location,
                                   ArrayRef<int64_t> dims, int64_t rank,
                                   StringRef what) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= rank)
      return emitOptionalError(location, what, " dimension ", d,
                               " is out of range for rank ", rank);
    if (i > 0 && dims[i - 1] >= d)
      return emitOptionalError(location, what,
                               " dimensions must be increasing");
  }
  return success();
}

/// The shape of `shape` without the dimensions in `dims`.
static SmallVector<int64_t> dropDims(ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (auto [i, s] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      result.push_back(s);
  return result;
}

//===----------------------------------------------------------------------===//
// Inferred result types
//===----------------------------------------------------------------------===//

LogicalResult
vmapc::arr::inferCmpOp(std::optional<Location> location, Type lhs, Type rhs,
                       SmallVectorImpl<Type> &inferredReturnTypes) {
  if (lhs != rhs)
    return emitOptionalError(location, "operands have different types: ", lhs,
                             " and ", rhs);
  auto t = cast<RankedTensorType>(lhs);
  inferredReturnTypes.push_back(
      RankedTensorType::get(t.getShape(), IntegerType::get(t.getContext(), 1)));
  return success();
}

LogicalResult
vmapc::arr::inferTransposeOp(std::optional<Location> location, Type operand,
                             ArrayRef<int64_t> perm,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  auto in = cast<RankedTensorType>(operand);
  if (static_cast<int64_t>(perm.size()) != in.getRank())
    return emitOptionalError(location, "permutation has ", perm.size(),
                             " entries for rank ", in.getRank());
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOptionalError(location, "perm is not a permutation");
    seen[p] = true;
    shape.push_back(in.getDimSize(p));
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, in.getElementType()));
  return success();
}

LogicalResult
vmapc::arr::inferConcatOp(std::optional<Location> location, TypeRange pieces,
                          int64_t dim,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  if (pieces.empty())
    return emitOptionalError(location, "needs at least one operand");
  auto first = cast<RankedTensorType>(pieces.front());
  if (dim < 0 || dim >= first.getRank())
    return emitOptionalError(location, "dim ", dim,
                             " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [i, piece] : llvm::enumerate(pieces)) {
    auto t = cast<RankedTensorType>(piece);
    if (t.getElementType() != first.getElementType() ||
        t.getRank() != first.getRank())
      return emitOptionalError(location, "operand ", i, " has type ", t,
                               ", which differs from operand 0's dtype or "
                               "rank (",
                               first, ")");
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != dim && t.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(location, "operand ", i, " has size ",
                                 t.getDimSize(d), " on dimension ", d,
                                 ", operand 0 ", first.getDimSize(d));
    std::optional<int64_t> sum =
        llvm::checkedAdd(shape[dim], t.getDimSize(dim));
    if (!sum)
      return emitOptionalError(location,
                               "operands add up to more than 2^63 "
                               "on dimension ",
                               dim);
    shape[dim] = *sum;
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult
vmapc::arr::inferReduceOp(std::optional<Location> location, Type operand,
                          ArrayRef<int64_t> dims,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  auto in = cast<RankedTensorType>(operand);
  if (failed(verifyDimList(location, dims, in.getRank(), "reduced")))
    return failure();
  inferredReturnTypes.push_back(RankedTensorType::get(
      dropDims(in.getShape(), dims), in.getElementType()));
  return success();
}

LogicalResult
vmapc::arr::inferArgReduceOp(std::optional<Location> location, Type operand,
                             int64_t axis,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  auto in = cast<RankedTensorType>(operand);
  if (axis < 0 || axis >= in.getRank())
    return emitOptionalError(location, "axis ", axis,
                             " is out of range for rank ", in.getRank());
  inferredReturnTypes.push_back(RankedTensorType::get(
      dropDims(in.getShape(), {axis}), IntegerType::get(in.getContext(), 32)));
  return success();
}

LogicalResult vmapc::arr::inferDotGeneralOp(
    std::optional<Location> location, Type lhsType, Type rhsType,
    ArrayRef<int64_t> lhsBatch, ArrayRef<int64_t> rhsBatch,
    ArrayRef<int64_t> lhsContract, ArrayRef<int64_t> rhsContract,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  auto lhs = cast<RankedTensorType>(lhsType);
  auto rhs = cast<RankedTensorType>(rhsType);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(location,
                             "operands and result must have one element type");
  if (lhsBatch.size() != rhsBatch.size())
    return emitOptionalError(location,
                             "lhs_batch and rhs_batch differ in length");
  if (lhsContract.size() != rhsContract.size())
    return emitOptionalError(location,
                             "lhs_contract and rhs_contract differ in length");
  auto checkSide = [&](RankedTensorType t, ArrayRef<int64_t> batch,
                       ArrayRef<int64_t> contract,
                       StringRef side) -> LogicalResult {
    SmallVector<bool> used(t.getRank(), false);
    for (int64_t d : llvm::concat<const int64_t>(batch, contract)) {
      if (d < 0 || d >= t.getRank() || used[d])
        return emitOptionalError(location, side, " dimension ", d,
                                 " is out of range or used twice");
      used[d] = true;
    }
    return success();
  };
  if (failed(checkSide(lhs, lhsBatch, lhsContract, "lhs")) ||
      failed(checkSide(rhs, rhsBatch, rhsContract, "rhs")))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [l, r] : llvm::zip(lhsBatch, rhsBatch)) {
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(location, "batch dimensions ", l, " and ", r,
                               " differ in size");
    shape.push_back(lhs.getDimSize(l));
  }
  for (auto [l, r] : llvm::zip(lhsContract, rhsContract))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(location, "contracting dimensions ", l, " and ",
                               r, " differ in size (", lhs.getDimSize(l),
                               " vs ", rhs.getDimSize(r), ")");
  auto addFree = [&](RankedTensorType t, ArrayRef<int64_t> batch,
                     ArrayRef<int64_t> contract) {
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
        shape.push_back(t.getDimSize(d));
  };
  addFree(lhs, lhsBatch, lhsContract);
  addFree(rhs, rhsBatch, rhsContract);
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

/// The shape a gather of `operand` at `indices` along `axis` with `batchDims`
/// leading batch dimensions gives (shared by gather and scatter).
static FailureOr<RankedTensorType>
gatheredType(std::optional<Location> location, RankedTensorType operand,
             RankedTensorType indices, int64_t axis, int64_t batchDims) {
  int64_t rank = operand.getRank();
  if (batchDims < 0 || batchDims > indices.getRank())
    return emitOptionalError(location, "batch_dims ", batchDims,
                             " is out of range for indices of rank ",
                             indices.getRank());
  if (axis < batchDims || axis >= rank)
    return emitOptionalError(location, "axis ", axis, " is out of range [",
                             batchDims, ", ", rank,
                             ") (after the batch dimensions, inside the "
                             "operand of rank ",
                             rank, ")");
  for (int64_t d = 0; d < batchDims; ++d)
    if (operand.getDimSize(d) != indices.getDimSize(d))
      return emitOptionalError(location, "batch dimension ", d, " has size ",
                               operand.getDimSize(d), " in the operand and ",
                               indices.getDimSize(d), " in the indices");
  SmallVector<int64_t> shape(operand.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape().drop_front(batchDims));
  llvm::append_range(shape, operand.getShape().drop_front(axis + 1));
  return RankedTensorType::get(shape, operand.getElementType());
}

LogicalResult
vmapc::arr::inferGatherOp(std::optional<Location> location, Type operand,
                          Type indices, int64_t axis, int64_t batchDims,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<RankedTensorType> type =
      gatheredType(location, cast<RankedTensorType>(operand),
                   cast<RankedTensorType>(indices), axis, batchDims);
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(*type);
  return success();
}

LogicalResult
vmapc::arr::inferScatterOp(std::optional<Location> location, Type operand,
                           Type indices, Type updates, int64_t axis,
                           int64_t batchDims,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<RankedTensorType> expected =
      gatheredType(location, cast<RankedTensorType>(operand),
                   cast<RankedTensorType>(indices), axis, batchDims);
  if (failed(expected))
    return failure();
  if (updates != *expected)
    return emitOptionalError(location, "updates have type ", updates,
                             ", expected ", *expected,
                             " (what a gather at these indices reads)");
  inferredReturnTypes.push_back(operand);
  return success();
}

LogicalResult
vmapc::arr::inferForOp(std::optional<Location>, TypeRange inits,
                       SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, inits);
  return success();
}

LogicalResult vmapc::arr::inferVmapCallOp(
    std::optional<Location> location, FunctionType callee,
    ArrayRef<BatchDim> inAxes, ArrayRef<BatchDim> outAxes, int64_t axisSize,
    SmallVectorImpl<Type> &operandTypes, SmallVectorImpl<Type> &resultTypes) {
  if (inAxes.size() != callee.getNumInputs() ||
      outAxes.size() != callee.getNumResults())
    return emitOptionalError(location, "has ", inAxes.size(), " in_axes and ",
                             outAxes.size(), " out_axes for a callee of ",
                             callee.getNumInputs(), " parameters and ",
                             callee.getNumResults(), " results");
  auto batched = [&](Type perExample, BatchDim axis, StringRef what, unsigned i,
                     SmallVectorImpl<Type> &out) -> LogicalResult {
    auto pe = dyn_cast<RankedTensorType>(perExample);
    if (!pe)
      return emitOptionalError(location, what, " ", i,
                               " is not a ranked tensor");
    if (!axis) {
      out.push_back(pe);
      return success();
    }
    if (*axis < 0 || *axis > pe.getRank())
      return emitOptionalError(location, what, " ", i, ": axis ", *axis,
                               " is out of range for rank ", pe.getRank() + 1);
    out.push_back(insertDim(pe, *axis, axisSize));
    return success();
  };
  for (auto [i, axis] : llvm::enumerate(inAxes))
    if (failed(batched(callee.getInput(i), axis, "operand", i, operandTypes)))
      return failure();
  for (auto [j, axis] : llvm::enumerate(outAxes))
    if (failed(batched(callee.getResult(j), axis, "result", j, resultTypes)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Verified result types
//===----------------------------------------------------------------------===//

LogicalResult
vmapc::arr::verifyBroadcastInDimOp(std::optional<Location> location,
                                   RankedTensorType in, ArrayRef<int64_t> dims,
                                   RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return emitOptionalError(location,
                             "element types of operand and result differ");
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOptionalError(location,
                             "needs one dimension per operand dimension (",
                             in.getRank(), "), got ", dims.size());
  if (failed(verifyDimList(location, dims, out.getRank(), "broadcast")))
    return failure();
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t s = in.getDimSize(i);
    if (s != 1 && s != out.getDimSize(d))
      return emitOptionalError(location, "operand dimension ", i, " of size ",
                               s, " cannot broadcast to result dimension ", d,
                               " of size ", out.getDimSize(d));
  }
  return success();
}

LogicalResult vmapc::arr::verifyReshapeOp(std::optional<Location> location,
                                          RankedTensorType in,
                                          RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return emitOptionalError(location,
                             "element types of operand and result differ");
  if (in.getNumElements() != out.getNumElements())
    return emitOptionalError(location, "cannot reshape ", in.getNumElements(),
                             " elements into ", out.getNumElements());
  return success();
}

LogicalResult vmapc::arr::verifySliceOp(std::optional<Location> location,
                                        RankedTensorType in,
                                        ArrayRef<int64_t> start,
                                        ArrayRef<int64_t> stride,
                                        RankedTensorType out) {
  if (in.getElementType() != out.getElementType())
    return emitOptionalError(location,
                             "element types of operand and result differ");
  if (static_cast<int64_t>(start.size()) != in.getRank() ||
      static_cast<int64_t>(stride.size()) != in.getRank() ||
      out.getRank() != in.getRank())
    return emitOptionalError(location,
                             "needs one start and one stride per dimension "
                             "of the operand and a result of the same rank");
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t n = out.getDimSize(d), size = in.getDimSize(d);
    if (stride[d] == 0)
      return emitOptionalError(location, "stride of dimension ", d, " is 0");
    if (ShapedType::isDynamic(n) || ShapedType::isDynamic(size))
      return emitOptionalError(location, "needs static shapes");
    // An empty result dimension reads nothing (a batch of 0 examples).
    if (n == 0)
      continue;
    std::optional<int64_t> span = llvm::checkedMul(stride[d], n - 1);
    std::optional<int64_t> last =
        span ? llvm::checkedAdd(start[d], *span) : std::nullopt;
    if (!last)
      return emitOptionalError(location, "dimension ", d,
                               ": start + stride * (size - 1) overflows");
    if (start[d] < 0 || start[d] >= size || *last < 0 || *last >= size)
      return emitOptionalError(location, "dimension ", d, " reads indices ",
                               start[d], " to ", *last, ", outside [0, ", size,
                               ")");
  }
  return success();
}

LogicalResult vmapc::arr::verifyIotaOp(std::optional<Location> location,
                                       int64_t dim, RankedTensorType result) {
  if (dim < 0 || dim >= result.getRank())
    return emitOptionalError(location, "dim ", dim,
                             " is out of range for rank ", result.getRank());
  return success();
}
