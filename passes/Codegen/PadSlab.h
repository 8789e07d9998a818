//===- PadSlab.h - partial slabs computed at full size ----------*- C++ -*-===//
//
// A CPU kernel that contracts tiles its workgroup's rows into slabs of S
// rows (kContractionSlabRows): the register tiles of a slab share each
// column panel of the weights. The last workgroup of a partial chunk holds
// r < S rows, a dynamic count. Computing those r rows with code of their own
// (register tiles over a dynamic extent, then single rows) doubled the
// contraction code of every kernel, and the compile time with it (issue 18:
// a kernel compiled at B = 256 took 1.6-2.8x its time at B = 1).
//
// padSlabRows rewrites the body of a slab loop so that one static version
// of the slab computes full and partial slabs alike:
//
//   r = min(S, rows left)
//   if r < F:           the body as it was (dynamic; for the caller to
//                       tile: CpuVectorize computes these rows one at a
//                       time)
//   else:               every input slice of r rows is read as S rows: in
//                       place when r = S, else copied into an S-row tensor
//                       whose rows past r repeat row 0 (a real example: no
//                       row computes on values that no example holds);
//                       every intermediate is S rows; a root that
//                       is not a contraction (an epilogue) computes the r
//                       real rows into the destination, a contraction root
//                       S rows of which r are copied there.
//
// Rows are independent in a slab loop (it tiles the batch loop, every
// producer fused per row), so the padded rows change no result bit of the
// real ones. A full slab reads its inputs in place and writes an epilogue
// root's rows in place (a contraction root's are copied out of the slab);
// a partial slab of at least F rows takes the time of a full one and a
// copy of its inputs: a partial chunk's last workgroup, once per call.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_PADSLAB_H
#define VMAPC_PASSES_CODEGEN_PADSLAB_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace vmapc {

/// What padSlabRows made of a slab loop.
struct PaddedSlab {
  /// The branch of fewer than F rows, whose ops keep their dynamic row
  /// count.
  mlir::scf::IfOp fewRows;
  /// The roots of the padded body that compute the real rows only (of a
  /// dynamic count, to be tiled one row at a time, their producers left
  /// out of the row loop but for the fills of their outputs).
  llvm::SmallVector<mlir::linalg::LinalgOp> realRowRoots;
  /// The copies of a contraction root's real rows out of the padded slab
  /// (of a dynamic row count, to be tiled one row at a time).
  llvm::SmallVector<mlir::linalg::LinalgOp> rowCopies;
};

/// Rewrites the body of `slabLoop` (an scf.for over row slabs of
/// `slabRows` = S rows, from tiling a kernel's root along its batch loop
/// with its producers fused, on tensors) as above, with the branch of few
/// rows below `fewRowsBelow` = F rows (F > 0). Fails, changing nothing,
/// where the body is not such a loop's (a yielded value that is not a slice
/// of rows inserted into the loop's destination, rows of a static count, or
/// an op that reads a tensor defined outside the loop by `tensor.extract`,
/// whose index might pass the real rows), or where the padded slab might
/// need more than `maxScratchBytes` of per-workgroup scratch (its copies of
/// the inputs on top of its intermediates; arr-cpu-workgroups' limit).
mlir::FailureOr<PaddedSlab> padSlabRows(mlir::RewriterBase &rewriter,
                                        mlir::scf::ForOp slabLoop,
                                        int64_t slabRows, int64_t fewRowsBelow,
                                        int64_t maxScratchBytes);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_PADSLAB_H
