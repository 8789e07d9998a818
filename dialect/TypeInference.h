//===- TypeInference.h - the type rule of every arr op ----------*- C++ -*-===//
//
// One type rule per op, in StableHLO's shape (stablehlo/dialect/
// TypeInference.h): a free function per op over the operands' types and the
// op's attributes, reporting through `emitOptionalError` (at `location` when
// given, silently when it is nullopt).
//
// - `inferXxxOp` computes the result types of an op whose result types follow
//   from its operands and attributes. The op implements
//   `InferTypeOpInterface` through it, so its verifier compares the declared
//   types with the inferred ones, its builders without result types infer
//   them, and the batching rules rebuild it and let it compute the batched
//   types (JAX re-binds the primitive).
// - `verifyXxxOp` checks an op whose result type is part of the op (a
//   broadcast's or a reshape's target shape, a slice's sizes): its verifier
//   calls it.
// - An op whose result type is an operand's (the elementwise ops, but
//   `arr.cmp` and `arr.convert`) has no function here: ODS implements
//   InferTypeOpInterface from its SameOperandsAndResultType or AllTypesMatch
//   trait.
//
// Every type is a ranked, statically shaped tensor of f32, i32 or i1 (the
// ODS constraints check the dtypes and dialect/Limits.h the sizes; these
// rules check shapes and attributes). Dimension lists index the operand's
// dimensions from 0.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_DIALECT_TYPEINFERENCE_H
#define VMAPC_DIALECT_TYPEINFERENCE_H

#include "dialect/Batching.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace vmapc::arr {

//===----------------------------------------------------------------------===//
// Inferred result types
//===----------------------------------------------------------------------===//

/// `arr.cmp`: bool (i1) of the operands' shape (the operands have one type).
mlir::LogicalResult
inferCmpOp(std::optional<mlir::Location> location, mlir::Type lhs,
           mlir::Type rhs,
           llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.transpose`: result dimension i is operand dimension perm[i]; `perm`
/// is a permutation of [0, rank).
mlir::LogicalResult
inferTransposeOp(std::optional<mlir::Location> location, mlir::Type operand,
                 llvm::ArrayRef<int64_t> perm,
                 llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.concat`: one or more pieces of one dtype and rank that agree on
/// every dimension but `dim`, where the result has their sum. A sum past the
/// size limits is not an error here (the limits trait reports it), only one
/// that overflows int64.
mlir::LogicalResult
inferConcatOp(std::optional<mlir::Location> location, mlir::TypeRange pieces,
              int64_t dim,
              llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.reduce_sum`/`_max`/`_min`: the operand's shape without `dims`
/// (increasing, in [0, rank)), of the operand's dtype.
mlir::LogicalResult
inferReduceOp(std::optional<mlir::Location> location, mlir::Type operand,
              llvm::ArrayRef<int64_t> dims,
              llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.argmin`/`argmax`: i32 indices of the operand's shape without `axis`
/// (in [0, rank)).
mlir::LogicalResult
inferArgReduceOp(std::optional<mlir::Location> location, mlir::Type operand,
                 int64_t axis,
                 llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.dot_general` (StableHLO's dot_general without precision): the batch
/// dimensions (`lhsBatch[i]` paired with `rhsBatch[i]`, equal sizes), then
/// lhs's free dimensions, then rhs's, each in order; contracted pairs have
/// equal sizes; every dimension is used at most once per side. Operands and
/// result share one dtype.
mlir::LogicalResult inferDotGeneralOp(
    std::optional<mlir::Location> location, mlir::Type lhs, mlir::Type rhs,
    llvm::ArrayRef<int64_t> lhsBatch, llvm::ArrayRef<int64_t> rhsBatch,
    llvm::ArrayRef<int64_t> lhsContract, llvm::ArrayRef<int64_t> rhsContract,
    llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.gather`: with n = `batchDims` (in [0, rank(indices)]), the first n
/// dimensions of the operand and the indices have equal sizes and `axis` is
/// in [n, rank(operand)); the result is
/// `operand[:axis] ++ indices[n:] ++ operand[axis+1:]` of the operand's
/// dtype.
mlir::LogicalResult
inferGatherOp(std::optional<mlir::Location> location, mlir::Type operand,
              mlir::Type indices, int64_t axis, int64_t batchDims,
              llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.scatter`: the operand's type; `updates` must have the type
/// inferGatherOp gives for the same operand, indices, axis and batch
/// dimensions.
mlir::LogicalResult
inferScatterOp(std::optional<mlir::Location> location, mlir::Type operand,
               mlir::Type indices, mlir::Type updates, int64_t axis,
               int64_t batchDims,
               llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.for`: the results have the types of the inits (the carries).
mlir::LogicalResult
inferForOp(std::optional<mlir::Location> location, mlir::TypeRange inits,
           llvm::SmallVectorImpl<mlir::Type> &inferredReturnTypes);

/// `arr.vmap_call` of a callee of type `callee` (per-example types): operand
/// i is parameter i with a dimension of `axisSize` inserted at `inAxes[i]`
/// (unchanged for nullopt), result j is result j of the callee with one at
/// `outAxes[j]`. Axes are non-negative; axis sizes in [0, kMaxDimSize]. Not
/// an `InferTypeOpInterface` (the callee is a symbol): the op's symbol
/// verifier and the front end call it.
mlir::LogicalResult
inferVmapCallOp(std::optional<mlir::Location> location,
                mlir::FunctionType callee, llvm::ArrayRef<BatchDim> inAxes,
                llvm::ArrayRef<BatchDim> outAxes, int64_t axisSize,
                llvm::SmallVectorImpl<mlir::Type> &operandTypes,
                llvm::SmallVectorImpl<mlir::Type> &resultTypes);

//===----------------------------------------------------------------------===//
// Verified result types
//===----------------------------------------------------------------------===//

/// `arr.broadcast_in_dim`: operand dimension i goes to result dimension
/// dims[i] (increasing), where it has the result's size or size 1; one dtype.
mlir::LogicalResult verifyBroadcastInDimOp(
    std::optional<mlir::Location> location, mlir::RankedTensorType operand,
    llvm::ArrayRef<int64_t> dims, mlir::RankedTensorType result);

/// `arr.reshape`: one dtype and one element count.
mlir::LogicalResult verifyReshapeOp(std::optional<mlir::Location> location,
                                    mlir::RankedTensorType operand,
                                    mlir::RankedTensorType result);

/// `arr.slice`: one dtype and rank, a start and a non-zero stride per
/// dimension, and every index read, start + stride * i for i in
/// [0, result size), in bounds.
mlir::LogicalResult verifySliceOp(std::optional<mlir::Location> location,
                                  mlir::RankedTensorType operand,
                                  llvm::ArrayRef<int64_t> start,
                                  llvm::ArrayRef<int64_t> stride,
                                  mlir::RankedTensorType result);

/// `arr.iota`: `dim` in [0, rank) of the result.
mlir::LogicalResult verifyIotaOp(std::optional<mlir::Location> location,
                                 int64_t dim, mlir::RankedTensorType result);

} // namespace vmapc::arr

#endif // VMAPC_DIALECT_TYPEINFERENCE_H
