//===- WorkgroupLoop.h - a kernel's grid loop as one workgroup --*- C++ -*-===//
//
// After arr-tile-workgroups and bufferization, a kernel's body holds one
// `scf.forall` over its grid. Both targets replace it by its body for one
// workgroup, whose ids the target supplies: the CPU as the kernel's three
// trailing arguments (arr-cpu-workgroups), CUDA as `gpu.block_id`
// (arr-gpu-workgroup-ids).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_WORKGROUPLOOP_H
#define VMAPC_PASSES_CODEGEN_WORKGROUPLOOP_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace vmapc {

/// Replaces the grid loop among `body`'s top-level ops (an `scf.forall` of
/// at most 3 dimensions, no outputs) by its body: induction variable `d`
/// becomes lower bound + id(d) x step, where id(d) =
/// `workgroupId(builder, loc, d)` is built at the loop's place, with its
/// location (d = 0 is x). A
/// body without a grid loop is left as it is. Fails with an error on
/// `kernel` for more than one loop, on the loop if it is not such a grid.
mlir::LogicalResult lowerWorkgroupLoop(
    mlir::Operation *kernel, mlir::Block &body,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location, unsigned)>
        workgroupId);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_WORKGROUPLOOP_H
