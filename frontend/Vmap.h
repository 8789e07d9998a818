//===- Vmap.h - vmap templates and their application ------------*- C++ -*-===//
//
// `vmap(f, in_axes=..., out_axes=..., axis_size=...)` is a template: its
// axis size, and so the per-example types of a nested level, are known only
// where it is applied. Each application emits one `arr.vmap_call`; a nested
// vmap is instantiated as a generated private `func.func @<owner>_inner_<N>`
// per per-example signature (cached).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_VMAP_H
#define VMAPC_FRONTEND_VMAP_H

#include "frontend/AST.h"
#include "frontend/ExprValue.h"
#include "frontend/ImportContext.h"
#include "frontend/Names.h"
#include "frontend/Typing.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace vmapc::frontend {

/// `expr` as a `vmap(...)` call, or null.
CallExpr *asVmapCall(Expr *expr);

/// Something vmap can map: a user function or another vmap.
struct Callable {
  FnInfo *fn = nullptr;
  VmapTemplate *map = nullptr;
};

/// `in_axes=` / `out_axes=`: one entry for all, or a tuple.
struct AxesSpec {
  bool isTuple = false;
  llvm::SmallVector<std::optional<int64_t>> entries{std::optional<int64_t>(0)};
  llvm::SmallVector<llvm::SMLoc> locs{llvm::SMLoc()};
  llvm::SMLoc loc;

  std::optional<int64_t> get(size_t i) const {
    return isTuple ? entries[i] : entries[0];
  }
  llvm::SMLoc getLoc(size_t i) const {
    llvm::SMLoc l = isTuple ? locs[i] : locs[0];
    return l.isValid() ? l : loc;
  }
};

/// `vmap(inner, in_axes=..., out_axes=..., axis_size=...)`, not yet applied.
struct VmapTemplate {
  Callable inner;
  AxesSpec inAxes, outAxes;
  std::optional<int64_t> axisSize; // axis_size= or (in an export) batch=
  llvm::SMLoc axisSizeLoc;
  Expr *donate = nullptr; // donate= (exports only)
  llvm::SMLoc loc;
  std::string owner;   // prefix of generated functions
  std::string display; // how messages name it
  /// vmap levels down to the function: 1 for vmap(f), 2 for vmap(vmap(f)).
  unsigned depth = 1;
};

/// The per-example signature of a callable.
struct Signature {
  llvm::SmallVector<mlir::RankedTensorType> params;
  llvm::SmallVector<mlir::RankedTensorType> results;
};

class VmapResolver {
public:
  VmapResolver(ImportContext &ic, Names &names, const Typing &typing)
      : ic(ic), names(names), typing(typing) {}

  /// The template of a `vmap(...)` call written in `owner`; `isExport` for
  /// an export's, which takes batch= instead of axis_size=.
  mlir::FailureOr<VmapTemplate *>
  buildTemplate(CallExpr *call, llvm::StringRef owner, bool isExport);
  /// The template of a named map, built on first use (at `useLoc`).
  mlir::FailureOr<VmapTemplate *> resolveMap(MapInfo &map, llvm::SMLoc useLoc);

  /// Emits the application of `t` to `operands` at `b`: one arr.vmap_call.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  applyTemplate(VmapTemplate &t, llvm::ArrayRef<ExprValue> operands,
                llvm::ArrayRef<llvm::SMLoc> operandLocs, llvm::SMLoc callLoc,
                mlir::OpBuilder &b);

  /// The per-example signature of `c`, when it follows from declarations
  /// alone (every level has a static axis size).
  mlir::FailureOr<Signature> deriveSignature(const Callable &c,
                                             llvm::SMLoc useLoc);
  /// The user function at the bottom of `c`.
  FnInfo *innermostFn(const Callable &c) const;

  /// The function whose body is being imported: mapping it is recursion.
  void setImporting(FnInfo *fn) { importing = fn; }

private:
  mlir::FailureOr<Callable> resolveCallable(Expr *expr, llvm::StringRef owner);
  mlir::FailureOr<AxesSpec> parseAxes(Expr *expr, llvm::StringRef what);
  unsigned arity(const Callable &c) const;
  unsigned numResults(const Callable &c) const;
  std::string displayName(const Callable &c) const;
  /// `c` as a function of the per-example types `types`: a user function
  /// itself, a template instantiated (and cached) as a generated function.
  mlir::FailureOr<mlir::func::FuncOp>
  instantiate(const Callable &c, llvm::ArrayRef<mlir::RankedTensorType> types,
              llvm::SMLoc useLoc);
  std::string freshInnerName(llvm::StringRef owner);

  ImportContext &ic;
  Names &names;
  const Typing &typing;
  std::vector<std::unique_ptr<VmapTemplate>> templates;
  std::map<std::pair<VmapTemplate *, std::vector<const void *>>,
           mlir::func::FuncOp>
      instances;
  llvm::StringMap<unsigned> innerCounters;
  unsigned resolvingMaps = 0;
  FnInfo *importing = nullptr;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_VMAP_H
