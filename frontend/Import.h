//===- Import.h - .arr source to the arr dialect ----------------*- C++ -*-===//
//
// Parses a `.arr` program (grammar: docs/language.md) and imports it into
// the arr dialect: one private `func.func` per user function (per-example
// types); one `arr.vmap_call` per application of a vmap, with a generated
// private `func.func @<owner>_inner_<N>` per nested vmap and per-example
// signature; and one public `func.func` per `export`, carrying `arr.batch`
// (i64) and `arr.in_axes`/`arr.out_axes` (arrays of i64 or unit) attributes,
// with the source's parameter names in `arr.name` argument attributes.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_IMPORT_H
#define VMAPC_FRONTEND_IMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace vmapc {

/// Imports the main buffer of `sourceMgr` as a `.arr` program. On a syntax,
/// name, type or shape error, emits `file:line:col: error: ...` through the
/// context's diagnostic engine and returns null.
mlir::OwningOpRef<mlir::ModuleOp> importArr(llvm::SourceMgr &sourceMgr,
                                            mlir::MLIRContext *context);

} // namespace vmapc

#endif // VMAPC_FRONTEND_IMPORT_H
