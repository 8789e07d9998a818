//===- Parser.h - recursive-descent parser for .arr -------------*- C++ -*-===//
//
// Parses a whole `.arr` buffer into a `Module` (grammar: docs/language.md).
// The first syntax error is reported through `mlir::emitError` at its
// file:line:col and parsing stops.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_PARSER_H
#define VMAPC_FRONTEND_PARSER_H

#include "frontend/AST.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

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

/// Parses the buffer; returns nullopt after reporting the first error.
std::optional<Module> parseModule(llvm::StringRef buffer,
                                  const LocationMapper &locs);

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_PARSER_H
