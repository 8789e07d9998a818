//===- Names.h - names and scopes of a .arr program -------------*- C++ -*-===//
//
// The module's top-level names (functions, named maps, exports), which no
// local name may hide, and the scopes of function and loop bodies. A loop
// body is isolated from above in the IR (`arr.for`): an outer tensor it
// reads is captured as a const, a block argument, on first use.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_NAMES_H
#define VMAPC_FRONTEND_NAMES_H

#include "frontend/AST.h"
#include "frontend/ExprValue.h"
#include "frontend/ImportContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

namespace vmapc::frontend {

struct VmapTemplate;

/// A user function and its `func.func` (declared before any body).
struct FnInfo {
  FunctionDecl *decl = nullptr;
  mlir::func::FuncOp op;
};

/// A named map `fn g = vmap(...);`, resolved on first use.
struct MapInfo {
  MapDecl *decl = nullptr;
  VmapTemplate *tmpl = nullptr;
  bool resolving = false;
};

struct Variable {
  ExprValue value;
  llvm::SMLoc loc;
  /// A loop carry whose dtype came from a literal initial value: the
  /// literal as written (`0`), for messages; empty otherwise.
  std::string literalInit;
};

using Scope = llvm::StringMap<Variable>;
struct BodyContext;

/// The body of a `for` being built: outer tensors it reads become consts
/// (block arguments after the index), in order of first use.
struct LoopFrame {
  BodyContext *outer;
  mlir::Block *block;
  llvm::SmallVector<mlir::Value> consts;
  llvm::DenseMap<mlir::Value, mlir::Value> captured;
};

/// Where a body's ops go and which names it sees.
struct BodyContext {
  mlir::OpBuilder &b;
  Scope &scope;
  /// The function (or export) that owns the body: the prefix of the
  /// functions generated for its vmaps.
  llvm::StringRef owner;
  LoopFrame *loop = nullptr;
};

/// Whether `name` is `vmap` or a builtin, which no definition may take.
bool isReservedName(llvm::StringRef name);
/// `true`, `false`, `inf`, `nan`: literals, which no name may shadow.
bool isLiteralName(llvm::StringRef name);

class Names {
public:
  explicit Names(ImportContext &ic) : ic(ic) {}

  /// Declares every top-level name of `ast`, in source order: an error at
  /// the later of two definitions of a name, or at one that takes a
  /// reserved name.
  mlir::LogicalResult declare(Module &ast);

  FnInfo *findFunction(llvm::StringRef name);
  MapInfo *findMap(llvm::StringRef name);
  bool isFunctionOrMap(llvm::StringRef name) const {
    return fns.count(name) || maps.count(name);
  }
  bool isExport(llvm::StringRef name) const {
    return exportNames.contains(name);
  }
  /// Whether a top-level definition takes `name`.
  bool isTopLevel(llvm::StringRef name) const {
    return topLevelNames.count(name);
  }
  /// Whether `fn` is a user function (not one generated for a vmap).
  bool isUserFunction(mlir::func::FuncOp fn) const;

  /// Checks the parameters of `decl`: distinct, and hiding no function.
  mlir::LogicalResult checkParams(const FunctionDecl &decl) const;
  /// Checks that `name`, about to be defined in `ctx` as a `what`, is new.
  mlir::LogicalResult checkNewName(llvm::StringRef name, llvm::SMLoc loc,
                                   BodyContext &ctx, llvm::StringRef what);
  /// The variable `name` as seen from `ctx` (searching enclosing bodies).
  const Variable *findVariable(llvm::StringRef name, BodyContext &ctx);
  /// As findVariable, but an outer tensor seen from a loop body is captured
  /// as a const of every loop in between, and the capture bound in `ctx`.
  std::optional<Variable> lookupVariable(llvm::StringRef name,
                                         BodyContext &ctx);

private:
  ExprValue capture(const ExprValue &value, LoopFrame &frame);

  ImportContext &ic;
  llvm::StringMap<FnInfo> fns;
  llvm::StringMap<MapInfo> maps;
  llvm::StringSet<> exportNames;
  llvm::StringMap<llvm::SMLoc> topLevelNames;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_NAMES_H
