//===- Typing.cpp - dtypes, weak literals and broadcasting ----------------===//
//
// See Typing.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/Typing.h"

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;
using vmapc::checkedByteSize;
using vmapc::describeLimitViolation;

//===----------------------------------------------------------------------===//
// Spelling
//===----------------------------------------------------------------------===//

std::string vmapc::frontend::dtypeStr(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(1))
    return "bool";
  return "?";
}

std::string vmapc::frontend::typeStr(Type type) {
  auto t = cast<RankedTensorType>(type);
  std::string s = dtypeStr(t.getElementType());
  if (t.getRank() == 0)
    return s;
  s += "[";
  for (auto [i, d] : llvm::enumerate(t.getShape())) {
    if (i)
      s += ", ";
    s += std::to_string(d);
  }
  return s + "]";
}

std::string vmapc::frontend::shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string vmapc::frontend::axisRangeStr(int64_t rank) {
  return std::to_string(-rank) + ".." + std::to_string(rank - 1);
}

//===----------------------------------------------------------------------===//
// Types and limits
//===----------------------------------------------------------------------===//

Type Typing::elementType(DType dtype) const {
  switch (dtype) {
  case DType::f32:
    return Float32Type::get(ic.getContext());
  case DType::i32:
    return IntegerType::get(ic.getContext(), 32);
  case DType::boolean:
    return IntegerType::get(ic.getContext(), 1);
  }
  return {};
}

RankedTensorType Typing::convertType(const TypeAST &type) const {
  return RankedTensorType::get(type.shape, elementType(type.dtype));
}

LogicalResult Typing::checkLimits(RankedTensorType type, llvm::SMLoc at,
                                  const Twine &what) const {
  if (checkedByteSize(type))
    return success();
  return ic.error(
      at, what + " would have type " + typeStr(type) +
              ", past the size limits: " + describeLimitViolation(type) +
              " (every dimension is at most 2147483647 and every "
              "array holds fewer than 2^62 bytes)");
}

//===----------------------------------------------------------------------===//
// Weak literals and broadcasting
//===----------------------------------------------------------------------===//

FailureOr<Value> Typing::materialize(const ExprValue &op, Type elemType,
                                     ArrayRef<int64_t> shape,
                                     llvm::SMLoc useLoc, OpBuilder &b,
                                     llvm::SMLoc litLoc) const {
  if (op.kind == ExprValue::tensor)
    return op.value;
  if (op.kind == ExprValue::tuple)
    return ic.error(useLoc, "a tuple of " + Twine(op.elements.size()) +
                                " values cannot be used as one value");
  if (op.kind == ExprValue::arrayLit) {
    auto type = RankedTensorType::get(op.shape, elemType);
    std::string own = typeStr(type);
    if (ArrayRef<int64_t>(op.shape) != shape)
      return ic.error(useLoc,
                      "the literal array has shape " +
                          own.substr(own.find('[')) + ", but " +
                          typeStr(RankedTensorType::get(shape, elemType)) +
                          " is expected here");
    Attribute attr;
    if (elemType.isF32()) {
      SmallVector<float> values;
      for (double d : op.floatValues)
        values.push_back(static_cast<float>(d));
      attr = DenseElementsAttr::get(type, ArrayRef<float>(values));
    } else if (elemType.isInteger(32)) {
      if (op.isFloatArray)
        return ic.error(useLoc, "a literal array with float elements cannot be "
                                "used with an i32 operand (no implicit "
                                "conversion); convert the operand with "
                                "f32(...), or write integers");
      SmallVector<int32_t> values;
      for (int64_t v : op.intValues) {
        if (v > std::numeric_limits<int32_t>::max() ||
            v < std::numeric_limits<int32_t>::min())
          return ic.error(litLoc, "integer " + Twine(v) +
                                      " in the literal array does not fit in "
                                      "i32 (-2147483648..2147483647)");
        values.push_back(static_cast<int32_t>(v));
      }
      attr = DenseElementsAttr::get(type, ArrayRef<int32_t>(values));
    } else {
      return ic.error(useLoc,
                      "a literal array cannot be used with a bool operand");
    }
    return arr::ConstantOp::create(b, ic.loc(litLoc), type,
                                   cast<TypedAttr>(attr))
        .getResult();
  }
  auto type = RankedTensorType::get(shape, elemType);
  Attribute attr;
  if (elemType.isF32()) {
    double v = op.kind == ExprValue::intLit ? static_cast<double>(op.intValue)
                                            : op.floatValue;
    attr = DenseElementsAttr::get(type,
                                  llvm::ArrayRef<float>(static_cast<float>(v)));
  } else if (elemType.isInteger(32)) {
    if (op.kind == ExprValue::floatLit)
      return ic.error(useLoc, "the float literal " + op.text +
                                  " cannot be used with an i32 operand (no "
                                  "implicit conversion); convert the operand "
                                  "with f32(...), or write an integer");
    if (op.intValue > std::numeric_limits<int32_t>::max() ||
        op.intValue < std::numeric_limits<int32_t>::min())
      return ic.error(litLoc, "integer " + op.text +
                                  " does not fit in i32 (-2147483648.."
                                  "2147483647)");
    attr = DenseElementsAttr::get(
        type, llvm::ArrayRef<int32_t>(static_cast<int32_t>(op.intValue)));
  } else {
    return ic.error(useLoc, "the literal " + op.text +
                                " cannot be used with a bool operand");
  }
  return arr::ConstantOp::create(b, ic.loc(litLoc), type, cast<TypedAttr>(attr))
      .getResult();
}

