//===- PopulatePatterns.h - arr to linalg patterns by category --*- C++ -*-===//
//
// One `populate…Patterns` entry point per category of arr op, as torch-mlir's
// TorchToLinalg/PopulatePatterns.h. The pass (ArrToLinalg.cpp) only sets up
// the conversion target and calls these. arr values are builtin tensors, so
// no type converter is involved.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_ARRTOLINALG_POPULATEPATTERNS_H
#define VMAPC_PASSES_ARRTOLINALG_POPULATEPATTERNS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace vmapc {

/// Unary, binary and comparison ops and `arr.broadcast_in_dim`: elementwise
/// `linalg.generic`s (Elementwise.cpp).
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);

/// `arr.reduce_{sum,max,min}` and `arr.arg{min,max}`: reduction
/// `linalg.generic`s over a `linalg.fill` init (Reductions.cpp).
void populateReductionPatterns(mlir::RewritePatternSet &patterns);

/// `arr.dot_general`: a contraction `linalg.generic`, or `linalg.matmul` /
/// `linalg.batch_matmul` for the plain cases (Contraction.cpp).
void populateContractionPatterns(mlir::RewritePatternSet &patterns);

/// `arr.transpose`, `arr.reshape`, `arr.slice`, `arr.concat`, `arr.iota` and
/// `arr.constant`: tensor, linalg and arith ops (Shape.cpp).
void populateShapePatterns(mlir::RewritePatternSet &patterns);

/// `arr.gather` and `arr.scatter`: `linalg.generic`s that read the operand
/// with `tensor.extract`, or update it as their destination (Indexing.cpp).
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);

/// `arr.for` and `arr.yield`: `scf.for` with iter_args (Loops.cpp).
void populateLoopPatterns(mlir::RewritePatternSet &patterns);

} // namespace vmapc

#endif // VMAPC_PASSES_ARRTOLINALG_POPULATEPATTERNS_H
