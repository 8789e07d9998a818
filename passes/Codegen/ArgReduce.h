//===- ArgReduce.h - vector code for argmin and argmax ----------*- C++ -*-===//
//
// An argmin/argmax is the reduction generic that convert-arr-to-linalg
// makes (passes/ArrToLinalg/Reductions.cpp): one input, two outputs (the
// best value so far and its i32 index), a payload that updates both when
// the input is strictly better, or equal with a lower index. Upstream
// vectorization cannot vectorize it (its combiner is a select, not a
// recognised reduction), so it is vectorized here, exactly:
//
//   per lane l of V:  best[l], index[l] over elements l, l+V, l+2V, ...
//                     (strictly better only: each lane keeps its lowest
//                     index; a NaN never wins)
//   then:             m = min (max) over lanes; the lowest index among the
//                     lanes whose best is m; combined with the init by the
//                     scalar rule.
//
// This is the result of the sequential loop for every input: the lowest
// index wins ties, and a row that never beats the init keeps the init.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_ARGREDUCE_H
#define VMAPC_PASSES_CODEGEN_ARGREDUCE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace vmapc {

/// What an arg-reduction compares: argmin (`isMin`) or argmax, over f32
/// (ordered compares) or i32 (signed compares).
struct ArgReduction {
  bool isMin = true;
  bool isFloat = true;
  /// The reduction loop.
  unsigned loop = 0;
};

/// Whether `op` is an argmin/argmax generic, and which.
std::optional<ArgReduction> matchArgReduction(mlir::linalg::GenericOp op);

/// Replaces the statically shaped arg-reduction `op` (on tensors) by loops
/// over its parallel dimensions around `vectorWidth`-lane vector code.
/// Fails (and changes nothing) if `op` has dynamic shapes or its input's
/// innermost dimension is not the reduction loop.
mlir::LogicalResult vectorizeArgReduction(mlir::RewriterBase &rewriter,
                                          mlir::linalg::GenericOp op,
                                          const ArgReduction &kind,
                                          int64_t vectorWidth);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_ARGREDUCE_H