FailureOr<Value> Typing::materializeDefault(const ExprValue &op,
                                            llvm::SMLoc litLoc,
                                            OpBuilder &b) const {
  bool isInt = op.kind == ExprValue::intLit ||
               (op.kind == ExprValue::arrayLit && !op.isFloatArray);
  Type t = isInt ? Type(IntegerType::get(ic.getContext(), 32))
                 : Type(Float32Type::get(ic.getContext()));
  return materialize(
      op, t, op.kind == ExprValue::arrayLit ? op.shape : SmallVector<int64_t>(),
      litLoc, b, litLoc);
}

static bool isComparison(BinaryOp op) {
  return op == BinaryOp::lt || op == BinaryOp::le || op == BinaryOp::gt ||
         op == BinaryOp::ge || op == BinaryOp::eq || op == BinaryOp::ne;
}

/// `a op c` for a comparison `op`, in the literals' own type.
template <typename T> static bool compareLiterals(BinaryOp op, T a, T c) {
  switch (op) {
  case BinaryOp::lt:
    return a < c;
  case BinaryOp::le:
    return a <= c;
  case BinaryOp::gt:
    return a > c;
  case BinaryOp::ge:
    return a >= c;
  case BinaryOp::eq:
    return a == c;
  default:
    return a != c;
  }
}

