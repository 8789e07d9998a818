//===- Builtins.cpp - the table of builtin functions ----------------------===//
//
// See Builtins.h. Each emitter checks what is particular to its builtin
// (static arguments, shapes) with the messages of docs/language.md, then
// builds ops through their type rules (dialect/TypeInference.h).
//
//===----------------------------------------------------------------------===//

#include "frontend/Builtins.h"
#include "frontend/NNBuiltins.h"

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <limits>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;
using vmapc::kMaxBytes;
using vmapc::kMaxDimSize;

//===----------------------------------------------------------------------===//
// BuiltinCall
//===----------------------------------------------------------------------===//

LogicalResult BuiltinCall::checkArguments() const {
  ArrayRef<BuiltinKeyword> keywords = builtin.keywords;
  for (size_t i = 0; i < expr->kwargs.size(); ++i) {
    const KeywordArg &kw = expr->kwargs[i];
    for (const KeywordArg &earlier : ArrayRef(expr->kwargs).take_front(i))
      if (earlier.name == kw.name)
        return error(kw.loc,
                     "keyword argument '" + kw.name + "' is given twice");
    if (llvm::any_of(keywords, [&](const BuiltinKeyword &k) {
          return k.name == kw.name;
        }))
      continue;
    std::string expected;
    for (auto [j, k] : llvm::enumerate(keywords))
      expected += (j ? ", " : "") + k.name.str() + "=";
    return error(kw.loc,
                 "unknown keyword argument '" + kw.name + "' for '" + name() +
                     "'" +
                     (keywords.empty() ? std::string(" (it takes none)")
                                       : " (expected " + expected + ")"));
  }
  size_t n = expr->args.size();
  unsigned lo = builtin.minArgs, hi = builtin.maxArgs;
  if (n < lo || n > hi)
    return error(loc(),
                 "'" + name() + "' takes " +
                     (lo == hi ? Twine(lo) : Twine(lo) + " or " + Twine(hi)) +
                     " argument" + (hi == 1 ? "" : "s") + ", got " + Twine(n));
  return success();
}

Expr *BuiltinCall::keyword(StringRef k) const {
  for (KeywordArg &kw : expr->kwargs)
    if (kw.name == k)
      return kw.value.get();
  return nullptr;
}

FailureOr<SmallVector<ExprValue>> BuiltinCall::evalArgs() const {
  SmallVector<ExprValue> args;
  for (size_t i = 0; i < numArgs(); ++i) {
    FailureOr<ExprValue> v = eval(i);
    if (failed(v))
      return failure();
    args.push_back(*v);
  }
  return args;
}

