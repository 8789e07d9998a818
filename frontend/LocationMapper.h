//===- LocationMapper.h - source positions as MLIR locations ----*- C++ -*-===//
//
// The front end's errors are reported at file:line:col of the `.arr` buffer
// through `mlir::emitError`.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_LOCATIONMAPPER_H
#define VMAPC_FRONTEND_LOCATIONMAPPER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

namespace vmapc::frontend {

/// Turns source positions into `FileLineColLoc`s named after the buffer.
class LocationMapper {
public:
  LocationMapper(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                 mlir::MLIRContext *context);
  mlir::Location get(llvm::SMLoc loc) const;
  /// Reports `message` at `loc`; on a line with non-ASCII characters, with
  /// a note that shows the line and a caret (LLVM prints none there).
  void emitError(llvm::SMLoc loc, const llvm::Twine &message) const;
  mlir::MLIRContext *getContext() const { return context; }

private:
  llvm::SourceMgr &sourceMgr;
  unsigned bufferId;
  mlir::MLIRContext *context;
  mlir::StringAttr filename;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_LOCATIONMAPPER_H