FailureOr<ExprValue> Typing::foldLiterals(BinaryExpr *expr, const ExprValue &l,
                                          const ExprValue &r,
                                          OpBuilder &b) const {
  llvm::SMLoc at = expr->getLoc();
  std::string text = l.text + " " + spelling(expr->op).str() + " " + r.text;
  bool isFloat = l.kind == ExprValue::floatLit || r.kind == ExprValue::floatLit;
  if (expr->op == BinaryOp::matmul)
    return ic.error(at, "'@' needs arrays of rank 1 or 2, not literals");
  if (expr->op == BinaryOp::logicalAnd || expr->op == BinaryOp::logicalOr)
    return ic.error(at, "'" + spelling(expr->op) +
                            "' needs bool operands, got the literals " +
                            l.text + " and " + r.text);
  if (expr->op == BinaryOp::pow) {
    // Python: int ** non-negative int is an int; otherwise a float.
    if (!isFloat && r.intValue >= 0) {
      int64_t base = l.intValue, e = r.intValue, v = 1;
      bool overflow = false;
      if (base == 0 || base == 1 || base == -1)
        v = e == 0 ? 1 : (base == -1 && e % 2 == 0 ? 1 : base);
      else
        for (int64_t i = 0; i < e && !overflow; ++i) // |base| >= 2: <= 63 steps
          overflow = __builtin_mul_overflow(v, base, &v);
      if (overflow)
        return ic.error(at, "integer overflow in " + text);
      return ExprValue::ofInt(v, "(" + text + ")");
    }
    double v = std::pow(l.asDouble(), r.asDouble());
    if (l.asDouble() == 0 && r.asDouble() < 0)
      return ic.error(at, "division by zero in " + text);
    if (std::isnan(v))
      return ic.error(at, "the value of " + text + " is not a real number");
    if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
      return ic.error(at, "the value of " + text + " is out of range for f32");
    return ExprValue::ofFloat(v, "(" + text + ")");
  }
  if (isComparison(expr->op)) {
    bool v = isFloat ? compareLiterals(expr->op, l.asDouble(), r.asDouble())
                     : compareLiterals(expr->op, l.intValue, r.intValue);
    auto type = RankedTensorType::get({}, IntegerType::get(ic.getContext(), 1));
    auto attr = DenseElementsAttr::get(type, v);
    return ExprValue::ofTensor(
        arr::ConstantOp::create(b, ic.loc(at), type, attr).getResult());
  }
  // `/` of two literals is Python's true division (a float), as in JAX.
  if (isFloat || expr->op == BinaryOp::div) {
    double a = l.asDouble(), c = r.asDouble();
    double v = 0;
    switch (expr->op) {
    case BinaryOp::add:
      v = a + c;
      break;
    case BinaryOp::sub:
      v = a - c;
      break;
    case BinaryOp::mul:
      v = a * c;
      break;
    default:
      if (c == 0)
        return ic.error(at, "division by zero in " + text);
      v = a / c;
      break;
    }
    if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
      return ic.error(at, "the value of " + text + " is out of range for f32");
    return ExprValue::ofFloat(v, "(" + text + ")");
  }
  int64_t a = l.intValue, c = r.intValue, v = 0;
  bool overflow = false;
  switch (expr->op) {
  case BinaryOp::add:
    overflow = __builtin_add_overflow(a, c, &v);
    break;
  case BinaryOp::sub:
    overflow = __builtin_sub_overflow(a, c, &v);
    break;
  case BinaryOp::mul:
    overflow = __builtin_mul_overflow(a, c, &v);
    break;
  default:
    break;
  }
  if (overflow)
    return ic.error(at, "integer overflow in " + text);
  return ExprValue::ofInt(v, "(" + text + ")");
}

/// When one shape is the other with one dimension left out (the result of
/// a reduction over it), the advice to keep that dimension; else "".
static std::string keepdimsHint(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() < b.size())
    std::swap(a, b);
  if (a.size() != b.size() + 1)
    return "";
  for (size_t k = 0; k < a.size(); ++k) {
    SmallVector<int64_t> without(a);
    without.erase(without.begin() + k);
    if (ArrayRef<int64_t>(without) == b)
      return "; if the smaller operand is a reduction over axis " +
             std::to_string(k) + ", keep that axis with keepdims=true";
  }
  return "";
}

