//===- Pipelines.h - vmapc pass pipelines -----------------------*- C++ -*-===//

#ifndef VMAPC_PASSES_PIPELINES_H
#define VMAPC_PASSES_PIPELINES_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace vmapc {

/// `arr-to-linalg-pipeline`: arr-vmap, inlining, canonicalization,
/// convert-arr-to-linalg and elementwise fusion: one straight-line schedule
/// of linalg ops on tensors per entry.
void buildArrToLinalgPipeline(mlir::OpPassManager &pm);

/// Registers the `*-pipeline` names with the pass registry.
void registerPipelines();

} // namespace vmapc

#endif // VMAPC_PASSES_PIPELINES_H
