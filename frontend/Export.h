//===- Export.h - the entry points of a .arr program ------------*- C++ -*-===//
//
// `export NAME = vmap(f, in_axes=..., out_axes=..., batch=B, donate=...);`
// becomes a
// public `func.func @NAME` over batched types whose body is one
// `arr.vmap_call`: the entry point the runtime runs. It carries the batch
// size, the axes and the parameter names (docs/runtime.md, "Entries"); its
// inputs and outputs are within the artifact's limits
// (runtime/include/vmapc/ArtifactFormat.h).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_EXPORT_H
#define VMAPC_FRONTEND_EXPORT_H

#include "frontend/AST.h"
#include "frontend/ImportContext.h"
#include "frontend/Typing.h"
#include "frontend/Vmap.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace vmapc::frontend {

/// Emits the entry of `ex` at the end of the module.
mlir::LogicalResult importExport(ExportDecl &ex, ImportContext &ic,
                                 VmapResolver &vmaps, const Typing &typing);

/// `donate=(k, ...)` of entry `fn` (JAX's donate_argnums): each donated
/// input, which must be mapped, goes to the first output not yet paired
/// with the same batched type and batch axis, marked `arr.donated_from = k`
/// (docs/runtime.md, "Donation"). Errors at `donate`.
mlir::LogicalResult pairDonations(mlir::func::FuncOp fn, Expr *donate,
                                  ImportContext &ic, const Typing &typing);

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_EXPORT_H
