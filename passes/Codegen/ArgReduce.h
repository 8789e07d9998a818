//===- ArgReduce.h - vector code for argmin and argmax ----------*- C++ -*-===//
//
// An argmin/argmax is the reduction generic that convert-arr-to-linalg
// makes (passes/ArgReduction.h has its order: better, or tied at a lower
// index; the first NaN wins). Upstream vectorization cannot vectorize it
// (its combiner is a select, not a recognised reduction), so it is
// vectorized here, exactly:
//
//   per lane l of V:  best[l], index[l] over elements l, l+V, l+2V, ...
//                     (strictly less (greater), ordered: each lane keeps
//                     its lowest index, and a NaN does not enter the scan);
//                     and whether any element is NaN (off the scan's
//                     dependency chain: one compare and one `or`)
//   then:             if any element is NaN, the first NaN's index (a
//                     scalar rescan of that row only); else m = min (max)
//                     over lanes, the lowest index among the lanes whose
//                     best is m; combined with the init by the rule.
//
// This is the sequential loop's result for every input, and rows without
// NaN cost what they cost before NaN had an order (the kNN's fused argmin).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_ARGREDUCE_H
#define VMAPC_PASSES_CODEGEN_ARGREDUCE_H

#include "passes/ArgReduction.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace vmapc {

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
