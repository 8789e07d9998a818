//===- Pipelines.cpp - vmapc pass pipelines -------------------------------===//

#include "passes/Pipelines.h"

#include "passes/BufferPlan.h"
#include "passes/Codegen/TileSizes.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void vmapc::buildArrToLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createArrVmap());
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertArrToLinalg());
  pm.addPass(createArrFuseElementwise());
  pm.addPass(createArrFuseSiblings());
  // What a loop body reads but does not change, computed once (`U @ x` in
  // `h = tanh(W @ h + U @ x)`).
  pm.addPass(createLoopInvariantCodeMotionPass());
  // No CSE from here on: it would merge the `linalg.fill` inits of two
  // contractions of one shape, and bufferization would then have to copy
  // the shared init for the second one (a copy and a buffer more).
  pm.addPass(createCanonicalizerPass());
}

void vmapc::buildArrBufferizePipeline(OpPassManager &pm, bool plan,
                                      bool stageAll,
                                      int64_t maxFusedBytesPerExample,
                                      int64_t arenaAlignment,
                                      bool bufferReuse) {
  ArrPackOperandsOptions packing;
  packing.panels = !stageAll;
  pm.addPass(createArrPackOperands(packing));
  ArrFormDispatchesOptions dispatches;
  dispatches.maxFusedBytesPerExample = maxFusedBytesPerExample;
  pm.addPass(createArrFormDispatches(dispatches));
  pm.addPass(createCanonicalizerPass());
  ArrOutputsToDestinationsOptions destinations;
  destinations.stageAll = stageAll;
  pm.addPass(createArrOutputsToDestinations(destinations));
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(createArrBufferizeEntries());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createArrDoubleBufferCarries());
  pm.addPass(createArrCopiesToDispatches());
  pm.addPass(createArrHoistPerCall());
  if (!plan)
    return;
  ArrPlanBuffersOptions planning;
  planning.alignment = arenaAlignment ? arenaAlignment
                       : stageAll     ? kCudaArenaAlignment
                                      : kCpuArenaAlignment;
  planning.reuse = bufferReuse;
  pm.addPass(createArrPlanBuffers(planning));
  pm.addPass(createArrVerifyBufferPlan());
}

void vmapc::buildCpuKernelPipeline(OpPassManager &pm, StringRef isa,
                                   int64_t maxWorkgroupScratch) {
  buildCpuEntriesPipeline(pm);
  buildCpuKernelBodiesPipeline(pm, isa, maxWorkgroupScratch);
}

void vmapc::buildCpuEntriesPipeline(OpPassManager &pm) {
  // Read off the planned entries' types before the schedules are erased.
  pm.addPass(createArrEmitEntryDescriptors());
  pm.addPass(createArrEraseSchedules());
}

void vmapc::buildCpuKernelBodiesPipeline(OpPassManager &pm, StringRef isa,
                                         int64_t maxWorkgroupScratch) {
  ArrTileWorkgroupsOptions tiles;
  tiles.maxWorkgroupScratch = maxWorkgroupScratch;
  pm.addPass(createArrTileWorkgroups(tiles));
  pm.addPass(createCanonicalizerPass());
  ArrCpuVectorizeOptions vectorize;
  vectorize.isaLevel = isa.str();
  pm.addPass(createArrCpuVectorize(vectorize));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createArrBufferizeKernels());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createArrCpuWorkgroups());
}

void vmapc::buildKernelsToLLVMPipeline(OpPassManager &pm, StringRef isa) {
  std::optional<VectorIsa> vectorIsa = VectorIsa::named(isa);
  ArrCpuLowerVectorsOptions lowering;
  // AVX's 8-lane shuffles: the levels with 8 or more f32 lanes.
  lowering.avxShuffles = vectorIsa && vectorIsa->vectorWidth >= 8;
  pm.addPass(createArrCpuLowerVectors(lowering));
  pm.addPass(createCanonicalizerPass());
  ArrCopiesToLinalgOptions stridedCopies;
  stridedCopies.stridedOnly = true;
  pm.addNestedPass<func::FuncOp>(createArrCopiesToLinalg(stridedCopies));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  VectorTransferToSCFOptions vectorToSCF;
  vectorToSCF.enableFullUnroll(true);
  pm.addPass(createConvertVectorToSCFPass(vectorToSCF));
  ArrExpandMathOptions math;
  math.fusedMultiplyAdd = vectorIsa && vectorIsa->fusedMultiplyAdd;
  pm.addPass(createArrExpandMath(math));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createArrConvertKernelsToLLVM());
  pm.addPass(createArrEmitCpuKernels());
  pm.addPass(createCanonicalizerPass());
}