/// Gives operands one dtype and one shape, as numpy and JAX do: tensors
/// must agree on the dtype; weak scalar literals take it and the result's
/// shape (a splat), literal arrays take it and are broadcast; then every
/// operand whose shape differs from the result's gets an
/// `arr.broadcast_in_dim`. `cond` (for where) takes part in the shape only
/// and comes first in the result.
FailureOr<SmallVector<Value>> Typing::unify(ArrayRef<ExprValue> ops,
                                            ArrayRef<llvm::SMLoc> litLocs,
                                            llvm::SMLoc at, StringRef opName,
                                            DTypeRule req, OpBuilder &b,
                                            Value cond) const {
  Type elem;
  SmallVector<RankedTensorType> tensorTypes;
  for (const ExprValue &op : ops) {
    if (op.kind != ExprValue::tensor)
      continue;
    auto t = cast<RankedTensorType>(op.value.getType());
    if (elem && t.getElementType() != elem) {
      return ic.error(at,
                      "operands of '" + opName + "' have different dtypes: " +
                          typeStr(tensorTypes.front()) + " and " + typeStr(t) +
                          " (there is no implicit conversion; use f32(x) "
                          "or i32(x))");
    }
    elem = t.getElementType();
    tensorTypes.push_back(t);
  }
  if (!elem) {
    // Only literals: an integer or float literal is i32 or f32 by default.
    bool anyFloat = false;
    for (const ExprValue &op : ops)
      anyFloat |= op.kind == ExprValue::floatLit ||
                  (op.kind == ExprValue::arrayLit && op.isFloatArray);
    if (req == DTypeRule::boolean)
      return ic.error(at, "'" + opName + "' needs bool operands, got the " +
                              ops.front().text);
    elem = anyFloat || req == DTypeRule::floating
               ? Type(Float32Type::get(ic.getContext()))
               : Type(IntegerType::get(ic.getContext(), 32));
  }
  auto typesStr = [&] {
    std::string s;
    for (auto [i, t] : llvm::enumerate(tensorTypes))
      s += (i ? " and " : "") + typeStr(t);
    return s;
  };
  if (req == DTypeRule::numeric && elem.isInteger(1))
    return ic.error(at, "'" + opName + "' needs f32 or i32 operands, got " +
                            typesStr());
  if (req == DTypeRule::floating && !elem.isF32())
    return ic.error(at,
                    "'" + opName + "' needs f32 operands, got " + typesStr() +
                        (elem.isInteger(32) ? " (convert with f32(x))" : ""));
  if (req == DTypeRule::boolean && !elem.isInteger(1))
    return ic.error(at,
                    "'" + opName + "' needs bool operands, got " + typesStr());

  // numpy broadcasting of the shapes, in operand order.
  SmallVector<int64_t> shape;
  std::optional<RankedTensorType> running;
  auto join = [&](RankedTensorType t) -> LogicalResult {
    if (!running) {
      running = t;
      shape.assign(t.getShape().begin(), t.getShape().end());
      return success();
    }
    int64_t rank = std::max<int64_t>(shape.size(), t.getRank());
    SmallVector<int64_t> result(rank);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t li = i - (rank - int64_t(shape.size()));
      int64_t ri = i - (rank - t.getRank());
      int64_t ls = li >= 0 ? shape[li] : 1;
      int64_t rs = ri >= 0 ? t.getDimSize(ri) : 1;
      if (ls != rs && ls != 1 && rs != 1)
        return ic.error(at,
                        "shapes " + typeStr(*running) + " and " + typeStr(t) +
                            " cannot broadcast (dimension sizes " + Twine(ls) +
                            " and " + Twine(rs) + " differ and neither is 1)" +
                            keepdimsHint(running->getShape(), t.getShape()));
      result[i] = ls == 1 ? rs : ls;
    }
    shape = result;
    running = RankedTensorType::get(shape, elem);
    return success();
  };
  if (cond && failed(join(cast<RankedTensorType>(cond.getType()))))
    return failure();
  for (const ExprValue &op : ops) {
    if (op.kind == ExprValue::tensor) {
      if (failed(join(cast<RankedTensorType>(op.value.getType()))))
        return failure();
    } else if (op.kind == ExprValue::arrayLit) {
      if (failed(join(RankedTensorType::get(op.shape, elem))))
        return failure();
    }
  }
  if (failed(checkLimits(RankedTensorType::get(shape, elem), at,
                         "the result of '" + opName + "'")))
    return failure();
  auto broadcast = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == ArrayRef<int64_t>(shape))
      return v;
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < t.getRank(); ++i)
      dims.push_back(int64_t(shape.size()) - t.getRank() + i);
    auto type = RankedTensorType::get(shape, t.getElementType());
    return arr::BroadcastInDimOp::create(b, ic.loc(at), type, v, dims)
        .getResult();
  };
  SmallVector<Value> values;
  if (cond)
    values.push_back(broadcast(cond));
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (op.kind == ExprValue::tensor) {
      values.push_back(broadcast(op.value));
      continue;
    }
    FailureOr<Value> v =
        op.kind == ExprValue::arrayLit
            ? materialize(op, elem, op.shape, at, b, litLocs[i])
            : materialize(op, elem, shape, at, b, litLocs[i]);
    if (failed(v))
      return failure();
    values.push_back(broadcast(*v));
  }
  return values;
}

