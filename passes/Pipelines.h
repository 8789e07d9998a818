//===- Pipelines.h - vmapc pass pipelines -----------------------*- C++ -*-===//
//
// The stages of docs/design.md's pipeline, each registered under a name
// ending in `-pipeline` so that `vmapc-opt` runs them like any pass:
//   arr-to-linalg-pipeline   .arr IR → one fused linalg program per entry
//   arr-bufferize-pipeline   → dispatches of kernels, a schedule per entry
//                              on memrefs, planned into one arena, verified
//   arr-cpu-kernel-pipeline  → kernels tiled into workgroups, vectorized
//                              for one ISA level (isa=...), bufferized
//   arr-to-llvm-pipeline     the kernel pipeline, then → LLVM dialect with a
//                              C function and a descriptor per kernel
//   arr-compile-cpu-pipeline all of them
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_PIPELINES_H
#define VMAPC_PASSES_PIPELINES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace vmapc {

/// arr-vmap, inlining, symbol-dce, canonicalization, convert-arr-to-linalg
/// and elementwise fusion: one straight-line schedule of linalg ops on
/// tensors per entry.
void buildArrToLinalgPipeline(mlir::OpPassManager &pm);

/// The linalg ops grouped into kernels and a schedule of dispatches
/// (arr-pack-operands, arr-form-dispatches); entry results to output
/// arguments, empty-tensor elimination, one-shot bufferization of the
/// entries with identity layouts (no deallocation pipeline: the planner owns
/// every buffer); the copies bufferization adds become dispatches too; then,
/// if `plan`, arr-plan-buffers and arr-verify-buffer-plan. With `stageAll`
/// every argument gets a staging slot in the arena (CUDA), not only mapped
/// ones, and contractions read their weights as given (no column panels:
/// CUDA kernels stage their own tiles). `maxFusedBytesPerExample` (0: no limit)
/// is arr-form-dispatches' bound on a dispatch's fused producers' results per
/// example (CUDA: GpuPipeline.h's kCudaMaxFusedBytesPerExample).
/// `arenaAlignment` and `bufferReuse` are arr-plan-buffers' options (alignment
/// 0: the target's, BufferPlan.h's kCudaArenaAlignment with `stageAll`, which
/// only CUDA sets, else kCpuArenaAlignment).
void buildArrBufferizePipeline(mlir::OpPassManager &pm, bool plan = true,
                               bool stageAll = false,
                               int64_t maxFusedBytesPerExample = 0,
                               int64_t arenaAlignment = 0,
                               bool bufferReuse = true);

/// A planned program's kernels for the CPU: entries erased (their schedules
/// read), each kernel tiled into workgroups, bufferized, one call per
/// workgroup with its scratch on the stack.
/// `isa` is the vector ISA level (passes/Codegen/TileSizes.h: x86-64,
/// x86-64-v3, x86-64-v4). `maxWorkgroupScratch` bounds a workgroup's fused
/// intermediates (bytes; 0: the CPU's default, TileSizes.h): an artifact
/// that also holds CUDA code shares the CPU's grids and sets the GPU's.
void buildCpuKernelPipeline(mlir::OpPassManager &pm,
                            llvm::StringRef isa = "x86-64",
                            int64_t maxWorkgroupScratch = 0);

/// The first half of buildCpuKernelPipeline, on the whole planned program:
/// each entry's descriptor, then the entries and schedules erased (stage
/// Kernels: the kernels, which share nothing from here on).
void buildCpuEntriesPipeline(mlir::OpPassManager &pm);

/// The second half of buildCpuKernelPipeline, on any subset of a program's
/// kernels (codegen/SplitKernels.h): each kernel tiled into workgroups,
/// vectorized and bufferized. Options as buildCpuKernelPipeline's.
void buildCpuKernelBodiesPipeline(mlir::OpPassManager &pm,
                                  llvm::StringRef isa = "x86-64",
                                  int64_t maxWorkgroupScratch = 0);

/// CPU kernels → LLVM dialect: vector ops lowered for the CPU (8 x 8 and
/// 4 x 8 transposes as AVX's shuffles where `isa` has AVX), f32 exp, log,
/// tanh and pow as polynomials (arr-expand-math, in the forms that suit
/// whether `isa` has FMA), and the C entry `vmapc_kernel_NAME` and
/// descriptor of each kernel.
void buildKernelsToLLVMPipeline(mlir::OpPassManager &pm,
                                llvm::StringRef isa = "x86-64");

/// buildCpuKernelPipeline then buildKernelsToLLVMPipeline.
void buildArrToLLVMPipeline(mlir::OpPassManager &pm,
                            llvm::StringRef isa = "x86-64");

/// The three above, in order: what `vmapc compile` runs for the CPU at one
/// ISA level (codegen/Compile.cpp runs the last two once per level from the
/// planned program).
void buildCompileCpuPipeline(mlir::OpPassManager &pm,
                             llvm::StringRef isa = "x86-64");

/// Registers the `*-pipeline` names with the pass registry.
void registerPipelines();

} // namespace vmapc

#endif // VMAPC_PASSES_PIPELINES_H
