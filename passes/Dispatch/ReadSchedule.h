//===- ReadSchedule.h - manifest kernels and entries off the IR -*- C++ -*-===//
//
// The artifact's entry (runtime/include/vmapc/ArtifactFormat.h, EntryInfo)
// is read off the planned entry function: its arguments' memref types and
// `arr.*` attributes, its `arr.plan` figures and its schedule
// (runtime/include/vmapc/Schedule.h), read off
// the planned entry function: its `sched.dispatch` ops (bindings traced to
// an input, an output or an arena offset; scalars to n or a loop index) and
// its `scf.for` loops (repeats). The kernel table is read off the kernels'
// attributes after workgroup tiling.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_DISPATCH_READSCHEDULE_H
#define VMAPC_PASSES_DISPATCH_READSCHEDULE_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace vmapc {

/// Every kernel of `module` in module order: name, binding and scalar
/// counts; the grid and scratch bytes if the kernel has them already (a
/// grid of 0s until `--arr-tile-workgroups` has run).
std::vector<KernelInfo> readKernels(mlir::ModuleOp module);

/// The schedule of the planned entry `entry`, its kernels numbered as in
/// `kernels`. Fails with an error on the op that is not part of a schedule.
mlir::LogicalResult readSchedule(mlir::func::FuncOp entry,
                                 const std::vector<KernelInfo> &kernels,
                                 std::vector<Command> &commands);

/// The manifest entry of the planned, exported `fn` (one with `arr.batch`):
/// name, B, the plan's figures, the arguments (dtype, per-example shape,
/// mapped axis, staging offset) and the schedule against `kernels`. Not
/// validated (validateEntry). Fails with an error on `fn`.
mlir::FailureOr<EntryInfo> readEntry(mlir::func::FuncOp fn,
                                     const std::vector<KernelInfo> &kernels);

} // namespace vmapc

#endif // VMAPC_PASSES_DISPATCH_READSCHEDULE_H
