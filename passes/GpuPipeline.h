//===- GpuPipeline.h - the GPU (NVVM/PTX) pipeline --------------*- C++ -*-===//
//
// The GPU branch of docs/design.md's pipeline, registered like Pipelines.h's:
//   arr-to-nvvm-pipeline      planned memref program → host LLVM dialect with
//                             one gpu.launch_func per loop nest and a
//                             gpu.binary (PTX, cubin or fatbin) per kernel
//   arr-compile-gpu-pipeline  arr-to-linalg + arr-bufferize + arr-to-nvvm
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_GPUPIPELINE_H
#define VMAPC_PASSES_GPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace vmapc {

struct GpuPipelineOptions
    : public mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("NVIDIA chip (SM) to compile for"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVPTX target features (the PTX ISA version)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary holds: isa (PTX text), bin (cubin) or "
                     "fatbin"),
      llvm::cl::init("isa")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit root (libdevice, ptxas, fatbinary)"),
      llvm::cl::init("/usr/local/cuda")};
  Option<unsigned> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per block that each loop nest is tiled to"),
      llvm::cl::init(256)};
  Option<bool> serialize{
      *this, "serialize",
      llvm::cl::desc("Run gpu-module-to-binary (false: leave each kernel as "
                     "a gpu.module in the LLVM/NVVM dialects; needs no "
                     "toolkit)"),
      llvm::cl::init(true)};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("NVVM optimization level"),
                            llvm::cl::init(3)};
};

/// Planned memref program (after arr-bufferize-pipeline) → host LLVM dialect
/// plus one gpu.binary per kernel. Each linalg op becomes an scf.parallel
/// over its parallel dimensions (reduction dimensions stay a sequential
/// scf.for inside each thread), tiled to `threadsPerBlock` threads along the
/// innermost dimensions, mapped to blocks and threads and outlined. Arena
/// views are sunk into the kernels, so kernels take the entry's own memref
/// arguments (inputs, outputs, the one arena) as bare pointers and nothing is
/// allocated. Anything that would still run on the host (a loop nest that
/// was not mapped, an allocation) is an error.
void buildArrToNvvmPipeline(mlir::OpPassManager &pm,
                            const GpuPipelineOptions &options);

/// arr-to-linalg-pipeline, arr-bufferize-pipeline, arr-to-nvvm-pipeline.
void buildCompileGpuPipeline(mlir::OpPassManager &pm,
                             const GpuPipelineOptions &options);

/// Registers the two pipelines and the helper passes that they use
/// (arr-copies-to-linalg, arr-gpu-tile-parallel-loops,
/// arr-gpu-sink-into-launch).
void registerGpuPipelines();

} // namespace vmapc

#endif // VMAPC_PASSES_GPUPIPELINE_H
