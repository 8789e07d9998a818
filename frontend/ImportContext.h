//===- ImportContext.h - what every part of the importer shares -*- C++ -*-===//
//
// The MLIR context, the module being built, source locations and the
// importer's one way to fail: an error at a source position. Import stops at
// the first error (docs/language.md), so every part returns failure right
// after reporting one.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_IMPORTCONTEXT_H
#define VMAPC_FRONTEND_IMPORTCONTEXT_H

#include "frontend/Parser.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"

namespace vmapc::frontend {

class ImportContext {
public:
  ImportContext(const LocationMapper &locs, llvm::SourceMgr &sourceMgr,
                mlir::MLIRContext *context)
      : locs(locs), sourceMgr(sourceMgr), context(context) {}

  mlir::MLIRContext *getContext() const { return context; }
  mlir::ModuleOp getModule() const { return module; }
  void setModule(mlir::ModuleOp m) { module = m; }

  /// Reports `message` at `at` and returns failure.
  mlir::LogicalResult error(llvm::SMLoc at, const llvm::Twine &message) const {
    locs.emitError(at, message);
    return mlir::failure();
  }
  mlir::Location loc(llvm::SMLoc at) const { return locs.get(at); }
  unsigned lineOf(llvm::SMLoc at) const {
    return sourceMgr.getLineAndColumn(at).first;
  }

private:
  const LocationMapper &locs;
  llvm::SourceMgr &sourceMgr;
  mlir::MLIRContext *context;
  mlir::ModuleOp module;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_IMPORTCONTEXT_H
