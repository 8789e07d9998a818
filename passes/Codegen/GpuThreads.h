//===- GpuThreads.h - structured ops spread over a block's threads -*- C++
//-*-===//
//
// What the GPU distribution passes share (arr-gpu-reductions,
// arr-gpu-contraction-tiles, arr-gpu-distribute-threads; Passes.td has their
// contracts): bounds of an op's loops, one iteration of its payload, and the
// ThreadDistributor, which replaces one bufferized structured op of a
// `gpu.func` by code that the block's threads run together, followed by a
// barrier.
//
// The passes run one after the other on the same kernels and keep their
// state in the kernel: the block size in `known_block_size`
// (arr-gpu-block-size), the scratch's shared bytes in `sched.scratch_bytes`
// (arr-gpu-promote-scratch), and the transient region's bytes (what one op
// at a time stages or exchanges, after the scratch) in
// kTransientSharedBytesAttrName, which arr-gpu-kernel-descriptors folds into
// `sched.scratch_bytes`.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_GPUTHREADS_H
#define VMAPC_PASSES_CODEGEN_GPUTHREADS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <optional>

namespace vmapc::gpu_threads {

constexpr int64_t kWarpSize = 32;
/// Alignment of every region of a block's dynamic shared memory (bytes).
constexpr int64_t kSharedAlignment = 16;

/// The bytes of a kernel's transient shared region, between the
/// distribution passes (an i64 attribute of the gpu.func).
constexpr llvm::StringLiteral kTransientSharedBytesAttrName =
    "vmapc.transient_shared_bytes";

/// A constant upper bound (inclusive) of index value `v`.
mlir::FailureOr<int64_t> upperBound(mlir::OpFoldResult v);

/// A constant upper bound of loop `loop` of `op`: its static range, or the
/// bound of an operand dimension that it spans (the rows of a partial tile
/// are at most the tile's).
std::optional<int64_t> loopBound(mlir::linalg::LinalgOp op, unsigned loop);

/// The number of iterations of `op`'s loops of kind `kind` (all loops if
/// none), bounded: the product of their bounds (nullopt if one has no known
/// bound).
std::optional<int64_t>
iterationsBound(mlir::linalg::LinalgOp op,
                std::optional<mlir::utils::IteratorType> kind = std::nullopt);

/// The values of `map`'s results at `ivs`.
llvm::SmallVector<mlir::Value> applyMap(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::AffineMap map,
                                        llvm::ArrayRef<mlir::Value> ivs);

/// One iteration of `op`'s payload at `ivs` with outputs' values `outs`:
/// loads the inputs (or takes `ins`), clones the body (linalg.index = the
/// iv), returns the yielded values.
llvm::SmallVector<mlir::Value>
emitPayload(mlir::OpBuilder &b, mlir::Location loc, mlir::linalg::LinalgOp op,
            llvm::ArrayRef<mlir::Value> ivs, mlir::ValueRange outs,
            mlir::ValueRange ins = {});

/// Fails with an error on `op` if no distribution pass can take it: not
/// bufferized, or an output written along a reduction loop.
mlir::LogicalResult verifyDistributable(mlir::linalg::LinalgOp op);

/// Runs `body` on every CUDA kernel of `module` (each `gpu.func` kernel of
/// its gpu.modules), in order, until one fails. Fails first, naming the
/// pass to run, while kernels are still `func.func`s (`sched.kernel`,
/// before arr-gpu-outline-kernels).
mlir::LogicalResult forEachGpuKernel(
    mlir::ModuleOp module, llvm::StringRef pass,
    llvm::function_ref<mlir::LogicalResult(mlir::gpu::GPUFuncOp)> body);

/// Fails with an error naming arr-gpu-block-size if `fn` has no
/// `known_block_size`.
mlir::LogicalResult requireBlockSize(mlir::gpu::GPUFuncOp fn);

struct Combiner;
struct ContractionTiling;

/// Spreads structured ops of one kernel over the threads of its block.
class ThreadDistributor {
public:
  /// Reads the kernel's block size (known_block_size), scratch and
  /// transient shared bytes.
  explicit ThreadDistributor(mlir::gpu::GPUFuncOp fn);

