//===- Utils.h - helpers shared by the arr to linalg patterns ---*- C++ -*-===//

#ifndef VMAPC_PASSES_ARRTOLINALG_UTILS_H
#define VMAPC_PASSES_ARRTOLINALG_UTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace vmapc {

/// A `tensor.empty` of `type` (static shapes only, as arr has).
mlir::Value createEmptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::RankedTensorType type);

/// `value` (a ranked tensor) copied by `linalg.copy` into a new
/// `tensor.empty`: a value of its own, which bufferization may place out of
/// place where writing `value`'s own buffer would clobber a live value.
mlir::Value copyIntoNewTensor(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value value);

/// A `tensor.empty` of `type` filled with `value` by `linalg.fill`.
mlir::Value createFilledTensor(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type,
                               mlir::TypedAttr value);

/// +inf / -inf for floats, INT_MAX / INT_MIN for integers: the identity of a
/// min (`positive`) or max (`!positive`) reduction.
mlir::TypedAttr getExtremeValue(mlir::Type elementType, bool positive);

/// The loop dimensions 0..n-1 as an identity map of `n` dimensions.
mlir::AffineMap getIdentityMap(mlir::MLIRContext *ctx, unsigned n);

} // namespace vmapc

#endif // VMAPC_PASSES_ARRTOLINALG_UTILS_H
