//===- InitAll.h - one registration entry point for every tool --*- C++ -*-===//

#ifndef VMAPC_PASSES_INITALL_H
#define VMAPC_PASSES_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace vmapc {
/// Registers the arr and sched dialects and what the compile pipelines
/// (Pipelines.h, GpuPipeline.h) need of upstream: the dialects they create
/// ops of, those dialects' interface models (bufferization, value bounds,
/// tiling, conversion to LLVM) and their LLVM IR translations. Nothing
/// more: a context that loads every available dialect (a compile does,
/// before its threads start) and the canonicalizer, which gathers the
/// patterns of every loaded op, pay for each dialect registered.
void registerCompilerDialects(mlir::DialectRegistry &registry);
/// registerCompilerDialects and every upstream dialect, extension and
/// translation: for vmapc-opt, whose inputs may hold any of them.
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers vmapc's passes and pipelines and the upstream passes, by name
/// (textual pipelines: vmapc-opt; a compile builds its pipelines in C++).
void registerAllPasses();
} // namespace vmapc

#endif // VMAPC_PASSES_INITALL_H
