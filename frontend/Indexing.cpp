//===- Indexing.cpp - x[...] and x.at[...] --------------------------------===//
//
// See Indexing.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/Indexing.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;

FailureOr<Value> IndexingEmitter::evalIndex(Expr *expr, bool allowArray,
                                            BodyContext &ctx) {
  FailureOr<ExprValue> v = evaluator.eval(expr, ctx);
  if (failed(v))
    return failure();
  Type i32 = IntegerType::get(ic.getContext(), 32);
  if (v->kind == ExprValue::floatLit ||
      (v->kind == ExprValue::arrayLit && v->isFloatArray))
    return ic.error(expr->getLoc(),
                    "an index must be an integer, got the " +
                        (v->kind == ExprValue::floatLit
                             ? "literal " + v->text
                             : std::string("literal array of floats")));
  if (v->isWeak()) {
    if (v->kind == ExprValue::arrayLit && !allowArray)
      return ic.error(expr->getLoc(),
                      "x[...] takes scalar indices; for an array of indices "
                      "write take(x, idx, axis=k)");
    return typing.materialize(
        *v, i32,
        v->kind == ExprValue::arrayLit ? v->shape : SmallVector<int64_t>(),
        expr->getLoc(), ctx.b, expr->getLoc());
  }
  auto type = cast<RankedTensorType>(v->value.getType());
  if (!type.getElementType().isInteger(32))
    return ic.error(expr->getLoc(),
                    "an index must be i32, got " + typeStr(type) +
                        (type.getElementType().isF32()
                             ? " (convert it with i32(...))"
                             : " (boolean masks are not supported; select with "
                               "where(mask, x, y))"));
  if (type.getRank() != 0 && !allowArray)
    return ic.error(expr->getLoc(),
                    "x[...] takes scalar indices, got " + typeStr(type) +
                        "; for an array of indices write take(x, idx, "
                        "axis=k)");
  return v->value;
}

FailureOr<ExprValue> IndexingEmitter::emitIndex(SliceExpr *expr,
                                                BodyContext &ctx) {
  FailureOr<Value> base = evaluator.evalTensor(expr->base.get(), ctx);
  if (failed(base))
    return failure();
  auto t = cast<RankedTensorType>(base->getType());
  FailureOr<SliceBounds> bounds = typing.resolveSlice(expr, t);
  if (failed(bounds))
    return failure();
  Location at = ic.loc(expr->getLoc());
  Value result = *base;
  if (!bounds->isFull) {
    bool wholeSlice =
        ArrayRef<int64_t>(bounds->shape) == t.getShape() &&
        llvm::all_of(bounds->start, [](int64_t s) { return s == 0; }) &&
        llvm::all_of(bounds->stride, [](int64_t s) { return s == 1; });
    if (!wholeSlice) {
      auto sliced = RankedTensorType::get(bounds->shape, t.getElementType());
      result = arr::SliceOp::create(ctx.b, at, sliced, result, bounds->start,
                                    bounds->stride);
    }
    // Integer indices drop their dimensions, new axes add theirs.
    if (bounds->kept != bounds->shape)
      result = arr::ReshapeOp::create(
          ctx.b, at, RankedTensorType::get(bounds->kept, t.getElementType()),
          result);
  }
  if (!bounds->hasComputed)
    return ExprValue::ofTensor(result);
  // Each computed index gathers its dimension of what the static part
  // kept (new axes included), in order: a gather drops the dimension, so
  // the later ones move up by one each time.
  int64_t gathered = 0;
  auto computedDim = bounds->computedDims.begin();
  for (const SliceIndex &index : expr->indices) {
    if (!index.computed)
      continue;
    FailureOr<Value> i = evalIndex(index.computed.get(), false, ctx);
    if (failed(i))
      return failure();
    result = arr::GatherOp::create(ctx.b, ic.loc(index.loc), result, *i,
                                   *computedDim++ - gathered++, 0,
                                   arr::GatherMode::clamp);
  }
  return ExprValue::ofTensor(result);
}

