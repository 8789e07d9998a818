//===- TensorSubsetModels.h - subset interfaces of tensor slices -*- C++
//-*-===//
//
// The SubsetOpInterface, SubsetExtractionOpInterface and
// SubsetInsertionOpInterface models of `tensor.extract_slice`,
// `tensor.insert_slice` and `tensor.parallel_insert_slice`, which one-shot
// bufferization and empty-tensor elimination ask whether an insertion writes
// the subset an extraction read (then the pair works in place).
//
// They are upstream's (tensor::registerSubsetOpInterfaceExternalModels) but
// for the slice comparison. LLVM 22's ValueBoundsConstraintSet::
// areEquivalentSlices builds a Presburger constraint set and eliminates it
// for every offset, size and stride, even for two equal constants or the
// same SSA value; on the kernels of a B = 256 MLP that was 84% of
// `--arr-bufferize-kernels` (perf, 2026-12-05). Here a component that is the
// same value or two constants on both sides is decided at once, and only the
// others go to value bounds. The answer is upstream's wherever upstream
// decides; besides, the same value is always equal to itself, which value
// bounds fails to prove for the induction variable of an scf.for of step 4
// and a dynamic bound (then an insert_slice that writes back the row it
// read, in a CPU kernel of an artifact that also has CUDA code, was taken
// for a different subset and its destination for read).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_TENSORSUBSETMODELS_H
#define VMAPC_PASSES_TENSORSUBSETMODELS_H

#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace vmapc {
/// Registers the three slice ops' subset models, in place of upstream's
/// (register this first: the first model of an interface attached to an op
/// is the one it keeps).
void registerTensorSubsetModels(mlir::DialectRegistry &registry);

/// Whether `a` and `b` have equal offsets, sizes and strides:
/// ValueBoundsConstraintSet::areEquivalentSlices's answer (true, false, or
/// failure when value bounds cannot decide), with components that are the
/// same value or two constants decided without a constraint set.
mlir::FailureOr<bool> areEquivalentSlices(const mlir::HyperrectangularSlice &a,
                                          const mlir::HyperrectangularSlice &b);
} // namespace vmapc

#endif // VMAPC_PASSES_TENSORSUBSETMODELS_H
