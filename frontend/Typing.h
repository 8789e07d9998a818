//===- Typing.h - dtypes, weak literals and broadcasting --------*- C++ -*-===//
//
// The typing rules of the language (docs/language.md, "Types"): the source
// spelling of types, weak literals (a literal takes the dtype of the operand
// next to it, as JAX's weak types) and their folding, numpy broadcasting of
// operands, the size limits of results, and the readers of static integer
// arguments (axes, shapes, permutations, slices).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_TYPING_H
#define VMAPC_FRONTEND_TYPING_H

#include "frontend/AST.h"
#include "frontend/ExprValue.h"
#include "frontend/ImportContext.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>
#include <utility>

namespace vmapc::frontend {

/// What dtype an operator or builtin accepts.
enum class DTypeRule { numeric, floating, boolean, any };

/// The source spelling of a tensor type: `f32`, `i32[3, 4]`.
std::string typeStr(mlir::Type type);
/// The source spelling of a dtype: `f32`, `i32`, `bool`.
std::string dtypeStr(mlir::Type elementType);
/// A shape as a Python tuple: `(3,)`, `(2, 4)`.
std::string shapeStr(llvm::ArrayRef<int64_t> shape);
/// The valid axes of a rank: `-2..1`.
std::string axisRangeStr(int64_t rank);

/// The resolved bounds of `x[...]` on a tensor: per dimension its start and
/// stride, the sliced shape, and the shape once static integer indices drop
/// their dimensions and new axes (`none`) add theirs of size 1. A computed
/// index keeps its dimension whole here (a gather reads it after the slice,
/// at `computedDims`, positions in the kept shape). `isFull` when the static
/// part reads the whole tensor and adds no axis.
struct SliceBounds {
  llvm::SmallVector<int64_t> start, stride, shape, kept;
  llvm::SmallVector<int64_t> computedDims;
  bool isFull = true;
  bool hasComputed = false;
};

/// One slice `start:stop:step` resolved on a dimension: the indices read
/// are start + step * k for k in [0, size).
struct SliceRange {
  int64_t start, step, size;
};

class Typing {
public:
  explicit Typing(ImportContext &ic) : ic(ic) {}

  mlir::Type elementType(DType dtype) const;
  mlir::RankedTensorType convertType(const TypeAST &type) const;

  /// Fails with an error at `at` when `type`, the type of `what`, is past
  /// the size limits (dialect/Limits.h).
  mlir::LogicalResult checkLimits(mlir::RankedTensorType type, llvm::SMLoc at,
                                  const llvm::Twine &what) const;

  /// `value` as a tensor of `elementType` and `shape`: a tensor as it is, a
  /// weak literal as a constant (a scalar literal splat to `shape`, a literal
  /// array of exactly `shape`). Errors at `useLoc`, or at `litLoc` for a
  /// literal that does not fit the dtype.
  mlir::FailureOr<mlir::Value>
  materialize(const ExprValue &value, mlir::Type elementType,
              llvm::ArrayRef<int64_t> shape, llvm::SMLoc useLoc,
              mlir::OpBuilder &b, llvm::SMLoc litLoc) const;
  /// `value` as a tensor, a literal taking its default dtype (i32 for
  /// integers, f32 otherwise) and its own shape.
  mlir::FailureOr<mlir::Value> materializeDefault(const ExprValue &value,
                                                  llvm::SMLoc litLoc,
                                                  mlir::OpBuilder &b) const;

  /// Gives operands one dtype and one shape, as numpy and JAX do: tensors
  /// must agree on the dtype, which must satisfy `rule`; weak scalar
  /// literals take it and the result's shape (a splat), literal arrays take
  /// it and are broadcast; then every operand whose shape differs from the
  /// result's gets an `arr.broadcast_in_dim`. `cond` (for where) takes part
  /// in the shape only and comes first in the result.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  unify(llvm::ArrayRef<ExprValue> values, llvm::ArrayRef<llvm::SMLoc> litLocs,
        llvm::SMLoc at, llvm::StringRef opName, DTypeRule rule,
        mlir::OpBuilder &b, mlir::Value cond = {}) const;

  /// `v` broadcast to `shape` by numpy's rules (the last dimensions
  /// aligned, each size equal or 1): `v` itself when its shape is `shape`,
  /// else an `arr.broadcast_in_dim`. Errors at `at` ("cannot broadcast
  /// WHAT f32[3] to shape ...").
  mlir::FailureOr<mlir::Value> broadcastTo(mlir::Value v,
                                           llvm::ArrayRef<int64_t> shape,
                                           llvm::SMLoc at, llvm::StringRef what,
                                           mlir::OpBuilder &b) const;

  /// Folds `l op r` of two scalar literals as Python does (a comparison
  /// gives a bool constant; `/` and anything with a float a float literal,
  /// else an int literal), with overflow and range errors.
  mlir::FailureOr<ExprValue> foldLiterals(BinaryExpr *expr, const ExprValue &l,
                                          const ExprValue &r,
                                          mlir::OpBuilder &b) const;

  /// The axes of `axis=` for a rank-`rank` operand, normalized (negative
  /// axes from the end) and sorted: one integer, or (unless `single`) a
  /// tuple of distinct ones. `fn` names the builtin in messages.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  normalizeAxes(Expr *axis, int64_t rank, bool single,
                llvm::StringRef fn) const;
  /// Static integers: `3`, `-1` (when `allowScalar`), or a tuple of them
  /// (`(2, -1)`, `()`).
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  staticInts(Expr *expr, llvm::StringRef what, bool allowScalar) const;
  /// Python's `slice.indices` for every static index of `expr` on `type`.
  mlir::FailureOr<SliceBounds> resolveSlice(SliceExpr *expr,
                                            mlir::RankedTensorType type) const;
  /// Python's `slice.indices` for the slice `idx` on dimension `d` of
  /// `type`; an empty slice is an error.
  mlir::FailureOr<SliceRange> resolveSliceRange(const SliceIndex &idx,
                                                mlir::RankedTensorType type,
                                                int64_t d) const;

  /// Checks a returned (or yielded) value against the declared types (or
  /// the carries' types, named by `carries`): one value per type; a weak
  /// literal takes its type (a scalar literal as a splat of the declared
  /// shape). `what` names the function in messages.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  matchTypes(const ExprValue &value, Expr *expr,
             llvm::ArrayRef<mlir::RankedTensorType> types, llvm::StringRef what,
             mlir::OpBuilder &b,
             llvm::ArrayRef<std::string> carries = {}) const;
  /// The arguments of a call of `decl` (of type `type`): each of its
  /// parameter's type, a literal taking it.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  matchArguments(const FunctionDecl &decl, mlir::FunctionType type,
                 llvm::ArrayRef<ExprValue> args,
                 llvm::ArrayRef<llvm::SMLoc> argLocs, mlir::OpBuilder &b) const;
  /// numpy's matmul on operands of rank 1 or 2: the contracted dimensions
  /// (the last of `lhs`, the first of `rhs`).
  mlir::FailureOr<std::pair<int64_t, int64_t>>
  checkMatmul(llvm::SMLoc at, mlir::RankedTensorType lhs,
              mlir::RankedTensorType rhs) const;

private:
  ImportContext &ic;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_TYPING_H