FailureOr<SmallVector<int64_t>> Typing::normalizeAxes(Expr *axis, int64_t rank,
                                                      bool single,
                                                      StringRef fn) const {
  SmallVector<int64_t> dims;
  SmallVector<Expr *> items;
  if (auto *tuple = dyn_cast<TupleExpr>(axis)) {
    if (single)
      return ic.error(axis->getLoc(), fn + " takes a single axis, not a tuple");
    for (ExprPtr &e : tuple->elements)
      items.push_back(e.get());
  } else {
    items.push_back(axis);
  }
  for (Expr *item : items) {
    std::optional<int64_t> value = readIntLiteral(item);
    if (!value)
      return ic.error(item->getLoc(),
                      single ? "axis= must be an integer or none"
                             : "axis= must be an integer, a tuple of integers "
                               "or none");
    int64_t a = *value;
    if (rank == 0)
      return ic.error(item->getLoc(), "axis " + Twine(a) +
                                          " is out of range for rank 0 (a "
                                          "scalar has no axes; omit axis=)");
    if (a < -rank || a >= rank)
      return ic.error(item->getLoc(),
                      "axis " + Twine(a) + " is out of range for rank " +
                          Twine(rank) + " (valid: " + axisRangeStr(rank) + ")");
    if (a < 0)
      a += rank;
    if (llvm::is_contained(dims, a))
      return ic.error(item->getLoc(),
                      "axis " + Twine(a) + " is given twice in axis=");
    dims.push_back(a);
  }
  llvm::sort(dims);
  return dims;
}

/// Static integers: `3`, `-1`, or a tuple of them (`(2, -1)`, `()`).
FailureOr<SmallVector<int64_t>> Typing::staticInts(Expr *expr, StringRef what,
                                                   bool allowScalar) const {
  SmallVector<Expr *> items;
  if (auto *tuple = dyn_cast<TupleExpr>(expr)) {
    for (ExprPtr &e : tuple->elements)
      items.push_back(e.get());
  } else if (allowScalar) {
    items.push_back(expr);
  } else {
    return ic.error(expr->getLoc(), what + " must be a tuple of integers, e.g. "
                                           "(1, 0)");
  }
  SmallVector<int64_t> values;
  for (Expr *item : items) {
    std::optional<int64_t> value = readIntLiteral(item);
    if (!value)
      return ic.error(item->getLoc(),
                      what + " must be " +
                          (allowScalar ? "an integer or a tuple of integers"
                                       : "a tuple of integers") +
                          " written as literals");
    values.push_back(*value);
  }
  return values;
}

FailureOr<Value> Typing::broadcastTo(Value v, ArrayRef<int64_t> shape,
                                     llvm::SMLoc at, StringRef what,
                                     OpBuilder &b) const {
  auto t = cast<RankedTensorType>(v.getType());
  int64_t rank = shape.size();
  bool ok = t.getRank() <= rank;
  SmallVector<int64_t> dims;
  for (int64_t i = 0; ok && i < t.getRank(); ++i) {
    int64_t d = rank - t.getRank() + i;
    int64_t s = t.getDimSize(i);
    ok = s == shape[d] || s == 1;
    dims.push_back(d);
  }
  if (!ok)
    return ic.error(at, "cannot broadcast " +
                            (what.empty() ? "" : what.str() + " ") +
                            typeStr(t) + " to shape " + shapeStr(shape) +
                            " (numpy rules: align the last dimensions; each "
                            "size must match or be 1)");
  if (t.getShape() == shape)
    return v;
  auto type = RankedTensorType::get(shape, t.getElementType());
  return arr::BroadcastInDimOp::create(b, ic.loc(at), type, v, dims)
      .getResult();
}

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

