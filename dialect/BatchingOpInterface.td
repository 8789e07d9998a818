//===- BatchingOpInterface.td - per-op batching rules ------*- tablegen -*-===//
//
// An op's batching rule, as in JAX's `primitive_batchers` table
// (jax/_src/interpreters/batching.py): given which operands carry a batch
// dimension and where, build the batched op(s) and say where each result's
// batch dimension is.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_BATCHING_OP_INTERFACE
#define VMAPC_BATCHING_OP_INTERFACE

include "mlir/IR/OpBase.td"

def BatchingOpInterface : OpInterface<"BatchingOpInterface"> {
  let cppNamespace = "::vmapc::arr";
  let description = [{
    The batching rule of an op. `--arr-vmap` calls `batch` for an op with at
    least one batched operand (an op with none is cloned unchanged).

    `operands` are the already batched operands; `operandBatchDims[i]` is the
    position of operand i's batch dimension of size `ctx.getBatchSize()`, or
    `std::nullopt` when operand i is not batched (it must then be read through
    an indexing map, never copied B times). The rule creates ops with
    `ctx.getBuilder()` (insertion point set by the pass) and appends one value
    and one batch dimension per result of the op. Failing emits an error.
  }];
  let methods = [
    InterfaceMethod<
      "Builds the batched form of this op.",
      "::llvm::LogicalResult", "batch",
      (ins "::vmapc::arr::BatchingContext &":$ctx,
           "::mlir::ValueRange":$operands,
           "::llvm::ArrayRef<::vmapc::arr::BatchDim>":$operandBatchDims,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$results,
           "::llvm::SmallVectorImpl<::vmapc::arr::BatchDim> &":$resultBatchDims)>
  ];
}

#endif // VMAPC_BATCHING_OP_INTERFACE
