//===- InitAll.h - one registration entry point for every tool --*- C++ -*-===//

#ifndef VMAPC_PASSES_INITALL_H
#define VMAPC_PASSES_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace vmapc {
/// Registers the arr dialect, the upstream dialects the pipelines reach and
/// their interface models (bufferization, LLVM translation).
void registerAllDialects(mlir::DialectRegistry &registry);
/// Registers vmapc's passes and pipelines and the upstream passes.
void registerAllPasses();
} // namespace vmapc

#endif // VMAPC_PASSES_INITALL_H
