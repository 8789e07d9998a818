//===- GpuPipeline.cpp - the GPU (NVVM/PTX) pipeline ----------------------===//
//
// Upstream passes, in the order TOOLCHAIN.md found to work, plus two small
// helpers that upstream lacks:
//  - arr-gpu-copies-to-linalg turns memref.copy into linalg.copy, so copies
//    become kernels too;
//  - arr-gpu-tile-parallel-loops tiles each loop nest to a block of up to N
//    threads along its innermost dimensions (scf-parallel-loop-tiling uses
//    one size list for every nest, so a 1-d nest tiled with `1,256` gets
//    blocks of one thread);
//  - arr-gpu-sink-into-launch sinks constants and arena views into each
//    gpu.launch, so that kernels take the entry's arguments (the arena
//    itself, not a view of it), and rejects whatever would still run on the
//    host.
// TODO: declare the three helpers in Passes.td (they use PassWrapper only
// because Passes.td is shared with work in flight).
//
//===----------------------------------------------------------------------===//

#include "passes/GpuPipeline.h"

#include "passes/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"

#include <algorithm>

using namespace mlir;

namespace {

/// Rewrites memref.copy (which bufferization leaves where a value must be
/// copied between buffers) as linalg.copy, so that it becomes a loop nest,
/// and then a kernel, like every other linalg op.
struct CopiesToLinalgPass
    : PassWrapper<CopiesToLinalgPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CopiesToLinalgPass)

  StringRef getArgument() const final { return "arr-gpu-copies-to-linalg"; }
  StringRef getDescription() const final {
    return "Rewrites memref.copy as linalg.copy";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
  }

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

/// Tiles every outermost scf.parallel so that its inner loop has at most
/// `threadsPerBlock` iterations, taken from the innermost dimensions first
/// (the contiguous ones, so neighbouring threads touch neighbouring
/// elements): a [256, 1000] nest gets tiles of 1x256, a [64, 8] nest 32x8.
/// Tiles have fixed bounds and an in-bounds check (scf.if) around the body,
/// so that convert-parallel-loops-to-gpu sees constant block sizes.
struct TileParallelLoopsPass
    : PassWrapper<TileParallelLoopsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileParallelLoopsPass)

  TileParallelLoopsPass() = default;
  TileParallelLoopsPass(const TileParallelLoopsPass &other)
      : PassWrapper(other) {}
  explicit TileParallelLoopsPass(unsigned threads) {
    threadsPerBlock = threads;
  }

  StringRef getArgument() const final { return "arr-gpu-tile-parallel-loops"; }
  StringRef getDescription() const final {
    return "Tiles each scf.parallel nest to one block of threads along its "
           "innermost dimensions";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry
        .insert<affine::AffineDialect, arith::ArithDialect, scf::SCFDialect>();
  }

  Option<unsigned> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Most threads in one block (one tile)"),
      llvm::cl::init(256)};

  void runOnOperation() override {
    if (threadsPerBlock == 0) {
      getOperation().emitError("threads-per-block must be positive");
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> nests;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          loop.getNumReductions() == 0)
        nests.push_back(loop);
    });
    for (scf::ParallelOp loop : nests)
      scf::tileParallelLoop(loop, tileSizes(loop), /*noMinMaxBounds=*/true);
  }

  /// At most three dimensions are tiled: a block has three thread ids.
  SmallVector<int64_t> tileSizes(scf::ParallelOp loop) const {
    unsigned rank = loop.getNumLoops();
    SmallVector<int64_t> sizes(rank, 1);
    int64_t left = threadsPerBlock;
    for (unsigned i = rank; i > 0 && rank - i < 3 && left > 1; --i) {
      int64_t size = left;
      std::optional<int64_t> lb =
          getConstantIntValue(loop.getLowerBound()[i - 1]);
      std::optional<int64_t> ub =
          getConstantIntValue(loop.getUpperBound()[i - 1]);
      std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i - 1]);
      if (lb && ub && step && *step > 0)
        size = std::min(
            size, std::max<int64_t>(1, llvm::divideCeil(*ub - *lb, *step)));
      sizes[i - 1] = size;
      left /= size;
    }
    return sizes;
  }
};

