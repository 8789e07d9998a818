//===- GpuPipeline.h - the CUDA (NVVM/PTX) pipeline -------------*- C++ -*-===//
//
// The CUDA branch of docs/design.md's pipeline: the kernels of a planned
// program (the schedule's dispatches, as Pipelines.h's CPU branch sees them)
// become NVVM kernels in one gpu.module, serialized to PTX; the runtime's
// CUDA backend launches them as the schedule says. Registered like
// Pipelines.h's:
//   arr-cuda-kernel-pipeline  planned program → `gpu.module @vmapc_kernels`
//                             of NVVM kernels (the schedule's dispatches)
//   arr-to-nvvm-pipeline      that, then the gpu.module to a gpu.binary
//                             holding the PTX (format=isa) or a cubin (bin)
//   arr-compile-gpu-pipeline  arr-to-linalg + arr-bufferize (every argument
//                             staged) + arr-to-nvvm
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_GPUPIPELINE_H
#define VMAPC_PASSES_GPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace vmapc {

/// arr-form-dispatches' bound on a dispatch's fused producers' results per
/// example when the schedule runs on CUDA: a workgroup of one example then
/// keeps at most 96 KiB of them in shared memory, two blocks per sm_90 SM
/// (227 KiB). Attention's 64 KiB scores and 64 KiB exp per example go to
/// two dispatches.
constexpr int64_t kCudaMaxFusedBytesPerExample = 96 << 10;

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
  Option<std::string> tileTarget{
      *this, "tile-target",
      llvm::cl::desc("Whose workgroup tiles the grid uses: cuda, or cpu when "
                     "one artifact holds both (one schedule for both)"),
      llvm::cl::init("cuda")};
  Option<int64_t> maxWorkgroupScratch{
      *this, "max-workgroup-scratch",
      llvm::cl::desc("Most bytes of fused intermediates a workgroup keeps "
                     "(arr-tile-workgroups; 0: the tile target's default). "
                     "Must match the CPU's when the grids are the CPU's"),
      llvm::cl::init(0)};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bits of the kernels' index arithmetic: 32 or 64; 0 "
                     "means 64 here (vmapc compile picks 32 when every "
                     "byte offset fits in an int32, Compile.cpp)"),
      llvm::cl::init(0)};
  Option<unsigned> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads of a block (a multiple of 32, at most 1024)"),
      llvm::cl::init(256)};
  Option<bool> serialize{
      *this, "serialize",
      llvm::cl::desc("Run gpu-module-to-binary (false: leave the kernels in "
                     "a gpu.module in the LLVM/NVVM dialects; needs no "
                     "toolkit)"),
      llvm::cl::init(true)};
  Option<unsigned> optLevel{*this, "opt-level",
                            llvm::cl::desc("NVVM optimization level"),
                            llvm::cl::init(3)};
};

/// A planned program's kernels for CUDA: entry descriptors emitted,
/// schedules erased, each kernel tiled into workgroups (`tileTarget`'s
/// tiles), bufferized, and made a `gpu.func` of the `@vmapc_kernels`
/// gpu.module (buildGpuWorkgroupsPipeline: a block per workgroup, its ops
/// spread over `threadsPerBlock` threads, scratch in shared memory), lowered
/// to NVVM with bare-pointer arguments; math ops call libdevice.
void buildCudaKernelPipeline(mlir::OpPassManager &pm,
                             const GpuPipelineOptions &options);

/// Bufferized kernels to CUDA kernels of `gpu.module @vmapc_kernels`, one
/// pass a job (Passes.td), as IREE's Codegen/Common/GPU: outline, workgroup
/// ids, shared-memory promotion, block size (`threadsPerBlock`), reductions,
/// contraction tiles, thread distribution, FMA contraction, descriptors
/// (at most `maxSharedBytes` of shared memory a block). Registered as the
/// pipeline arr-gpu-workgroups.
void buildGpuWorkgroupsPipeline(mlir::OpPassManager &pm,
                                int64_t threadsPerBlock,
                                int64_t maxSharedBytes = 232448);

/// buildCudaKernelPipeline, then (if `serialize`) gpu-module-to-binary.
void buildArrToNvvmPipeline(mlir::OpPassManager &pm,
                            const GpuPipelineOptions &options);

/// arr-to-linalg-pipeline, arr-bufferize-pipeline with every argument
/// staged (the GPU copies host arrays into the arena), arr-to-nvvm-pipeline.
void buildCompileGpuPipeline(mlir::OpPassManager &pm,
                             const GpuPipelineOptions &options);

/// Registers arr-gpu-workgroups and the three pipelines.
void registerGpuPipelines();

} // namespace vmapc

#endif // VMAPC_PASSES_GPUPIPELINE_H