LogicalResult BuiltinCall::requireDType(Type type, size_t i) const {
  Type elem = cast<RankedTensorType>(type).getElementType();
  switch (builtin.dtype) {
  case DTypeRule::numeric:
    if (!elem.isInteger(1))
      return success();
    return error(argLoc(i), "'" + name() +
                                "' needs an f32 or i32 operand, got " +
                                typeStr(type));
  case DTypeRule::floating:
    if (elem.isF32())
      return success();
    return error(argLoc(i),
                 "'" + name() + "' needs an f32 operand, got " + typeStr(type) +
                     (elem.isInteger(32) ? " (convert it with f32(x))" : ""));
  case DTypeRule::boolean:
    if (elem.isInteger(1))
      return success();
    return error(argLoc(i),
                 "'" + name() + "' needs a bool operand, got " + typeStr(type));
  case DTypeRule::any:
    return success();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Emitters
//===----------------------------------------------------------------------===//

/// The reduced dimensions of `axis=` (every dimension when it is left out or
/// none).
FailureOr<SmallVector<int64_t>>
vmapc::frontend::reducedDims(BuiltinCall &call, RankedTensorType t) {
  Expr *axis = call.keyword("axis");
  if (axis && !isa<NoneExpr>(axis))
    return call.getTyping().normalizeAxes(axis, t.getRank(), false,
                                          call.name());
  return llvm::to_vector(llvm::seq<int64_t>(0, t.getRank()));
}

/// exp, log, tanh, sqrt, sin, cos, log1p, expm1, erf, floor, ceil, round: a
/// literal is f32.
template <typename OpT>
static FailureOr<ExprValue> emitFloatUnary(BuiltinCall &call) {
  FailureOr<ExprValue> arg = call.eval(0);
  if (failed(arg))
    return failure();
  FailureOr<Value> v = call.getTyping().materialize(
      *arg, Float32Type::get(call.getMLIRContext()),
      arg->kind == ExprValue::arrayLit ? arg->shape : SmallVector<int64_t>(),
      call.argLoc(0), call.builder(), call.argLoc(0));
  if (failed(v) || failed(call.requireDType(v->getType(), 0)))
    return failure();
  return ExprValue::ofTensor(OpT::create(call.builder(), call.opLoc(), *v));
}

/// abs, sign.
template <typename OpT>
static FailureOr<ExprValue> emitUnary(BuiltinCall &call) {
  FailureOr<Value> v = call.evalTensor(0);
  if (failed(v) || failed(call.requireDType(v->getType(), 0)))
    return failure();
  return ExprValue::ofTensor(OpT::create(call.builder(), call.opLoc(), *v));
}

/// maximum, minimum, pow: numpy broadcasting of two operands.
template <typename OpT>
static FailureOr<ExprValue> emitBinary(BuiltinCall &call) {
  FailureOr<SmallVector<ExprValue>> args = call.evalArgs();
  if (failed(args))
    return failure();
  llvm::SMLoc locs[] = {call.argLoc(0), call.argLoc(1)};
  FailureOr<SmallVector<Value>> vs =
      call.getTyping().unify(*args, locs, call.loc(), call.name(),
                             call.getBuiltin().dtype, call.builder());
  if (failed(vs))
    return failure();
  return ExprValue::ofTensor(
      OpT::create(call.builder(), call.opLoc(), (*vs)[0], (*vs)[1]));
}

/// The value of keyword `keepdims=` (false when left out): `true` or
/// `false`.
FailureOr<bool> vmapc::frontend::keepDims(BuiltinCall &call) {
  Expr *e = call.keyword("keepdims");
  if (!e)
    return false;
  auto *n = dyn_cast<NameExpr>(e);
  if (!n || (n->name != "true" && n->name != "false"))
    return call.error(e->getLoc(), "keepdims= must be true or false");
  return n->name == "true";
}

/// `reduced` (`operand` reduced over `dims`) with those dimensions back as
/// size 1, for keepdims=true (numpy's).
Value vmapc::frontend::keepReducedDims(BuiltinCall &call, Value reduced,
                                       RankedTensorType operand,
                                       ArrayRef<int64_t> dims) {
  SmallVector<int64_t> shape(operand.getShape());
  for (int64_t d : dims)
    shape[d] = 1;
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(reduced.getType()).getElementType());
  if (type == reduced.getType())
    return reduced;
  return arr::ReshapeOp::create(call.builder(), call.opLoc(), type, reduced);
}

/// `v` converted to `elementType` (itself when it has it).
Value vmapc::frontend::convertTo(BuiltinCall &call, Value v, Type elementType) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == elementType)
    return v;
  return arr::ConvertOp::create(
      call.builder(), call.opLoc(),
      RankedTensorType::get(t.getShape(), elementType), v);
}

Value vmapc::frontend::splatConstant(BuiltinCall &call, RankedTensorType type,
                                     double value) {
  OpBuilder &b = call.builder();
  Attribute element =
      type.getElementType().isF32()
          ? Attribute(b.getF32FloatAttr(static_cast<float>(value)))
          : Attribute(b.getI32IntegerAttr(static_cast<int32_t>(value)));
  return arr::ConstantOp::create(b, call.opLoc(), type,
                                 DenseElementsAttr::get(type, element));
}

/// `v != 0` as bool (itself when it is bool).
Value vmapc::frontend::nonZero(BuiltinCall &call, Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType().isInteger(1))
    return v;
  return arr::CmpOp::create(call.builder(), call.opLoc(), arr::CmpPredicate::ne,
                            v, splatConstant(call, t, 0.0));
}

/// sum, max, min over axis= (every axis by default), keepdims=. A bool
/// operand (JAX): sum counts the trues (i32); max and min are any and all.
template <typename OpT>
static FailureOr<ExprValue> emitReduce(BuiltinCall &call) {
  FailureOr<Value> v = call.evalTensor(0);
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  FailureOr<SmallVector<int64_t>> dims = reducedDims(call, t);
  FailureOr<bool> keep = keepDims(call);
  if (failed(dims) || failed(keep))
    return failure();
  bool isBool = t.getElementType().isInteger(1);
  Value operand =
      isBool ? convertTo(call, *v, call.builder().getI32Type()) : *v;
  Value reduced = OpT::create(call.builder(), call.opLoc(), operand, *dims);
  if (isBool && !std::is_same_v<OpT, arr::ReduceSumOp>)
    reduced = nonZero(call, reduced);
  if (*keep)
    reduced = keepReducedDims(call, reduced, t, *dims);
  return ExprValue::ofTensor(reduced);
}

/// any, all over axis= (every axis by default), keepdims=: whether some
/// (every) element is true, or non-zero (numpy and JAX).
template <bool IsAll>
static FailureOr<ExprValue> emitAnyAll(BuiltinCall &call) {
  FailureOr<Value> v = call.evalTensor(0);
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  FailureOr<SmallVector<int64_t>> dims = reducedDims(call, t);
  FailureOr<bool> keep = keepDims(call);
  if (failed(dims) || failed(keep))
    return failure();
  Value flags = convertTo(call, nonZero(call, *v), call.builder().getI32Type());
  Value reduced =
      IsAll
          ? arr::ReduceMinOp::create(call.builder(), call.opLoc(), flags, *dims)
                .getResult()
          : arr::ReduceMaxOp::create(call.builder(), call.opLoc(), flags, *dims)
                .getResult();
  reduced = nonZero(call, reduced);
  if (*keep)
    reduced = keepReducedDims(call, reduced, t, *dims);
  return ExprValue::ofTensor(reduced);
}

