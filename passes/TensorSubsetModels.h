//===- TensorSubsetModels.h - subsets of tensor slices ---------*- C++ -*-===//
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
// decides. Besides, the same value is always equal to itself, where value
// bounds answers failure for a value whose constraints cannot all hold: the
// index of a loop that never runs (in a CPU kernel of an artifact that also
// has CUDA code, the MLP 784's, such a loop's insert_slice was taken for a
// write of a different subset, and the output binding for read).
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

/// Whether `a` and `b` (of the same rank) have equal offsets, sizes and
/// strides: true, false, or failure when a component cannot be decided.
/// Components are compared in order, offsets first, and the first that is
/// undecided or unequal gives the answer, as in ValueBoundsConstraintSet::
/// areEquivalentSlices; a component that is the same value on both sides
/// is equal, two constants are compared, and only the others go to value
/// bounds. So the answer is upstream's wherever upstream decides, and where
/// upstream fails on a same-value component this may answer true or false.
mlir::FailureOr<bool> areEquivalentSlices(const mlir::HyperrectangularSlice &a,
                                          const mlir::HyperrectangularSlice &b);
} // namespace vmapc

#endif // VMAPC_PASSES_TENSORSUBSETMODELS_H