FailureOr<SliceBounds> Typing::resolveSlice(SliceExpr *expr,
                                            RankedTensorType t) const {
  int64_t rank = t.getRank();
  // numpy's spelling of a new axis, read as a computed index.
  for (const SliceIndex &idx : expr->indices)
    if (auto *name = dyn_cast_or_null<NameExpr>(idx.computed.get());
        name && name->name == "None")
      return ic.error(idx.loc, "a new axis is written none, not None "
                               "(x[:, none])");
  int64_t consumed = llvm::count_if(
      expr->indices, [](const SliceIndex &idx) { return !idx.isNewAxis; });
  if (consumed > rank) {
    // The first index past the last dimension.
    int64_t d = 0;
    for (const SliceIndex &idx : expr->indices)
      if (!idx.isNewAxis && d++ == rank)
        return ic.error(idx.loc, "too many indices: " + typeStr(t) + " has " +
                                     Twine(rank) + " dimension" +
                                     (rank == 1 ? "" : "s") + ", got " +
                                     Twine(consumed) + " indices");
  }
  SliceBounds bounds;
  SmallVector<int64_t> &start = bounds.start, &stride = bounds.stride,
                       &shape = bounds.shape, &kept = bounds.kept;
  bool &full = bounds.isFull;
  // Each index takes the next dimension, but a new axis (`none`), which
  // adds a dimension of size 1 to what is kept; missing trailing indices
  // are `:`.
  int64_t d = 0;
  auto keepWhole = [&](int64_t n) {
    start.push_back(0);
    stride.push_back(1);
    shape.push_back(n);
    kept.push_back(n);
  };
  for (const SliceIndex &idx : expr->indices) {
    if (idx.isNewAxis) {
      kept.push_back(1);
      full = false;
      continue;
    }
    int64_t n = t.getDimSize(d);
    if (idx.computed) {
      // A computed index is a gather after the static slice: its dimension
      // is kept whole here.
      bounds.computedDims.push_back(kept.size());
      keepWhole(n);
      bounds.hasComputed = true;
      ++d;
      continue;
    }
    if (idx.isIndex) {
      int64_t i = *idx.start;
      if (i < -n || i >= n)
        return ic.error(
            idx.loc, "index " + Twine(i) + " is out of range for dimension " +
                         Twine(d) + " of " + typeStr(t) + " (size " + Twine(n) +
                         ", valid: " + axisRangeStr(n) + ")");
      start.push_back(i < 0 ? i + n : i);
      stride.push_back(1);
      shape.push_back(1);
      full = false;
      ++d;
      continue;
    }
    FailureOr<SliceRange> range = resolveSliceRange(idx, t, d);
    if (failed(range))
      return failure();
    start.push_back(range->start);
    stride.push_back(range->step);
    shape.push_back(range->size);
    kept.push_back(range->size);
    full &= range->start == 0 && range->step == 1 && range->size == n;
    ++d;
  }
  for (; d < rank; ++d)
    keepWhole(t.getDimSize(d));
  return bounds;
}

FailureOr<SliceRange> Typing::resolveSliceRange(const SliceIndex &idx,
                                                RankedTensorType t,
                                                int64_t d) const {
  // Python's slice.indices(n).
  int64_t n = t.getDimSize(d);
  int64_t step = idx.step.value_or(1);
  int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  auto clamp = [&](std::optional<int64_t> b, int64_t dflt) {
    if (!b)
      return dflt;
    int64_t x = *b;
    if (x < 0) {
      x += n;
      return x < lower ? lower : x;
    }
    return x > upper ? upper : x;
  };
  int64_t b0 = clamp(idx.start, step > 0 ? lower : upper);
  int64_t e0 = clamp(idx.stop, step > 0 ? upper : lower);
  int64_t len = step > 0 ? (e0 > b0 ? (e0 - b0 - 1) / step + 1 : 0)
                         : (b0 > e0 ? (b0 - e0 - 1) / (-step) + 1 : 0);
  if (len == 0) {
    auto part = [](std::optional<int64_t> x) {
      return x ? std::to_string(*x) : std::string();
    };
    std::string text = part(idx.start) + ":" + part(idx.stop) +
                       (idx.step ? ":" + part(idx.step) : "");
    return ic.error(idx.loc, "the slice " + text + " of dimension " + Twine(d) +
                                 " of " + typeStr(t) + " (size " + Twine(n) +
                                 ") is empty; empty arrays are not supported");
  }
  return SliceRange{b0, step, len};
}

