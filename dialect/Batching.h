//===- Batching.h - batching rules: context and shared families -*- C++ -*-===//
//
// The vocabulary of `--arr-vmap`: a batch dimension (`BatchDim`), the context a
// batching rule builds in, and the generic rules shared by op families, as
// JAX's `defvectorized`, `defbroadcasting` and `defreducer`
// (jax/_src/interpreters/batching.py, jax/_src/lax/lax.py).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_DIALECT_BATCHING_H
#define VMAPC_DIALECT_BATCHING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace vmapc::arr {

/// Where a value carries the batch dimension, or nullopt when it does not
/// (an unbatched value shared by every example).
using BatchDim = std::optional<int64_t>;

/// A function specialised for one batching signature.
struct BatchedCallee {
  mlir::FlatSymbolRefAttr symbol;
  mlir::FunctionType type;
  llvm::SmallVector<BatchDim> resultBatchDims;
};

/// What a batching rule may use: the builder (insertion point set by the
/// pass), the batch size B, and the specialisation of user functions.
class BatchingContext {
public:
  BatchingContext(mlir::OpBuilder &builder, int64_t batchSize)
      : builder(builder), batchSize(batchSize) {}
  virtual ~BatchingContext() = default;

  mlir::OpBuilder &getBuilder() { return builder; }
  int64_t getBatchSize() const { return batchSize; }

  /// Returns `callee` batched with its arguments' batch dims `argDims`,
  /// creating and caching the specialisation on first use. Errors are
  /// reported at `call`.
  virtual llvm::FailureOr<BatchedCallee>
  getBatchedCallee(mlir::Operation *call, mlir::FlatSymbolRefAttr callee,
                   llvm::ArrayRef<BatchDim> argDims) = 0;

  /// Batches the ops of `source` (a region's block) into the end of
  /// `target`, whose arguments stand for `source`'s arguments batched at
  /// `argDims`, exactly as a function body is batched. The terminator is not
  /// copied: its operands, batched, are returned in `yielded` with their
  /// batch dims in `yieldedDims`. The builder's insertion point is restored
  /// afterwards. For ops with regions (`arr.for`).
  virtual llvm::LogicalResult
  batchBlock(mlir::Block &source, mlir::Block &target,
             llvm::ArrayRef<BatchDim> argDims,
             llvm::SmallVectorImpl<mlir::Value> &yielded,
             llvm::SmallVectorImpl<BatchDim> &yieldedDims) = 0;

  /// Which carries of the loop `op` end up batched when its operands are
  /// batched as in `operandBatched` (the scan rule's fixpoint, computed
  /// once). The body of `arr.for` is isolated from above, so nothing else
  /// decides it. Without this memo a loop nest would redo the fixpoint of
  /// every inner loop on every round of the outer one: exponential in the
  /// nesting depth.
  using LoopKey = std::pair<mlir::Operation *, std::vector<bool>>;
  std::map<LoopKey, llvm::SmallVector<bool>> &getLoopCarryMemo() {
    return loopCarryMemo;
  }

private:
  mlir::OpBuilder &builder;
  int64_t batchSize;
  std::map<LoopKey, llvm::SmallVector<bool>> loopCarryMemo;
};

/// `type` with a dimension of size `size` inserted at `dim`.
mlir::RankedTensorType insertDim(mlir::RankedTensorType type, int64_t dim,
                                 int64_t size);

/// Moves the batch dimension of `value` from `from` to `to` (a transpose,
/// or `value` itself when from == to).
mlir::Value moveBatchDim(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value value, int64_t from, int64_t to);

/// Gives an unbatched `value` a batch dimension of size B at `dim` through
/// `arr.broadcast_in_dim`: an indexing map after lowering, not a copy.
mlir::Value broadcastBatchDim(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value value, int64_t dim,
                              int64_t batchSize);

/// `value` with its batch dimension at `to`: moved there from `dim`, or,
/// when `dim` is nullopt (unbatched), broadcast there (JAX's
/// `bdim_at_front`/`matchaxis`, for any position).
mlir::Value toBatchDim(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, BatchDim dim, int64_t to,
                       int64_t batchSize);

/// The first batch dimension among `dims`, at least one of which is set:
/// where JAX's n-ary rules gather the batch dimension.
int64_t firstBatchDim(llvm::ArrayRef<BatchDim> dims);

/// Elementwise family (JAX's broadcasting batcher): batched operands agree
/// on one batch dimension (the first batched operand's; others are moved to
/// it); unbatched operands are broadcast there; the op is recreated with its
/// attributes and a batch dimension inserted into its result types.
llvm::LogicalResult
batchElementwise(mlir::Operation *op, BatchingContext &ctx,
                 mlir::ValueRange operands, llvm::ArrayRef<BatchDim> dims,
                 llvm::SmallVectorImpl<mlir::Value> &results,
                 llvm::SmallVectorImpl<BatchDim> &resultDims);

/// Reducer family (JAX's reducer batcher): the batch dimension of the single
/// operand moves to 0, the reduced dimension attribute(s) (`dims` or `axis`)
/// shift by one, and the result is batched at 0.
llvm::LogicalResult batchReducer(mlir::Operation *op, BatchingContext &ctx,
                                 mlir::ValueRange operands,
                                 llvm::ArrayRef<BatchDim> dims,
                                 llvm::SmallVectorImpl<mlir::Value> &results,
                                 llvm::SmallVectorImpl<BatchDim> &resultDims);

namespace testing {
/// Test-only mutation of the elementwise rule: while set, batchElementwise
/// moves a batched operand to the common batch dimension with an
/// `arr.reshape` instead of an `arr.transpose`: shapes stay right, values
/// go wrong. It exists so that the property tests can show they catch a
/// broken batching rule; no tool or pass option can set it.
void setBreakElementwiseRule(bool broken);
bool isElementwiseRuleBroken();
} // namespace testing

} // namespace vmapc::arr

#endif // VMAPC_DIALECT_BATCHING_H
