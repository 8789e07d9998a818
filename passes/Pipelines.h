//===- Pipelines.h - vmapc pass pipelines -----------------------*- C++ -*-===//
//
// The stages of docs/design.md's pipeline, each registered under a name ending
// in
// `-pipeline` so that `vmapc-opt` runs them like any pass:
//   arr-to-linalg-pipeline   .arr IR → one fused linalg schedule per entry
//   arr-bufferize-pipeline   → memrefs, planned into one arena and verified
//   arr-to-llvm-pipeline     → LLVM dialect with C entries (CPU)
//   arr-compile-cpu-pipeline all three
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_PIPELINES_H
#define VMAPC_PASSES_PIPELINES_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace vmapc {

/// arr-vmap, inlining, symbol-dce, canonicalization, convert-arr-to-linalg
/// and elementwise fusion: one straight-line schedule of linalg ops on
/// tensors per entry.
void buildArrToLinalgPipeline(mlir::OpPassManager &pm);

/// Entry results to output arguments, empty-tensor elimination, one-shot
/// bufferization with identity layouts (no deallocation pipeline: the planner
/// owns every buffer), then, if `plan`, arr-plan-buffers and
/// arr-verify-buffer-plan.
void buildArrBufferizePipeline(mlir::OpPassManager &pm, bool plan = true);

/// Planned memref program → LLVM dialect: linalg to loops, f32 exp, log,
/// tanh and pow as polynomials (arr-expand-math), bare-pointer calling
/// convention and one `void NAME(void **)` C entry per entry point.
void buildArrToLLVMPipeline(mlir::OpPassManager &pm);

/// The three above, in order: what `vmapc compile` runs for the CPU.
void buildCompileCpuPipeline(mlir::OpPassManager &pm);

/// Registers the `*-pipeline` names with the pass registry.
void registerPipelines();

} // namespace vmapc

#endif // VMAPC_PASSES_PIPELINES_H