void vmapc::buildArrToLLVMPipeline(OpPassManager &pm, StringRef isa) {
  buildCpuKernelPipeline(pm, isa);
  buildKernelsToLLVMPipeline(pm, isa);
}

void vmapc::buildCompileCpuPipeline(OpPassManager &pm, StringRef isa) {
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm);
  buildArrToLLVMPipeline(pm, isa);
}

namespace {
/// `isa=LEVEL` of the registered CPU pipelines.
struct CpuPipelineOptions : PassPipelineOptions<CpuPipelineOptions> {
  Option<std::string> isa{
      *this, "isa",
      llvm::cl::desc("Vector ISA level: x86-64, x86-64-v3 or x86-64-v4"),
      llvm::cl::init("x86-64")};
};
/// The options of arr-bufferize-pipeline: what `vmapc compile` sets for a
/// CUDA target (every argument staged in the arena, fused producers
/// bounded: stage-all=1 max-fused-bytes-per-example=98304), and plan=false
/// to stop before planning (the input of --arr-plan-buffers).
struct BufferizePipelineOptions
    : PassPipelineOptions<BufferizePipelineOptions> {
  Option<bool> plan{*this, "plan",
                    llvm::cl::desc("Plan the arena and verify the plan "
                                   "(--arr-plan-buffers, "
                                   "--arr-verify-buffer-plan)"),
                    llvm::cl::init(true)};
  Option<bool> stageAll{
      *this, "stage-all",
      llvm::cl::desc("Give every argument a staging slot, not only mapped "
                     "ones (as for --target=cuda)"),
      llvm::cl::init(false)};
  Option<int64_t> maxFusedBytesPerExample{
      *this, "max-fused-bytes-per-example",
      llvm::cl::desc("arr-form-dispatches' bound on a dispatch's fused "
                     "producers' results per example (0: none; "
                     "--target=cuda: 98304)"),
      llvm::cl::init(0)};
  Option<int64_t> alignment{
      *this, "alignment",
      llvm::cl::desc("arr-plan-buffers' alignment of arena offsets in bytes "
                     "(0: 64, or 256 with stage-all)"),
      llvm::cl::init(0)};
  Option<bool> reuse{*this, "reuse",
                     llvm::cl::desc("arr-plan-buffers' reuse: false gives "
                                    "every buffer its own bytes"),
                     llvm::cl::init(true)};
};
} // namespace

void vmapc::registerPipelines() {
  PassPipelineRegistration<>(
      "arr-to-linalg-pipeline",
      "Batches, inlines and lowers arr to fused linalg on tensors",
      buildArrToLinalgPipeline);
  PassPipelineRegistration<BufferizePipelineOptions>(
      "arr-bufferize-pipeline",
      "Bufferizes entries in destination-passing style and plans one arena",
      [](OpPassManager &pm, const BufferizePipelineOptions &options) {
        buildArrBufferizePipeline(pm, options.plan, options.stageAll,
                                  options.maxFusedBytesPerExample,
                                  options.alignment, options.reuse);
      });
  PassPipelineRegistration<CpuPipelineOptions>(
      "arr-cpu-kernel-pipeline",
      "Tiles, vectorizes and bufferizes the kernels of a planned program for "
      "the CPU",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        buildCpuKernelPipeline(pm, options.isa);
      });
  PassPipelineRegistration<CpuPipelineOptions>(
      "arr-to-llvm-pipeline",
      "Lowers a planned program's kernels to the LLVM dialect (CPU)",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        buildArrToLLVMPipeline(pm, options.isa);
      });
  PassPipelineRegistration<CpuPipelineOptions>(
      "arr-compile-cpu-pipeline",
      "arr to CPU kernels in the LLVM dialect (one ISA level)",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        buildCompileCpuPipeline(pm, options.isa);
      });
}
