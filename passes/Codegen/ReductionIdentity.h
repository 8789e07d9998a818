//===- ReductionIdentity.h - where a partial reduction starts --*- C++ -*-===//
//
// A reduction split over threads (a GPU warp or block) starts each thread's
// partial result from the identity of the combining op. That identity is
// upstream's `arith::getNeutralElement`, except for three ops where vmapc
// starts elsewhere (reductionIdentityOverride).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_REDUCTIONIDENTITY_H
#define VMAPC_PASSES_CODEGEN_REDUCTIONIDENTITY_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace vmapc {

/// Where vmapc's identity of `combiner` differs from upstream's, the value it
/// uses; nullopt elsewhere:
///   - `arith.addf`: -0.0, not +0.0. -0.0 is the exact identity of IEEE
///     addition (-0.0 + x == x for every x, -0.0 included); upstream's +0.0
///     turns a partial sum of -0.0s into +0.0.
///   - `arith.maxnumf` / `arith.minnumf`: -inf / +inf, not NaN, the start of
///     `arith.maximumf` / `arith.minimumf`: a partial result of no elements
///     is then the same whichever max or min the payload uses.
std::optional<mlir::TypedAttr>
reductionIdentityOverride(mlir::Operation *combiner);

/// The value a partial result of a reduction combined by `combiner` starts
/// from: reductionIdentityOverride, else `arith::getNeutralElement`; nullopt
/// for an op that has neither (not a combiner).
std::optional<mlir::TypedAttr> reductionIdentity(mlir::Operation *combiner);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_REDUCTIONIDENTITY_H