/// cumsum, cumprod along axis= (by default, the flattened operand: numpy's
/// and JAX's axis=None). A bool operand counts as i32 (JAX). Not an op of
/// its own: the sequential scan numpy computes, as an `arr.for` over the
/// axis whose body gathers element i, combines it with the running value
/// and scatters the result into place,
///
///   acc = 0 (1); out = 0
///   for i: acc = acc + x[.., i, ..]; out[.., i, ..] = acc
///
/// so its batching rule (the loop's, the gather's, the scatter's), both
/// lowerings and the oracle are those ops'; the scatter updates the carry
/// in place. f32 sums in numpy's order (XLA's CPU scan adds in a tree).
template <typename OpT>
static FailureOr<ExprValue> emitCumulative(BuiltinCall &call) {
  FailureOr<Value> v = call.evalTensor(0);
  if (failed(v))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  Value x = *v;
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getElementType().isInteger(1)) {
    x = convertTo(call, x, b.getI32Type());
    t = cast<RankedTensorType>(x.getType());
  }
  int64_t axis = 0;
  Expr *axisExpr = call.keyword("axis");
  if (!axisExpr || isa<NoneExpr>(axisExpr)) {
    if (t.getRank() != 1) {
      t = RankedTensorType::get({t.getNumElements()}, t.getElementType());
      x = arr::ReshapeOp::create(b, loc, t, x);
    }
  } else {
    FailureOr<SmallVector<int64_t>> dims = call.getTyping().normalizeAxes(
        axisExpr, t.getRank(), true, call.name());
    if (failed(dims))
      return failure();
    axis = (*dims)[0];
  }
  SmallVector<int64_t> rowShape(t.getShape());
  rowShape.erase(rowShape.begin() + axis);
  auto rowType = RankedTensorType::get(rowShape, t.getElementType());
  double identity = std::is_same_v<OpT, arr::MulOp> ? 1.0 : 0.0;
  Value inits[] = {splatConstant(call, rowType, identity),
                   splatConstant(call, t, 0.0)};
  auto loop = arr::ForOp::create(b, loc, TypeRange{rowType, t},
                                 static_cast<uint64_t>(t.getDimSize(axis)),
                                 ValueRange{x}, inits);
  Block *body = new Block();
  loop.getBody().push_back(body);
  Value i = body->addArgument(RankedTensorType::get({}, b.getI32Type()), loc);
  Value xc = body->addArgument(t, loc);
  Value acc = body->addArgument(rowType, loc);
  Value out = body->addArgument(t, loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Value element = arr::GatherOp::create(b, loc, xc, i, axis, /*batchDims=*/0,
                                        arr::GatherMode::clamp);
  Value next = OpT::create(b, loc, acc, element);
  Value written =
      arr::ScatterOp::create(b, loc, out, i, next, axis,
                             /*batchDims=*/0, arr::ScatterKind::set);
  arr::YieldOp::create(b, loc, ValueRange{next, written});
  return ExprValue::ofTensor(loop.getResult(1));
}

/// argmin, argmax along axis= (by default, the index into the flattened
/// operand), keepdims=. A bool operand is compared as 0 and 1.
template <typename OpT>
static FailureOr<ExprValue> emitArgReduce(BuiltinCall &call) {
  FailureOr<Value> v = call.evalTensor(0);
  FailureOr<bool> keep = keepDims(call);
  if (failed(v) || failed(keep))
    return failure();
  auto input = cast<RankedTensorType>(v->getType());
  Value operand = *v;
  if (input.getElementType().isInteger(1))
    operand = convertTo(call, operand, call.builder().getI32Type());
  auto t = cast<RankedTensorType>(operand.getType());
  int64_t axis = 0;
  Expr *axisExpr = call.keyword("axis");
  bool flattened = !axisExpr || isa<NoneExpr>(axisExpr);
  if (!flattened) {
    FailureOr<SmallVector<int64_t>> dims = call.getTyping().normalizeAxes(
        axisExpr, t.getRank(), true, call.name());
    if (failed(dims))
      return failure();
    axis = (*dims)[0];
  } else if (t.getRank() != 1) {
    auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
    operand =
        arr::ReshapeOp::create(call.builder(), call.opLoc(), flat, operand);
  }
  Value index = OpT::create(call.builder(), call.opLoc(), operand,
                            static_cast<uint64_t>(axis));
  if (*keep) {
    // numpy: every dimension size 1 without an axis, else the axis's.
    SmallVector<int64_t> dims;
    if (flattened)
      dims = llvm::to_vector(llvm::seq<int64_t>(0, input.getRank()));
    else
      dims = {axis};
    index = keepReducedDims(call, index, input, dims);
  }
  return ExprValue::ofTensor(index);
}

