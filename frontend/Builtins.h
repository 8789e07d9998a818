//===- Builtins.h - the table of builtin functions --------------*- C++ -*-===//
//
// One row per builtin (docs/language.md, "Builtins"): its name, arity,
// keyword arguments with their defaults, the dtype rule of its array
// operands, and how it is emitted. One argument checker reads the row
// before anything is evaluated (checkArguments); the emitter then reads the
// arguments through a `BuiltinCall`. A builtin that maps to an existing op
// with an existing emitter (a unary, binary or reduction op) is one row.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_BUILTINS_H
#define VMAPC_FRONTEND_BUILTINS_H

#include "frontend/AST.h"
#include "frontend/ExprValue.h"
#include "frontend/ImportContext.h"
#include "frontend/Names.h"
#include "frontend/Typing.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace vmapc::frontend {

/// How the importer evaluates an argument expression (implemented by the IR
/// generator, MLIRGen.cpp).
class ExprEvaluator {
public:
  virtual ~ExprEvaluator() = default;
  /// Any value, tuples included.
  virtual mlir::FailureOr<ExprValue> evalAny(Expr *expr, BodyContext &ctx) = 0;
  /// One value (a tensor or a weak literal), not a tuple.
  virtual mlir::FailureOr<ExprValue> eval(Expr *expr, BodyContext &ctx) = 0;
  /// One tensor: a literal takes its default dtype.
  virtual mlir::FailureOr<mlir::Value> evalTensor(Expr *expr,
                                                  BodyContext &ctx) = 0;
};

class BuiltinCall;

/// A keyword argument and what leaving it out means.
struct BuiltinKeyword {
  llvm::StringLiteral name;
  llvm::StringLiteral defaultValue;
};

/// A row of the table.
struct Builtin {
  llvm::StringLiteral name;
  unsigned minArgs, maxArgs;
  llvm::ArrayRef<BuiltinKeyword> keywords;
  /// The dtype rule of its array operands, checked by its emitter
  /// (BuiltinCall::requireDType or Typing::unify).
  DTypeRule dtype;
  mlir::FailureOr<ExprValue> (*emit)(BuiltinCall &call);
};

/// Every builtin, in the order docs/language.md lists them.
llvm::ArrayRef<Builtin> getBuiltins();
/// The row of `name`, or null.
const Builtin *lookupBuiltin(llvm::StringRef name);
inline bool isBuiltin(llvm::StringRef name) {
  return lookupBuiltin(name) != nullptr;
}

/// A call of a builtin being emitted: its arguments, and the importer's
/// parts an emitter uses.
class BuiltinCall {
public:
  BuiltinCall(const Builtin &builtin, CallExpr *expr, BodyContext &ctx,
              ImportContext &ic, const Typing &typing, ExprEvaluator &evaluator)
      : builtin(builtin), expr(expr), ctx(ctx), ic(ic), typing(typing),
        evaluator(evaluator) {}

  /// Checks the call against the row: known keywords, then the number of
  /// positional arguments.
  mlir::LogicalResult checkArguments() const;

  llvm::StringRef name() const { return builtin.name; }
  const Builtin &getBuiltin() const { return builtin; }
  llvm::SMLoc loc() const { return expr->getLoc(); }
  mlir::Location opLoc() const { return ic.loc(expr->getLoc()); }
  mlir::OpBuilder &builder() const { return ctx.b; }
  const Typing &getTyping() const { return typing; }
  ImportContext &getContext() const { return ic; }
  mlir::MLIRContext *getMLIRContext() const { return ic.getContext(); }

  size_t numArgs() const { return expr->args.size(); }
  Expr *arg(size_t i) const { return expr->args[i].get(); }
  llvm::SMLoc argLoc(size_t i) const { return expr->args[i]->getLoc(); }
  /// The value of keyword `name`, or null when the call leaves it out.
  Expr *keyword(llvm::StringRef name) const;

  mlir::FailureOr<ExprValue> evalAny(size_t i) const {
    return evaluator.evalAny(arg(i), ctx);
  }
  mlir::FailureOr<ExprValue> eval(size_t i) const {
    return evaluator.eval(arg(i), ctx);
  }
  mlir::FailureOr<mlir::Value> evalTensor(size_t i) const {
    return evaluator.evalTensor(arg(i), ctx);
  }
  /// Every positional argument, evaluated.
  mlir::FailureOr<llvm::SmallVector<ExprValue>> evalArgs() const;

  /// Checks the row's dtype rule on `type`, the type of argument `i`.
  mlir::LogicalResult requireDType(mlir::Type type, size_t i) const;
  mlir::LogicalResult error(llvm::SMLoc at, const llvm::Twine &message) const {
    return ic.error(at, message);
  }

private:
  const Builtin &builtin;
  CallExpr *expr;
  BodyContext &ctx;
  ImportContext &ic;
  const Typing &typing;
  ExprEvaluator &evaluator;
};

//===----------------------------------------------------------------------===//
// What emitters share (Builtins.cpp)
//===----------------------------------------------------------------------===//

/// The reduced dimensions of `axis=` on `type` (every dimension when it is
/// left out or none).
mlir::FailureOr<llvm::SmallVector<int64_t>>
reducedDims(BuiltinCall &call, mlir::RankedTensorType type);
/// The value of `keepdims=` (false when left out): `true` or `false`.
mlir::FailureOr<bool> keepDims(BuiltinCall &call);
/// `reduced` (`operand` reduced over `dims`) with those dimensions back as
/// size 1 (numpy's keepdims).
mlir::Value keepReducedDims(BuiltinCall &call, mlir::Value reduced,
                            mlir::RankedTensorType operand,
                            llvm::ArrayRef<int64_t> dims);
/// `v` converted to `elementType` (itself when it has it).
mlir::Value convertTo(BuiltinCall &call, mlir::Value v, mlir::Type elementType);
/// A splat constant of `type` (f32 or i32) with `value` converted to its
/// dtype.
mlir::Value splatConstant(BuiltinCall &call, mlir::RankedTensorType type,
                          double value);
/// `v != 0` as bool (itself when it is bool).
mlir::Value nonZero(BuiltinCall &call, mlir::Value v);

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_BUILTINS_H
