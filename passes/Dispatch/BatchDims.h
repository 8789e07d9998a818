//===- BatchDims.h - where the batch dimension of each value sits -*- C++ -*-//
//
// A forward dataflow analysis over an entry point on linalg-on-tensors: for
// every tensor value, the dimension that runs over the batch (the examples
// of the chunk), or none for a value shared by every example; for every
// linalg op, the loop that runs over the batch. It starts from the entry's
// `arr.in_axes` and follows indexing maps (a linalg op's batch loop is the
// loop that indexes its operands' batch dimension), slices, reshapes and
// loop-carried values (to a fixpoint).
//
// `--arr-vmap` never reduces over, merges or slices the batch dimension, so
// the analysis succeeds on every entry it produces; a value it cannot
// follow is a conflict, and the caller then computes all B lanes.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_DISPATCH_BATCHDIMS_H
#define VMAPC_PASSES_DISPATCH_BATCHDIMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace vmapc {

class BatchDims {
public:
  /// Analyzes `entry` (a function with `arr.batch`, `arr.in_axes`). Fails,
  /// with the op that broke it in `conflict()`, when some value's batch
  /// dimension cannot be followed.
  static BatchDims analyze(mlir::func::FuncOp entry);

  bool succeeded() const { return !conflictOp; }
  mlir::Operation *conflict() const { return conflictOp; }

  /// The batch dimension of `value`, or nullopt for an unbatched value (and
  /// for any value of a failed analysis).
  std::optional<int64_t> dimOf(mlir::Value value) const;
  /// The loop of linalg op `op` over the batch, or nullopt.
  std::optional<int64_t> loopOf(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::Value, int64_t> dims;
  llvm::DenseMap<mlir::Operation *, int64_t> loops;
  mlir::Operation *conflictOp = nullptr;
};

} // namespace vmapc

#endif // VMAPC_PASSES_DISPATCH_BATCHDIMS_H