/// where(c, x, y): x and y unified, all three broadcast together.
static FailureOr<ExprValue> emitWhere(BuiltinCall &call) {
  FailureOr<SmallVector<ExprValue>> args = call.evalArgs();
  if (failed(args))
    return failure();
  const ExprValue &c = (*args)[0];
  if (c.kind != ExprValue::tensor ||
      !cast<RankedTensorType>(c.value.getType()).getElementType().isInteger(1))
    return call.error(call.argLoc(0),
                      "the condition of 'where' must be bool, got " +
                          (c.kind == ExprValue::tensor
                               ? typeStr(c.value.getType())
                               : "the " + c.text));
  ExprValue ops[] = {(*args)[1], (*args)[2]};
  llvm::SMLoc locs[] = {call.argLoc(1), call.argLoc(2)};
  FailureOr<SmallVector<Value>> vs =
      call.getTyping().unify(ops, locs, call.loc(), call.name(),
                             call.getBuiltin().dtype, call.builder(), c.value);
  if (failed(vs))
    return failure();
  return ExprValue::ofTensor(arr::SelectOp::create(
      call.builder(), call.opLoc(), (*vs)[0], (*vs)[1], (*vs)[2]));
}

/// f32(x), i32(x): a literal becomes the target type directly (an integer
/// literal to either, a float literal to f32), a tensor is converted.
static FailureOr<ExprValue> emitConvert(BuiltinCall &call) {
  FailureOr<ExprValue> a = call.eval(0);
  if (failed(a))
    return failure();
  MLIRContext *context = call.getMLIRContext();
  bool toF32 = call.name() == "f32";
  Type target = toF32 ? Type(Float32Type::get(context))
                      : Type(IntegerType::get(context, 32));
  const Typing &typing = call.getTyping();
  FailureOr<Value> v;
  if (a->kind == ExprValue::intLit || toF32)
    v = a->kind == ExprValue::tensor
            ? FailureOr<Value>(a->value)
            : typing.materialize(
                  *a, target,
                  a->kind == ExprValue::arrayLit ? a->shape
                                                 : SmallVector<int64_t>(),
                  call.argLoc(0), call.builder(), call.argLoc(0));
  else
    v = typing.materializeDefault(*a, call.argLoc(0), call.builder());
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  if (t.getElementType() == target)
    return ExprValue::ofTensor(*v);
  auto type = RankedTensorType::get(t.getShape(), target);
  return ExprValue::ofTensor(
      arr::ConvertOp::create(call.builder(), call.opLoc(), type, *v));
}

/// mean: the sum over axis= divided by the number of elements summed,
/// keepdims=; i32 and bool operands give f32 (JAX).
static FailureOr<ExprValue> emitMean(BuiltinCall &call) {
  FailureOr<Value> operand = call.evalTensor(0);
  FailureOr<bool> keep = keepDims(call);
  if (failed(operand) || failed(keep))
    return failure();
  Value converted = convertTo(call, *operand, call.builder().getF32Type());
  FailureOr<Value> v = converted;
  auto t = cast<RankedTensorType>(v->getType());
  FailureOr<SmallVector<int64_t>> dims = reducedDims(call, t);
  if (failed(dims))
    return failure();
  int64_t count = 1;
  for (int64_t d : *dims)
    count *= t.getDimSize(d);
  OpBuilder &b = call.builder();
  Value sum = arr::ReduceSumOp::create(b, call.opLoc(), *v, *dims);
  auto type = cast<RankedTensorType>(sum.getType());
  auto attr = DenseElementsAttr::get(
      type, llvm::ArrayRef<float>(static_cast<float>(count)));
  Value n = arr::ConstantOp::create(b, call.opLoc(), type, attr);
  Value mean = arr::DivOp::create(b, call.opLoc(), sum, n);
  if (*keep)
    mean = keepReducedDims(call, mean, t, *dims);
  return ExprValue::ofTensor(mean);
}