  int64_t getBlockSize() const { return blockSize; }

  /// Shared memory the kernel needs: its scratch, then the transient region
  /// that one op at a time uses (the partials block reductions exchange
  /// between warps, the tiles a contraction stages).
  int64_t totalSharedBytes() const { return sharedBytes + transientBytes; }

  /// The loops of an op: sizes, and which are parallel or reductions.
  struct Loops {
    llvm::SmallVector<mlir::OpFoldResult> sizes;
    llvm::SmallVector<unsigned> parallel, reduction;
  };

  /// Replaces `op` by what `strategy` emits at its place (given its loops),
  /// then a barrier, so that the next op sees its writes.
  mlir::LogicalResult
  distribute(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
             llvm::function_ref<mlir::LogicalResult(const Loops &)> strategy);

  /// Records the transient region's bytes in the kernel, for the next pass.
  void saveTransientBytes();

  /// A thread per parallel iteration, the reduction loops in order
  /// (arr-gpu-distribute-threads).
  mlir::LogicalResult perThread(mlir::RewriterBase &rewriter,
                                mlir::linalg::LinalgOp op, const Loops &loops);
  /// A group of `group` threads (a warp, or the block) per parallel
  /// iteration: strided partial results, combined with warp shuffles (and,
  /// for the block, through shared memory), then with the output's value
  /// (arr-gpu-reductions).
  mlir::LogicalResult perGroup(mlir::RewriterBase &rewriter,
                               mlir::linalg::LinalgOp op, const Loops &loops,
                               const Combiner &combiner, int64_t group);
  /// A contraction by output tiles, its inputs staged in shared memory
  /// (arr-gpu-contraction-tiles).
  mlir::LogicalResult perContractionTile(mlir::RewriterBase &rewriter,
                                         mlir::linalg::LinalgOp op,
                                         const Loops &loops,
                                         const ContractionTiling &tiling);

private:
  mlir::Value threadId(mlir::RewriterBase &rewriter);
  mlir::Value index(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
  /// The product of `sizes` at `dims`.
  mlir::Value extent(mlir::OpBuilder &b, mlir::Location loc, const Loops &loops,
                     llvm::ArrayRef<unsigned> dims);
  /// Sets `ivs` at `dims` from the linear index `linear` (innermost
  /// fastest).
  void delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
                   const Loops &loops, llvm::ArrayRef<unsigned> dims,
                   llvm::SmallVector<mlir::Value> &ivs);
  /// Butterfly combination over the 32 lanes of a warp: every lane ends
  /// with the combination of all.
  llvm::SmallVector<mlir::Value>
  warpCombine(mlir::OpBuilder &b, mlir::Location loc, const Combiner &combiner,
              llvm::SmallVector<mlir::Value> partial);
  mlir::Value sharedBase(mlir::OpBuilder &b, mlir::Location loc);

  mlir::gpu::GPUFuncOp fn;
  int64_t blockSize;
  int64_t sharedBytes;
  int64_t transientBytes;
  mlir::Value tid, shared;
};

/// How a distribution pass replaces one op, given its loops; null: the op
/// is left to a later pass.
using Strategy = std::function<mlir::LogicalResult(
    mlir::RewriterBase &, const ThreadDistributor::Loops &)>;

/// The body of a distribution pass: in every kernel of `module` (which must
/// have a block size), each structured op, in order and checked by
/// verifyDistributable, is replaced by the strategy `choose` gives it (none:
/// left as it is), then a barrier; each kernel's transient bytes are
/// recorded for the next pass.
mlir::LogicalResult distributeOps(
    mlir::ModuleOp module, llvm::StringRef pass,
    llvm::function_ref<Strategy(ThreadDistributor &, mlir::linalg::LinalgOp)>
        choose);

} // namespace vmapc::gpu_threads

#endif // VMAPC_PASSES_CODEGEN_GPUTHREADS_H
