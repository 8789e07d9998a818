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
#include "frontend/LocationMapper.h"

#include <optional>

namespace vmapc::frontend {

/// Parses the buffer; returns nullopt after reporting the first error.
std::optional<Module> parseModule(llvm::StringRef buffer,
                                  const LocationMapper &locs);

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_PARSER_H