/// Sinks constants and view-like ops (arena views first of all) into each
/// gpu.launch, so the outlined kernel takes what they view, and reports the
/// operations that would otherwise run on the host.
struct SinkIntoLaunchPass
    : PassWrapper<SinkIntoLaunchPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SinkIntoLaunchPass)

  StringRef getArgument() const final { return "arr-gpu-sink-into-launch"; }
  StringRef getDescription() const final {
    return "Sinks constants and arena views into gpu.launch bodies and "
           "rejects host-side memory accesses";
  }

  static bool isSinkingBeneficiary(Operation *op) {
    return matchPattern(op, m_Constant()) || isa<ViewLikeOpInterface>(op) ||
           isa<memref::DimOp>(op);
  }

  /// Clones `value`'s producer (and, first, its operands' producers) into
  /// the launch body at `builder` when sinking it helps. Upstream's
  /// sinkOperationsIntoLaunchOp keeps a view of a function argument outside
  /// (sinking does not reduce the number of captured values), but the kernel
  /// should take the arena, not a pointer into it.
  static Value sink(Value value, OpBuilder &builder, IRMapping &sunk) {
    if (Value known = sunk.lookupOrNull(value))
      return known;
    Operation *producer = value.getDefiningOp();
    if (!producer || !isSinkingBeneficiary(producer) ||
        producer->getNumRegions() != 0)
      return value;
    for (Value operand : producer->getOperands())
      sink(operand, builder, sunk);
    Operation *clone = builder.clone(*producer, sunk);
    sunk.map(producer->getResults(), clone->getResults());
    return sunk.lookup(value);
  }

  static void sinkIntoLaunch(gpu::LaunchOp launch) {
    Region &body = launch.getBody();
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    OpBuilder builder = OpBuilder::atBlockBegin(&body.front());
    IRMapping sunk;
    for (Value value : captured) {
      Value inside = sink(value, builder, sunk);
      if (inside != value)
        value.replaceUsesWithIf(inside, [&](OpOperand &use) {
          return body.isAncestor(use.getOwner()->getParentRegion());
        });
    }
  }

  /// What must not be left outside a kernel: it would touch device memory
  /// from the host.
  static bool isHostWork(Operation *op) {
    return isa<scf::ParallelOp, scf::ForOp, scf::WhileOp, memref::LoadOp,
               memref::StoreOp, memref::CopyOp, linalg::LinalgOp>(op);
  }

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
        sinkIntoLaunch(launch);
        return WalkResult::skip();
      }
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        op->emitOpError("allocates outside the arena: run "
                        "arr-bufferize-pipeline (which plans every buffer "
                        "into the arena) first");
        failed = true;
        return WalkResult::advance();
      }
      if (isHostWork(op)) {
        op->emitOpError("would run on the host: it was not mapped to a GPU "
                        "kernel (only loop nests with a parallel dimension "
                        "become kernels)");
        failed = true;
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace

void vmapc::buildArrToNvvmPipeline(OpPassManager &pm,
                                   const GpuPipelineOptions &options) {
  // Loop nests → gpu.launch, in each function.
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(std::make_unique<CopiesToLinalgPass>());
  fn.addPass(createConvertLinalgToParallelLoopsPass());
  // No canonicalization between tiling and mapping: it folds a nest whose
  // outer loop runs once back into one loop (one thread per block).
  fn.addPass(std::make_unique<TileParallelLoopsPass>(options.threadsPerBlock));
  GpuMapParallelLoopsPassOptions mapping;
  mapping.mappingPolicyStr = "innermost-first";
  fn.addPass(createGpuMapParallelLoopsPass(mapping));
  fn.addPass(createConvertParallelLoopToGpuPass());
  fn.addPass(createLowerAffinePass());
  // Constant launch sizes (the kernels get known block and grid sizes);
  // after sinking, no canonicalization until outlining: it would hoist the
  // sunk constants back out of the launch regions (not isolated from above).
  fn.addPass(createCanonicalizerPass());
  fn.addPass(std::make_unique<SinkIntoLaunchPass>());

  pm.addPass(createGpuKernelOutliningPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  // Device side: kernels take bare pointers (static shapes, identity layouts).
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(memref::createExpandStridedMetadataPass());
  device.addPass(createLowerAffinePass());
  device.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  // Host side: what is left is constants and gpu.launch_func; entries take
  // bare pointers, as the CPU entries do.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  GpuToLLVMConversionPassOptions host;
  host.hostBarePtrCallConv = true;
  host.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(host));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());

  if (!options.serialize)
    return;
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void vmapc::buildCompileGpuPipeline(OpPassManager &pm,
                                    const GpuPipelineOptions &options) {
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm);
  buildArrToNvvmPipeline(pm, options);
}

void vmapc::registerGpuPipelines() {
  PassRegistration<CopiesToLinalgPass>();
  PassRegistration<TileParallelLoopsPass>();
  PassRegistration<SinkIntoLaunchPass>();
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-to-nvvm-pipeline",
      "Lowers a planned program to host LLVM and NVVM kernels in gpu.binary",
      buildArrToNvvmPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "arr-compile-gpu-pipeline",
      "arr to host LLVM and PTX/cubin kernels (NVIDIA GPUs)",
      buildCompileGpuPipeline);
}