//===----------------------------------------------------------------------===//
// Signatures: returns, yields, calls and '@'
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>>
Typing::matchTypes(const ExprValue &value, Expr *expr,
                   ArrayRef<RankedTensorType> types, StringRef what,
                   OpBuilder &b, ArrayRef<std::string> carries) const {
  SmallVector<const ExprValue *> items;
  SmallVector<Expr *> exprs;
  auto *tupleExpr = dyn_cast<TupleExpr>(expr);
  if (value.kind == ExprValue::tuple) {
    for (auto [i, e] : llvm::enumerate(value.elements)) {
      items.push_back(&e);
      exprs.push_back(tupleExpr ? tupleExpr->elements[i].get() : expr);
    }
  } else {
    items.push_back(&value);
    exprs.push_back(expr);
  }
  bool isYield = !carries.empty();
  auto plural = [](size_t n, StringRef word) {
    return std::to_string(n) + " " + word.str() + (n == 1 ? "" : "s");
  };
  if (items.size() != types.size()) {
    std::string expected;
    for (auto [i, t] : llvm::enumerate(types))
      expected += (i ? ", " : "") +
                  (isYield ? carries[i] + ": " + typeStr(t) : typeStr(t));
    if (isYield)
      return ic.error(expr->getLoc(),
                      "'yield' gives " + plural(items.size(), "value") +
                          " for " + plural(types.size(), "carried variable") +
                          " (" + expected + ")");
    return ic.error(
        expr->getLoc(),
        "'return' gives " + plural(items.size(), "value") + ", but " + what +
            " returns " + plural(types.size(), "value") +
            (types.size() == 1 ? ": " + expected : ": (" + expected + ")"));
  }
  SmallVector<Value> values;
  for (auto [i, item] : llvm::enumerate(items)) {
    llvm::SMLoc at = exprs[i]->getLoc();
    RankedTensorType type = types[i];
    if (item->isWeak()) {
      FailureOr<Value> v =
          materialize(*item, type.getElementType(), type.getShape(), at, b, at);
      if (failed(v))
        return failure();
      values.push_back(*v);
      continue;
    }
    Type got = item->value.getType();
    if (got == type) {
      values.push_back(item->value);
      continue;
    }
    if (isYield)
      return ic.error(at, "yielded value " + Twine(i) + " has type " +
                              typeStr(got) + ", but carried variable '" +
                              carries[i] + "' has type " + typeStr(type));
    if (types.size() == 1)
      return ic.error(at, "return type " + typeStr(got) +
                              " does not match declared " + typeStr(type) +
                              " of " + what);
    return ic.error(at, "returned value " + Twine(i) + " has type " +
                            typeStr(got) + ", but result " + Twine(i) + " of " +
                            what + " is declared " + typeStr(type));
  }
  return values;
}

FailureOr<SmallVector<Value>>
Typing::matchArguments(const FunctionDecl &decl, FunctionType type,
                       ArrayRef<ExprValue> args, ArrayRef<llvm::SMLoc> argLocs,
                       OpBuilder &b) const {
  SmallVector<Value> values;
  for (auto [i, a] : llvm::enumerate(args)) {
    auto pt = cast<RankedTensorType>(type.getInput(i));
    llvm::SMLoc argLoc = argLocs[i];
    if (a.isWeak()) {
      if (a.isLiteral() && pt.getRank() != 0)
        return ic.error(argLoc, "argument " + Twine(i) + " of '" + decl.name +
                                    "' is a literal, but parameter '" +
                                    decl.params[i].name + "' has type " +
                                    typeStr(pt));
      FailureOr<Value> v =
          materialize(a, pt.getElementType(), pt.getShape(), argLoc, b, argLoc);
      if (failed(v))
        return failure();
      values.push_back(*v);
      continue;
    }
    if (a.value.getType() != pt)
      return ic.error(argLoc, "argument " + Twine(i) + " of '" + decl.name +
                                  "' has type " + typeStr(a.value.getType()) +
                                  ", but parameter '" + decl.params[i].name +
                                  "' has type " + typeStr(pt));
    values.push_back(a.value);
  }
  return values;
}

FailureOr<std::pair<int64_t, int64_t>>
Typing::checkMatmul(llvm::SMLoc at, RankedTensorType lt,
                    RankedTensorType rt) const {
  for (RankedTensorType t : {lt, rt})
    if (t.getRank() != 1 && t.getRank() != 2)
      return ic.error(at, "'@' supports operands of rank 1 and 2 (numpy "
                          "matmul), got " +
                              typeStr(lt) + " @ " + typeStr(rt) +
                              "; use vmap for a batched matmul");
  int64_t lc = lt.getRank() - 1;
  int64_t rc = 0;
  if (lt.getDimSize(lc) != rt.getDimSize(rc))
    return ic.error(at, "'@' contracts the last axis of " + typeStr(lt) +
                            " (size " + Twine(lt.getDimSize(lc)) +
                            ") with the first axis of " + typeStr(rt) +
                            " (size " + Twine(rt.getDimSize(rc)) +
                            "); the sizes differ");
  return std::make_pair(lc, rc);
}