/// transpose(x, perm=...): the reversed axes by default; the identity
/// permutation emits nothing.
static FailureOr<ExprValue> emitTranspose(BuiltinCall &call) {
  FailureOr<Value> v = call.evalTensor(0);
  if (failed(v))
    return failure();
  int64_t rank = cast<RankedTensorType>(v->getType()).getRank();
  SmallVector<int64_t> perm;
  if (Expr *permExpr = call.keyword("perm")) {
    FailureOr<SmallVector<int64_t>> p =
        call.getTyping().staticInts(permExpr, "perm=", false);
    if (failed(p))
      return failure();
    if (int64_t(p->size()) != rank)
      return call.error(permExpr->getLoc(),
                        "perm= has " + Twine(p->size()) + " entries for " +
                            typeStr(v->getType()) + " of rank " + Twine(rank));
    for (int64_t a : *p) {
      if (a < -rank || a >= rank)
        return call.error(permExpr->getLoc(),
                          "perm= entry " + Twine(a) +
                              " is out of range for rank " + Twine(rank) +
                              " (valid: " + axisRangeStr(rank) + ")");
      a = a < 0 ? a + rank : a;
      if (llvm::is_contained(perm, a))
        return call.error(permExpr->getLoc(),
                          "perm= is not a permutation: axis " + Twine(a) +
                              " appears twice");
      perm.push_back(a);
    }
  } else {
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  }
  if (llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    return ExprValue::ofTensor(*v);
  return ExprValue::ofTensor(
      arr::TransposeOp::create(call.builder(), call.opLoc(), *v, perm));
}

/// The dimension sizes of a shape argument: each from 1 to kMaxDimSize.
static LogicalResult checkSizes(BuiltinCall &call, ArrayRef<int64_t> shape,
                                size_t i) {
  for (int64_t d : shape)
    if (d < 1 || d > kMaxDimSize)
      return call.error(call.argLoc(i), "dimension sizes must be from 1 to " +
                                            Twine(kMaxDimSize) + ", got " +
                                            shapeStr(shape));
  return success();
}

/// broadcast_to(x, shape): numpy's broadcasting rules.
static FailureOr<ExprValue> emitBroadcastTo(BuiltinCall &call) {
  FailureOr<ExprValue> a = call.eval(0);
  if (failed(a))
    return failure();
  const Typing &typing = call.getTyping();
  FailureOr<SmallVector<int64_t>> target =
      typing.staticInts(call.arg(1), "the shape of 'broadcast_to'", true);
  if (failed(target) || failed(checkSizes(call, *target, 1)))
    return failure();
  ArrayRef<int64_t> shape = *target;
  FailureOr<Value> v =
      typing.materializeDefault(*a, call.argLoc(0), call.builder());
  if (failed(v))
    return failure();
  FailureOr<Value> result =
      typing.broadcastTo(*v, shape, call.loc(), "", call.builder());
  if (failed(result) || failed(typing.checkLimits(
                            cast<RankedTensorType>(result->getType()),
                            call.argLoc(1), "the result of 'broadcast_to'")))
    return failure();
  return ExprValue::ofTensor(*result);
}

/// reshape(x, shape): row-major, at most one size -1 (inferred).
static FailureOr<ExprValue> emitReshape(BuiltinCall &call) {
  FailureOr<ExprValue> a = call.eval(0);
  if (failed(a))
    return failure();
  const Typing &typing = call.getTyping();
  FailureOr<SmallVector<int64_t>> target =
      typing.staticInts(call.arg(1), "the shape of 'reshape'", true);
  if (failed(target))
    return failure();
  SmallVector<int64_t> shape = *target;
  FailureOr<Value> v =
      typing.materializeDefault(*a, call.argLoc(0), call.builder());
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  llvm::SMLoc at = call.argLoc(1);
  int64_t known = 1;
  int inferred = -1;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (d == -1) {
      if (inferred >= 0)
        return call.error(at, "only one dimension of the shape " +
                                  shapeStr(shape) + " can be -1");
      inferred = i;
      continue;
    }
    if (d < 1 || d > kMaxDimSize)
      return call.error(
          at, "dimension sizes must be from 1 to " + Twine(kMaxDimSize) +
                  " (or one -1, inferred), got " + shapeStr(shape));
    // The operand has fewer than 2^62 elements: a larger product cannot
    // match it, and the check keeps `known` from overflowing.
    std::optional<int64_t> product = llvm::checkedMul(known, d);
    if (!product || *product >= kMaxBytes)
      return call.error(at, "cannot reshape " + typeStr(t) + " (" +
                                Twine(t.getNumElements()) + " elements) to " +
                                shapeStr(shape) + " (2^62 elements or more)");
    known = *product;
  }
  int64_t total = t.getNumElements();
  if (inferred >= 0) {
    if (total % known != 0)
      return call.error(at, "cannot reshape " + typeStr(t) + " (" +
                                Twine(total) + " elements) to " +
                                shapeStr(shape) +
                                ": the -1 cannot be inferred");
    shape[inferred] = total / known;
  } else if (known != total) {
    return call.error(at, "cannot reshape " + typeStr(t) + " (" + Twine(total) +
                              " elements) to " + shapeStr(shape) + " (" +
                              Twine(known) + " elements)");
  }
  if (t.getShape() == ArrayRef<int64_t>(shape))
    return ExprValue::ofTensor(*v);
  auto type = RankedTensorType::get(shape, t.getElementType());
  if (failed(typing.checkLimits(type, at, "the result of 'reshape'")))
    return failure();
  return ExprValue::ofTensor(
      arr::ReshapeOp::create(call.builder(), call.opLoc(), type, *v));
}

