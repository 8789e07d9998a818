//===- NNBuiltins.h - jax.nn's functions as builtins ------------*- C++ -*-===//
//
// Builtins that are compositions of arr ops, with jax.nn's and
// jax.scipy.special's definitions (numerically stable where they are):
//
//   relu(x)                 maximum(x, 0)
//   sigmoid(x)              1 / (1 + exp(-x))            (lax.logistic)
//   softplus(x)             log1p(exp(-|x|)) + maximum(x, 0)
//                           (jnp.logaddexp(x, 0))
//   clip(x, lo, hi)         minimum(maximum(x, lo), hi)   (jnp.clip)
//   softmax(x, axis=-1)     exp(x - m) / sum(exp(x - m)), m = max(x, axis)
//   log_softmax(x, axis=-1) (x - m) - log(sum(exp(x - m)))
//   logsumexp(x, axis=none, keepdims=false)
//                           m' + log(sum(exp(x - m'))), m' = max(x, axis)
//                           where it is finite, else 0 (so a row of -inf
//                           gives -inf and a +inf gives +inf, as JAX)
//
// Each emitter is a row of the table in Builtins.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_NNBUILTINS_H
#define VMAPC_FRONTEND_NNBUILTINS_H

#include "frontend/Builtins.h"

namespace vmapc::frontend {

mlir::FailureOr<ExprValue> emitRelu(BuiltinCall &call);
mlir::FailureOr<ExprValue> emitSigmoid(BuiltinCall &call);
mlir::FailureOr<ExprValue> emitSoftplus(BuiltinCall &call);
mlir::FailureOr<ExprValue> emitClip(BuiltinCall &call);
mlir::FailureOr<ExprValue> emitSoftmax(BuiltinCall &call);
mlir::FailureOr<ExprValue> emitLogSoftmax(BuiltinCall &call);
mlir::FailureOr<ExprValue> emitLogSumExp(BuiltinCall &call);

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_NNBUILTINS_H