FailureOr<ExprValue> IndexingEmitter::emitAtUpdate(AtUpdateExpr *expr,
                                                   BodyContext &ctx) {
  FailureOr<Value> base = evaluator.evalTensor(expr->base.get(), ctx);
  if (failed(base))
    return failure();
  auto t = cast<RankedTensorType>(base->getType());
  int64_t rank = t.getRank();
  if (int64_t(expr->indices.size()) > rank)
    return ic.error(expr->indices[rank].loc,
                    "too many indices: " + typeStr(t) + " has " + Twine(rank) +
                        " dimension" + (rank == 1 ? "" : "s") + ", got " +
                        Twine(expr->indices.size()) + " indices");
  std::optional<arr::ScatterKind> kind =
      arr::symbolizeScatterKind(expr->method);
  assert(kind && "the parser accepts the scatter kinds only");
  if (*kind != arr::ScatterKind::set && t.getElementType().isInteger(1))
    return ic.error(expr->methodLoc, "'." + expr->method +
                                         "' needs an f32 or i32 array, got " +
                                         typeStr(t));

  // One target per dimension; missing trailing indices are ':'.
  Type i32 = IntegerType::get(ic.getContext(), 32);
  SmallVector<Target> targets(rank);
  for (auto [d, index] : llvm::enumerate(expr->indices)) {
    Target &target = targets[d];
    target.loc = index.loc;
    if (index.isFullSlice())
      continue;
    if (index.isNewAxis)
      return ic.error(index.loc, "x.at[...] takes no new axis (none); index "
                                 "the array as it is");
    if (index.computed) {
      FailureOr<Value> i = evalIndex(index.computed.get(), true, ctx);
      if (failed(i))
        return failure();
      target.indices = *i;
      target.kind = cast<RankedTensorType>(i->getType()).getRank() == 0
                        ? Target::scalar
                        : Target::array;
      continue;
    }
    if (index.isIndex) {
      // A literal index: out of range, its update is dropped (JAX).
      auto type = RankedTensorType::get({}, i32);
      target.indices = arr::ConstantOp::create(
          ctx.b, ic.loc(index.loc), type,
          DenseElementsAttr::get(type, int32_t(*index.start)));
      target.kind = Target::scalar;
      continue;
    }
    // A static slice: the array of the indices it reads.
    FailureOr<SliceRange> range =
        typing.resolveSliceRange(index, t, static_cast<int64_t>(d));
    if (failed(range))
      return failure();
    SmallVector<int32_t> values;
    for (int64_t k = 0; k < range->size; ++k)
      values.push_back(int32_t(range->start + range->step * k));
    auto type = RankedTensorType::get({range->size}, i32);
    target.indices =
        arr::ConstantOp::create(ctx.b, ic.loc(index.loc), type,
                                DenseElementsAttr::get(type, ArrayRef(values)));
    target.kind = Target::array;
  }
  if (llvm::all_of(targets,
                   [](const Target &t) { return t.kind == Target::all; }))
    return ic.error(expr->getLoc(),
                    "x.at[:] selects every element; write the elementwise "
                    "expression instead (v, x + v, x * v, minimum(x, v), "
                    "maximum(x, v))");
  // One array (or partial slice), after every scalar index.
  auto firstArray = llvm::find_if(
      targets, [](const Target &t) { return t.kind == Target::array; });
  if (firstArray != targets.end())
    for (const Target &later : llvm::make_range(firstArray + 1, targets.end()))
      if (later.kind != Target::all)
        return ic.error(later.loc,
                        "x.at[...] takes one array of indices (or partial "
                        "slice), with ':' after it; index this dimension "
                        "before the array or update in two steps");

  FailureOr<ExprValue> value = evaluator.eval(expr->value.get(), ctx);
  if (failed(value))
    return failure();
  FailureOr<Value> result = update(*base, targets, *kind, *value, expr, ctx);
  if (failed(result))
    return failure();
  return ExprValue::ofTensor(*result);
}

FailureOr<Value> IndexingEmitter::update(Value x, ArrayRef<Target> targets,
                                         arr::ScatterKind kind,
                                         const ExprValue &updates,
                                         AtUpdateExpr *expr, BodyContext &ctx) {
  auto t = cast<RankedTensorType>(x.getType());
  const auto *found = llvm::find_if(
      targets, [](const Target &t) { return t.kind != Target::all; });
  int64_t axis = found - targets.begin();
  const Target &target = *found;
  Location at = ic.loc(target.loc);
  bool last =
      llvm::all_of(llvm::make_range(found + 1, targets.end()),
                   [](const Target &t) { return t.kind == Target::all; });
  if (!last) {
    // Nested scalar indices: the row at this one is gathered, updated at
    // the others, and set back (an index out of range drops the whole
    // update; the gather's clamp only keeps the row read in bounds).
    Value row = arr::GatherOp::create(ctx.b, at, x, target.indices, axis, 0,
                                      arr::GatherMode::clamp);
    SmallVector<Target> rest(targets.begin(), targets.end());
    rest.erase(rest.begin() + axis);
    FailureOr<Value> updated = update(row, rest, kind, updates, expr, ctx);
    if (failed(updated))
      return failure();
    return arr::ScatterOp::create(ctx.b, at, x, target.indices, *updated, axis,
                                  0, arr::ScatterKind::set)
        .getResult();
  }
  // The shape a gather at these indices reads: the updates'.
  auto indexType = cast<RankedTensorType>(target.indices.getType());
  SmallVector<int64_t> shape(t.getShape().take_front(axis));
  llvm::append_range(shape, indexType.getShape());
  llvm::append_range(shape, t.getShape().drop_front(axis + 1));
  Type elementType = t.getElementType();
  llvm::SMLoc valueLoc = expr->value->getLoc();
  FailureOr<Value> value;
  if (updates.isLiteral()) {
    value = typing.materialize(updates, elementType, shape, valueLoc, ctx.b,
                               valueLoc);
  } else {
    value = updates.kind == ExprValue::arrayLit
                ? typing.materialize(updates, elementType, updates.shape,
                                     valueLoc, ctx.b, valueLoc)
                : FailureOr<Value>(updates.value);
    if (failed(value))
      return failure();
    auto valueType = cast<RankedTensorType>(value->getType());
    if (valueType.getElementType() != elementType)
      return ic.error(valueLoc, "the value of '." + expr->method + "' is " +
                                    typeStr(valueType) + ", but the array is " +
                                    typeStr(t) + "; convert it with " +
                                    dtypeStr(elementType) + "(...)");
    value = typing.broadcastTo(*value, shape, valueLoc,
                               "the value of '." + expr->method + "'", ctx.b);
  }
  if (failed(value))
    return failure();
  return arr::ScatterOp::create(ctx.b, at, x, target.indices, *value, axis, 0,
                                kind)
      .getResult();
}