/// concat((a, b, ...), axis=0).
static FailureOr<ExprValue> emitConcat(BuiltinCall &call) {
  FailureOr<ExprValue> a = call.evalAny(0);
  if (failed(a))
    return failure();
  if (a->kind != ExprValue::tuple)
    return call.error(call.argLoc(0), "'concat' takes a tuple of arrays, e.g. "
                                      "concat((a, b), axis=0)");
  auto *tupleExpr = dyn_cast<TupleExpr>(call.arg(0));
  auto pieceLoc = [&](size_t i) {
    return tupleExpr ? tupleExpr->elements[i]->getLoc() : call.argLoc(0);
  };
  // Literal arrays take their dtype from the array pieces (JAX's weak
  // types); when every piece is a literal, the default dtype of them all
  // (f32 when any element is written as a float, else i32).
  Type elementType;
  bool anyFloatLiteral = false;
  for (const ExprValue &piece : a->elements) {
    if (piece.kind == ExprValue::tensor && !elementType)
      elementType = getElementTypeOrSelf(piece.value.getType());
    anyFloatLiteral |= piece.kind == ExprValue::arrayLit && piece.isFloatArray;
  }
  if (!elementType)
    elementType = anyFloatLiteral
                      ? Type(Float32Type::get(call.getMLIRContext()))
                      : Type(IntegerType::get(call.getMLIRContext(), 32));
  SmallVector<Value> pieces;
  RankedTensorType first;
  for (auto [i, element] : llvm::enumerate(a->elements)) {
    llvm::SMLoc pl = pieceLoc(i);
    ExprValue piece = element;
    if (piece.isLiteral())
      return call.error(pl, "piece " + Twine(i) + " of 'concat' is the " +
                                piece.text +
                                ", a scalar; concat joins arrays of rank at "
                                "least 1: write [" +
                                piece.text + "]");
    if (piece.kind == ExprValue::arrayLit) {
      FailureOr<Value> v = call.getTyping().materialize(
          piece, elementType, piece.shape, pl, call.builder(), pl);
      if (failed(v))
        return failure();
      piece = ExprValue::ofTensor(*v);
    }
    if (piece.kind != ExprValue::tensor)
      return call.error(pl, "piece " + Twine(i) +
                                " of 'concat' is a tuple; concat joins arrays");
    auto t = cast<RankedTensorType>(piece.value.getType());
    if (t.getRank() == 0)
      return call.error(pl, "piece " + Twine(i) + " of 'concat' is a scalar (" +
                                typeStr(t) +
                                "); concat joins arrays of rank at least 1");
    if (!first)
      first = t;
    else if (t.getElementType() != first.getElementType())
      return call.error(pl, "pieces of 'concat' have different dtypes: " +
                                typeStr(first) + " and " + typeStr(t));
    else if (t.getRank() != first.getRank())
      return call.error(pl, "pieces of 'concat' have different ranks: " +
                                typeStr(first) + " and " + typeStr(t));
    pieces.push_back(piece.value);
  }
  int64_t rank = first.getRank();
  int64_t axis = 0;
  if (Expr *axisExpr = call.keyword("axis")) {
    FailureOr<SmallVector<int64_t>> d =
        call.getTyping().normalizeAxes(axisExpr, rank, true, call.name());
    if (failed(d))
      return failure();
    axis = (*d)[0];
  }
  for (auto [i, p] : llvm::enumerate(pieces)) {
    auto t = cast<RankedTensorType>(p.getType());
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && t.getDimSize(d) != first.getDimSize(d))
        return call.error(
            pieceLoc(i),
            "pieces of 'concat' along axis " + Twine(axis) +
                " must agree on the other dimensions: " + typeStr(first) +
                " and " + typeStr(t) + " differ on dimension " + Twine(d));
  }
  // Each size is at most 2^31 - 1 and there are fewer than 2^32 pieces: the
  // sum can only pass the size limits, which checkLimits reports.
  auto concat = arr::ConcatOp::create(call.builder(), call.opLoc(), pieces,
                                      static_cast<uint64_t>(axis));
  if (failed(call.getTyping().checkLimits(concat.getType(), call.loc(),
                                          "the result of 'concat'")))
    return failure();
  return ExprValue::ofTensor(concat);
}

