//===- CallGraph.h - recursion and nesting depth ----------------*- C++ -*-===//
//
// The checks of the whole imported module: no recursion (the language has
// none), and calls, vmaps and `for` loops nested at most kMaxNestingDepth
// levels in one another (dialect/Limits.h), so that no later pass recurses
// deeper than that.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_CALLGRAPH_H
#define VMAPC_FRONTEND_CALLGRAPH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace vmapc::frontend {

/// Reports recursion, or nesting past the limit, at the call that closes
/// the cycle or passes the limit. `isUserFunction` tells user functions
/// (named in messages) from generated ones (vmap levels).
mlir::LogicalResult
checkCallGraph(mlir::ModuleOp module,
               llvm::function_ref<bool(mlir::func::FuncOp)> isUserFunction);

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_CALLGRAPH_H
