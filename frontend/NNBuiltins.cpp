//===- NNBuiltins.cpp - jax.nn's functions as builtins --------------------===//
//
// See NNBuiltins.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/NNBuiltins.h"

#include "dialect/ArrDialect.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <limits>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;

namespace {

/// Argument `i` as a tensor of the row's dtype rule, a literal as a scalar
/// of `literalType` (f32 for the float-only builtins).
FailureOr<Value> operand(BuiltinCall &call, size_t i, Type literalType) {
  FailureOr<ExprValue> v = call.eval(i);
  if (failed(v))
    return failure();
  FailureOr<Value> t =
      v->kind == ExprValue::tensor
          ? FailureOr<Value>(v->value)
          : call.getTyping().materialize(
                *v, literalType,
                v->kind == ExprValue::arrayLit ? v->shape
                                               : SmallVector<int64_t>(),
                call.argLoc(i), call.builder(), call.argLoc(i));
  if (failed(t) || failed(call.requireDType(t->getType(), i)))
    return failure();
  return t;
}

/// `v` (of `type` with some dimensions of size 1) broadcast to `type`.
Value broadcastBack(BuiltinCall &call, Value v, RankedTensorType type) {
  if (v.getType() == type)
    return v;
  return arr::BroadcastInDimOp::create(
      call.builder(), call.opLoc(), type, v,
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
}

/// `x` reduced by OpT over `dims`, the dimensions kept as size 1.
template <typename OpT>
Value reduceKeep(BuiltinCall &call, Value x, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(x.getType());
  Value reduced = OpT::create(call.builder(), call.opLoc(), x, dims);
  return keepReducedDims(call, reduced, type, dims);
}

/// The dimensions of `axis=` for softmax and log_softmax: the last one by
/// default (jax.nn's axis=-1), an integer or a tuple.
FailureOr<SmallVector<int64_t>> softmaxDims(BuiltinCall &call,
                                            RankedTensorType type) {
  Expr *axis = call.keyword("axis");
  if (!axis) {
    if (type.getRank() == 0)
      return SmallVector<int64_t>();
    return SmallVector<int64_t>{type.getRank() - 1};
  }
  if (isa<NoneExpr>(axis))
    return llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return call.getTyping().normalizeAxes(axis, type.getRank(), false,
                                        call.name());
}

/// The shifted operand x - max(x, dims) and the kept maximum.
struct Shifted {
  Value shifted, max;
};
Shifted shiftByMax(BuiltinCall &call, Value x, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(x.getType());
  Value m = reduceKeep<arr::ReduceMaxOp>(call, x, dims);
  Value shifted = arr::SubOp::create(call.builder(), call.opLoc(), x,
                                     broadcastBack(call, m, type));
  return {shifted, m};
}

} // namespace

FailureOr<ExprValue> vmapc::frontend::emitRelu(BuiltinCall &call) {
  FailureOr<Value> x = operand(call, 0, call.builder().getF32Type());
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  return ExprValue::ofTensor(arr::MaximumOp::create(
      call.builder(), call.opLoc(), *x, splatConstant(call, type, 0.0)));
}

FailureOr<ExprValue> vmapc::frontend::emitSigmoid(BuiltinCall &call) {
  FailureOr<Value> x = operand(call, 0, call.builder().getF32Type());
  if (failed(x))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  auto type = cast<RankedTensorType>(x->getType());
  Value one = splatConstant(call, type, 1.0);
  Value e = arr::ExpOp::create(b, loc, arr::NegOp::create(b, loc, *x));
  return ExprValue::ofTensor(
      arr::DivOp::create(b, loc, one, arr::AddOp::create(b, loc, one, e)));
}

/// log1p(exp(-|x|)) + maximum(x, 0): jax.nn.softplus (jnp.logaddexp(x, 0)),
/// which neither overflows for large x nor loses log1p's accuracy for very
/// negative x; +inf gives +inf, -inf gives 0, NaN stays.
FailureOr<ExprValue> vmapc::frontend::emitSoftplus(BuiltinCall &call) {
  FailureOr<Value> x = operand(call, 0, call.builder().getF32Type());
  if (failed(x))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  auto type = cast<RankedTensorType>(x->getType());
  Value e = arr::ExpOp::create(
      b, loc, arr::NegOp::create(b, loc, arr::AbsOp::create(b, loc, *x)));
  Value positivePart =
      arr::MaximumOp::create(b, loc, *x, splatConstant(call, type, 0.0));
  return ExprValue::ofTensor(arr::AddOp::create(
      b, loc, arr::Log1pOp::create(b, loc, e), positivePart));
}

FailureOr<ExprValue> vmapc::frontend::emitClip(BuiltinCall &call) {
  FailureOr<SmallVector<ExprValue>> args = call.evalArgs();
  if (failed(args))
    return failure();
  llvm::SMLoc locs[] = {call.argLoc(0), call.argLoc(1), call.argLoc(2)};
  FailureOr<SmallVector<Value>> vs =
      call.getTyping().unify(*args, locs, call.loc(), call.name(),
                             call.getBuiltin().dtype, call.builder());
  if (failed(vs))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  Value low = arr::MaximumOp::create(b, loc, (*vs)[0], (*vs)[1]);
  return ExprValue::ofTensor(arr::MinimumOp::create(b, loc, low, (*vs)[2]));
}

FailureOr<ExprValue> vmapc::frontend::emitSoftmax(BuiltinCall &call) {
  FailureOr<Value> x = operand(call, 0, call.builder().getF32Type());
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<SmallVector<int64_t>> dims = softmaxDims(call, type);
  if (failed(dims))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  Value e = arr::ExpOp::create(b, loc, shiftByMax(call, *x, *dims).shifted);
  Value s = reduceKeep<arr::ReduceSumOp>(call, e, *dims);
  return ExprValue::ofTensor(
      arr::DivOp::create(b, loc, e, broadcastBack(call, s, type)));
}

FailureOr<ExprValue> vmapc::frontend::emitLogSoftmax(BuiltinCall &call) {
  FailureOr<Value> x = operand(call, 0, call.builder().getF32Type());
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<SmallVector<int64_t>> dims = softmaxDims(call, type);
  if (failed(dims))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  Value shifted = shiftByMax(call, *x, *dims).shifted;
  // The log of the reduced sum, then its dimensions kept: one log per row,
  // and the broadcast reads the reduction with no reshape between.
  Value s = arr::ReduceSumOp::create(
      b, loc, arr::ExpOp::create(b, loc, shifted), *dims);
  Value lse = keepReducedDims(call, arr::LogOp::create(b, loc, s), type, *dims);
  return ExprValue::ofTensor(
      arr::SubOp::create(b, loc, shifted, broadcastBack(call, lse, type)));
}

FailureOr<ExprValue> vmapc::frontend::emitLogSumExp(BuiltinCall &call) {
  FailureOr<Value> x = operand(call, 0, call.builder().getF32Type());
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<SmallVector<int64_t>> dims = reducedDims(call, type);
  FailureOr<bool> keep = keepDims(call);
  if (failed(dims) || failed(keep))
    return failure();
  OpBuilder &b = call.builder();
  Location loc = call.opLoc();
  // The maximum where it is finite, else 0 (JAX's logsumexp): |m| < inf is
  // false for inf and NaN.
  Value m = reduceKeep<arr::ReduceMaxOp>(call, *x, *dims);
  auto keptType = cast<RankedTensorType>(m.getType());
  Value finite = arr::CmpOp::create(
      b, loc, arr::CmpPredicate::lt, arr::AbsOp::create(b, loc, m),
      splatConstant(call, keptType, std::numeric_limits<double>::infinity()));
  Value shift = arr::SelectOp::create(b, loc, finite, m,
                                      splatConstant(call, keptType, 0.0));
  Value e = arr::ExpOp::create(
      b, loc, arr::SubOp::create(b, loc, *x, broadcastBack(call, shift, type)));
  Value s = reduceKeep<arr::ReduceSumOp>(call, e, *dims);
  Value lse = arr::AddOp::create(b, loc, arr::LogOp::create(b, loc, s), shift);
  if (!*keep) {
    SmallVector<int64_t> shape;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (!llvm::is_contained(*dims, int64_t(d)))
        shape.push_back(size);
    lse = arr::ReshapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), lse);
  }
  return ExprValue::ofTensor(lse);
}