/// take(x, idx, axis=none, mode=fill): jnp.take. The indices are an i32
/// array or scalar (a literal becomes one); `axis` none takes from the
/// flattened x; `mode` is the keyword value `fill` (a negative index counts
/// from the end, out of range reads NaN, INT32_MIN or true) or `clip`.
static FailureOr<ExprValue> emitTake(BuiltinCall &call) {
  FailureOr<Value> x = call.evalTensor(0);
  if (failed(x))
    return failure();
  FailureOr<ExprValue> idx = call.eval(1);
  if (failed(idx))
    return failure();
  Type i32 = IntegerType::get(call.getMLIRContext(), 32);
  FailureOr<Value> indices;
  if (idx->kind == ExprValue::floatLit ||
      (idx->kind == ExprValue::arrayLit && idx->isFloatArray))
    return call.error(call.argLoc(1),
                      "the indices of 'take' must be integers, got the " +
                          (idx->kind == ExprValue::floatLit
                               ? "literal " + idx->text
                               : std::string("literal array of floats")));
  if (idx->isWeak()) {
    indices = call.getTyping().materialize(
        *idx, i32,
        idx->kind == ExprValue::arrayLit ? idx->shape : SmallVector<int64_t>(),
        call.argLoc(1), call.builder(), call.argLoc(1));
    if (failed(indices))
      return failure();
  } else {
    auto type = cast<RankedTensorType>(idx->value.getType());
    if (!type.getElementType().isInteger(32))
      return call.error(
          call.argLoc(1),
          "the indices of 'take' must be i32, got " + typeStr(type) +
              (type.getElementType().isF32() ? " (convert them with i32(...))"
                                             : ""));
    indices = idx->value;
  }
  Value operand = *x;
  auto t = cast<RankedTensorType>(operand.getType());
  int64_t axis = 0;
  Expr *axisExpr = call.keyword("axis");
  if (axisExpr && !isa<NoneExpr>(axisExpr)) {
    FailureOr<SmallVector<int64_t>> dims = call.getTyping().normalizeAxes(
        axisExpr, t.getRank(), true, call.name());
    if (failed(dims))
      return failure();
    axis = (*dims)[0];
  } else if (t.getRank() != 1) {
    auto flat = RankedTensorType::get({t.getNumElements()}, t.getElementType());
    operand =
        arr::ReshapeOp::create(call.builder(), call.opLoc(), flat, operand);
  }
  arr::GatherMode mode = arr::GatherMode::fill;
  if (Expr *modeExpr = call.keyword("mode")) {
    auto *name = dyn_cast<NameExpr>(modeExpr);
    if (!name || (name->name != "fill" && name->name != "clip"))
      return call.error(modeExpr->getLoc(),
                        "mode= must be fill (out of range reads NaN, "
                        "INT32_MIN or true) or clip (indices clamped into "
                        "range)");
    mode = name->name == "fill" ? arr::GatherMode::fill : arr::GatherMode::clip;
  }
  auto gather = arr::GatherOp::create(call.builder(), call.opLoc(), operand,
                                      *indices, axis, 0, mode);
  if (failed(call.getTyping().checkLimits(gather.getType(), call.loc(),
                                          "the result of 'take'")))
    return failure();
  return ExprValue::ofTensor(gather);
}

/// iota(n): 0..n-1 as i32.
static FailureOr<ExprValue> emitIota(BuiltinCall &call) {
  auto *lit = dyn_cast<IntLiteralExpr>(call.arg(0));
  if (!lit || lit->value < 1 ||
      lit->value > std::numeric_limits<int32_t>::max())
    return call.error(call.argLoc(0), "the size of 'iota' must be an integer "
                                      "literal from 1 to 2147483647");
  auto type = RankedTensorType::get(
      {lit->value}, IntegerType::get(call.getMLIRContext(), 32));
  return ExprValue::ofTensor(
      arr::IotaOp::create(call.builder(), call.opLoc(), type, uint64_t(0)));
}

