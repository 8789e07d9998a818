//===- Fusion.h - which producers a dispatch computes with its root -*- C++
//-*-//
//
// A dispatch is one root op and the producers fused into its tile loops.
// Both `--arr-form-dispatches` (which groups ops into dispatches) and
// `--arr-tile-workgroups` (which tiles a dispatch's root into a grid of
// workgroups and fuses the producers into each workgroup's tile) use the
// same notion of which loops of the root may be spread over workgroups:
// those along which every fused producer's tile is a distinct slice, so that
// no producer value is computed twice.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_DISPATCH_FUSION_H
#define VMAPC_PASSES_DISPATCH_FUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace vmapc {

/// For every op of a dispatch, the loop of that op that each loop of the
/// root runs over (-1 where a root loop does not reach it). The root maps
/// to itself; a producer fused through operand `o` of a consumer C maps
/// root loop l to the producer loop that writes the dimension of its result
/// that C reads with loop `C(l)`.
class RootLoopMap {
public:
  explicit RootLoopMap(mlir::linalg::LinalgOp root);

  /// Adds `producer`, which writes `operand` of the consumer (already in the
  /// map). A producer read by several consumers keeps only the loops that all
  /// of them agree on.
  void addProducer(mlir::linalg::LinalgOp producer, mlir::OpOperand &operand);

  /// The root's parallel loops that reach every op of the map: tiling one of
  /// them gives each workgroup distinct slices of every producer.
  llvm::SmallVector<int64_t> distributableLoops() const;

  bool contains(mlir::Operation *op) const { return loops.count(op); }

  /// The loop of `op` (in the map) that root loop `rootLoop` runs over, or
  /// -1 where it does not reach `op`.
  int64_t loopOf(mlir::Operation *op, int64_t rootLoop) const {
    auto it = loops.find(op);
    return it == loops.end() ? -1 : it->second[rootLoop];
  }

private:
  mlir::linalg::LinalgOp root;
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<int64_t>> loops;
};

/// Fuses into `loop` (an scf.for or scf.forall produced by tiling) every
/// linalg producer of a slice that the loop body reads, each distinct slice
/// once (identical slices are merged first), until no such slice is left;
/// then erases producers left without uses. Producers are looked for in the
/// block that holds `loop`, and through the loop's shared outputs or
/// iteration arguments (the fills of destinations). Fails if upstream
/// `scf::tileAndFuseProducerOfSlice` cannot fuse a slice.
/// `shouldFuse`, when given, picks the producers to fuse.
mlir::LogicalResult fuseProducersIntoLoop(
    mlir::RewriterBase &rewriter, mlir::LoopLikeOpInterface loop,
    llvm::function_ref<bool(mlir::Operation *)> shouldFuse = nullptr);

/// The same for a nest of tile loops (outermost first): producers are looked
/// for in the block that holds the outermost loop, slices in the innermost.
mlir::LogicalResult fuseProducersIntoLoops(
    mlir::RewriterBase &rewriter,
    llvm::ArrayRef<mlir::LoopLikeOpInterface> loops,
    llvm::function_ref<bool(mlir::Operation *)> shouldFuse = nullptr);

} // namespace vmapc

#endif // VMAPC_PASSES_DISPATCH_FUSION_H
