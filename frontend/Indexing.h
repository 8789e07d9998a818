//===- Indexing.h - x[...] and x.at[...] --------------------------*- C++
//-*-===//
//
// The indexing forms of the language (docs/language.md, "Indexing"), with
// JAX's semantics:
// - `x[i, a:b, ...]`: static slices and integer literals as numpy's basic
//   indexing (`arr.slice`, `arr.reshape`), then each computed index (an i32
//   scalar at run time) as an `arr.gather` along its dimension, mode
//   `clamp` (a negative index counts from the end, then the index is
//   clamped into range);
// - `x.at[...].set(v)` (`add`, `mul`, `min`, `max`): `arr.scatter`. Each
//   dimension takes `:`, an index (a literal or an i32 scalar), a static
//   slice, or an i32 array of indices; at most one array or partial slice,
//   after every scalar index but the last dimensions' `:`. Several scalar
//   indices nest: the row at the first is gathered, updated, and set back.
//   `v` broadcasts to the updated shape.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_INDEXING_H
#define VMAPC_FRONTEND_INDEXING_H

#include "frontend/AST.h"
#include "frontend/Builtins.h"
#include "frontend/ExprValue.h"
#include "frontend/ImportContext.h"
#include "frontend/Typing.h"

#include "dialect/ArrDialect.h"

namespace vmapc::frontend {

class IndexingEmitter {
public:
  IndexingEmitter(ImportContext &ic, const Typing &typing,
                  ExprEvaluator &evaluator)
      : ic(ic), typing(typing), evaluator(evaluator) {}

  /// `x[...]`.
  mlir::FailureOr<ExprValue> emitIndex(SliceExpr *expr, BodyContext &ctx);
  /// `x.at[...].method(v)`.
  mlir::FailureOr<ExprValue> emitAtUpdate(AtUpdateExpr *expr, BodyContext &ctx);

private:
  /// One dimension of `x.at[...]`: every element (`:`), one index, or an
  /// array of indices.
  struct Target {
    enum Kind { all, scalar, array } kind = all;
    mlir::Value indices;
    llvm::SMLoc loc;
  };

  /// A computed index of `x[...]` or `x.at[...]`: an i32 tensor (rank 0
  /// unless `allowArray`).
  mlir::FailureOr<mlir::Value> evalIndex(Expr *expr, bool allowArray,
                                         BodyContext &ctx);
  /// `x` with the elements `targets` selects combined with `updates` (a
  /// weak literal or a tensor of x's dtype that broadcasts).
  mlir::FailureOr<mlir::Value>
  update(mlir::Value x, llvm::ArrayRef<Target> targets, arr::ScatterKind kind,
         const ExprValue &updates, AtUpdateExpr *expr, BodyContext &ctx);

  ImportContext &ic;
  const Typing &typing;
  ExprEvaluator &evaluator;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_INDEXING_H