/// zeros(shape, dtype=f32), ones(shape, dtype=f32).
template <int Fill> static FailureOr<ExprValue> emitFill(BuiltinCall &call) {
  FailureOr<SmallVector<int64_t>> shape = call.getTyping().staticInts(
      call.arg(0), "the shape of '" + call.name().str() + "'", true);
  if (failed(shape) || failed(checkSizes(call, *shape, 0)))
    return failure();
  MLIRContext *context = call.getMLIRContext();
  Type elem = Float32Type::get(context);
  if (Expr *dt = call.keyword("dtype")) {
    auto *n = dyn_cast<NameExpr>(dt);
    StringRef dn = n ? StringRef(n->name) : StringRef();
    if (dn == "i32")
      elem = IntegerType::get(context, 32);
    else if (dn == "bool")
      elem = IntegerType::get(context, 1);
    else if (dn != "f32")
      return call.error(dt->getLoc(), "dtype= must be f32, i32 or bool");
  }
  auto type = RankedTensorType::get(*shape, elem);
  if (failed(call.getTyping().checkLimits(
          type, call.argLoc(0), "the result of '" + call.name() + "'")))
    return failure();
  Attribute attr;
  if (elem.isF32())
    attr = DenseElementsAttr::get(type, llvm::ArrayRef<float>(float(Fill)));
  else if (elem.isInteger(32))
    attr = DenseElementsAttr::get(type, llvm::ArrayRef<int32_t>(Fill));
  else
    attr = DenseElementsAttr::get(type, Fill != 0);
  return ExprValue::ofTensor(arr::ConstantOp::create(
      call.builder(), call.opLoc(), type, cast<TypedAttr>(attr)));
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

static constexpr BuiltinKeyword kAxisAll[] = {{"axis", "none: every axis"},
                                              {"keepdims", "false"}};
static constexpr BuiltinKeyword kAxisFlat[] = {
    {"axis", "none: the flattened operand"}, {"keepdims", "false"}};
static constexpr BuiltinKeyword kAxisNone[] = {
    {"axis", "none: the flattened operand"}};
static constexpr BuiltinKeyword kAxis0[] = {{"axis", "0"}};
static constexpr BuiltinKeyword kAxisLast[] = {{"axis", "-1"}};
static constexpr BuiltinKeyword kPerm[] = {{"perm", "the reversed axes"}};
static constexpr BuiltinKeyword kDType[] = {{"dtype", "f32"}};
static constexpr BuiltinKeyword kTake[] = {
    {"axis", "none: the flattened operand"}, {"mode", "fill"}};

static const Builtin kBuiltins[] = {
    // name, arity, keywords, dtype rule, emitter
    {"exp", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::ExpOp>},
    {"log", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::LogOp>},
    {"tanh", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::TanhOp>},
    {"sqrt", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::SqrtOp>},
    {"sin", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::SinOp>},
    {"cos", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::CosOp>},
    {"log1p", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::Log1pOp>},
    {"expm1", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::Expm1Op>},
    {"erf", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::ErfOp>},
    {"floor", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::FloorOp>},
    {"ceil", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::CeilOp>},
    {"round", 1, 1, {}, DTypeRule::floating, emitFloatUnary<arr::RoundOp>},
    {"abs", 1, 1, {}, DTypeRule::numeric, emitUnary<arr::AbsOp>},
    {"sign", 1, 1, {}, DTypeRule::numeric, emitUnary<arr::SignOp>},
    {"maximum", 2, 2, {}, DTypeRule::numeric, emitBinary<arr::MaximumOp>},
    {"minimum", 2, 2, {}, DTypeRule::numeric, emitBinary<arr::MinimumOp>},
    {"pow", 2, 2, {}, DTypeRule::floating, emitBinary<arr::PowOp>},
    {"where", 3, 3, {}, DTypeRule::any, emitWhere},
    {"f32", 1, 1, {}, DTypeRule::any, emitConvert},
    {"i32", 1, 1, {}, DTypeRule::any, emitConvert},
    {"sum", 1, 1, kAxisAll, DTypeRule::any, emitReduce<arr::ReduceSumOp>},
    {"max", 1, 1, kAxisAll, DTypeRule::any, emitReduce<arr::ReduceMaxOp>},
    {"min", 1, 1, kAxisAll, DTypeRule::any, emitReduce<arr::ReduceMinOp>},
    {"mean", 1, 1, kAxisAll, DTypeRule::any, emitMean},
    {"any", 1, 1, kAxisAll, DTypeRule::any, emitAnyAll<false>},
    {"all", 1, 1, kAxisAll, DTypeRule::any, emitAnyAll<true>},
    {"cumsum", 1, 1, kAxisNone, DTypeRule::any, emitCumulative<arr::AddOp>},
    {"cumprod", 1, 1, kAxisNone, DTypeRule::any, emitCumulative<arr::MulOp>},
    {"argmin", 1, 1, kAxisFlat, DTypeRule::any, emitArgReduce<arr::ArgMinOp>},
    {"argmax", 1, 1, kAxisFlat, DTypeRule::any, emitArgReduce<arr::ArgMaxOp>},
    {"transpose", 1, 1, kPerm, DTypeRule::any, emitTranspose},
    {"reshape", 2, 2, {}, DTypeRule::any, emitReshape},
    {"broadcast_to", 2, 2, {}, DTypeRule::any, emitBroadcastTo},
    {"concat", 1, 1, kAxis0, DTypeRule::any, emitConcat},
    {"take", 2, 2, kTake, DTypeRule::any, emitTake},
    {"iota", 1, 1, {}, DTypeRule::any, emitIota},
    {"zeros", 1, 1, kDType, DTypeRule::any, emitFill<0>},
    {"ones", 1, 1, kDType, DTypeRule::any, emitFill<1>},
    // jax.nn's functions (NNBuiltins.h).
    {"relu", 1, 1, {}, DTypeRule::numeric, emitRelu},
    {"sigmoid", 1, 1, {}, DTypeRule::floating, emitSigmoid},
    {"softplus", 1, 1, {}, DTypeRule::floating, emitSoftplus},
    {"clip", 3, 3, {}, DTypeRule::numeric, emitClip},
    {"softmax", 1, 1, kAxisLast, DTypeRule::floating, emitSoftmax},
    {"log_softmax", 1, 1, kAxisLast, DTypeRule::floating, emitLogSoftmax},
    {"logsumexp", 1, 1, kAxisAll, DTypeRule::floating, emitLogSumExp},
};

ArrayRef<Builtin> vmapc::frontend::getBuiltins() { return kBuiltins; }

const Builtin *vmapc::frontend::lookupBuiltin(StringRef name) {
  for (const Builtin &b : kBuiltins)
    if (b.name == name)
      return &b;
  return nullptr;
}
