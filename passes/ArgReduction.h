//===- ArgReduction.h - the order of argmin and argmax ----------*- C++ -*-===//
//
// `arr.argmin` / `arr.argmax` become one reduction `linalg.generic` with
// two outputs, the best value so far and its i32 index
// (passes/ArrToLinalg/Reductions.cpp). Its payload updates both when the
// element *beats* the best so far, in numpy's and JAX's order:
//
//   x at i beats y at j  iff  x is better than y, or x ties y and i < j
//   better (argmin):  x < y, or x is NaN and y is not
//   ties:             x == y, or both are NaN
//
// (argmax: `>`). NaN is better than every number, so the first NaN wins
// (np.argmin([1, nan, nan]) == 1); the lowest index wins ties. The relation
// is a strict total order on (value, index) pairs: partial results combine
// in any order and grouping (vector lanes, threads, warps) and give the
// sequential loop's result. i32 has no NaN: the same rule without it.
//
// The CPU vectorizer and the GPU reduction pass recognise the payload
// (matchArgReduction) and combine partial results with the same rule
// (buildArgBeats).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_ARGREDUCTION_H
#define VMAPC_PASSES_ARGREDUCTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace vmapc {

/// What an arg-reduction compares: argmin (`isMin`) or argmax, over f32
/// (NaN first, as above) or i32 (signed).
struct ArgReduction {
  bool isMin = true;
  bool isFloat = true;
  /// The reduction loop.
  unsigned loop = 0;
};

/// An i1: whether `x` at index `xIndex` beats `y` at `yIndex` (both i32).
/// `x` and `y` are f32 (`kind.isFloat`) or i32 scalars.
mlir::Value buildArgBeats(mlir::OpBuilder &b, mlir::Location loc,
                          const ArgReduction &kind, mlir::Value x,
                          mlir::Value xIndex, mlir::Value y,
                          mlir::Value yIndex);

/// An i1 (or vector of i1, for vector operands): whether `x` is strictly
/// better than `y`, ignoring indices (NaN over a number for f32).
mlir::Value buildArgBetter(mlir::OpBuilder &b, mlir::Location loc,
                           const ArgReduction &kind, mlir::Value x,
                           mlir::Value y);

/// Whether `op` is an argmin/argmax generic (one input, two outputs whose
/// payload is `select(buildArgBeats(in, index, best, bestIndex), ...)`
/// with the index `linalg.index` of its one reduction loop), and which.
std::optional<ArgReduction> matchArgReduction(mlir::linalg::GenericOp op);

} // namespace vmapc

#endif // VMAPC_PASSES_ARGREDUCTION_H
