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
//   every input slice of r rows is read as S rows: in place when r = S,
//   else copied into an S-row tensor whose rows past r repeat row 0 (a real
//   example: no row computes on values that no example holds), by one op
//   that reads row i of the input below r and row 0 past it; every
//   intermediate is S rows; a root that is not a contraction (an epilogue)
//   computes the r real rows into the destination, a contraction root S
//   rows of which r are copied there.
//
// Once its ops are cut into register tiles of t rows, boundSlabRowTiles
// stops each op's loop over its tiles at the rows its users read: a slab of
// r rows computes about r rounded up to a tile per op, not S (an N = 1 call
// computes one tile of each layer), in the same static code. This replaced
// a second version of the slab for r < S / 4, one row at a time, which
// with the padded slab beside it was most of a contraction kernel's code.
//
// Rows are independent in a slab loop (it tiles the batch loop, every
// producer fused per row), so the padded rows change no result bit of the
// real ones. A full slab reads its inputs in place and writes an epilogue
// root's rows in place (a contraction root's are copied out of the slab);
// a partial slab takes a copy of its inputs (a partial chunk's last
// workgroup, once per call) and the time of its tiles.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_PADSLAB_H
#define VMAPC_PASSES_CODEGEN_PADSLAB_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace vmapc {

/// On each structured op of a padded slab: [its loop over the slab's rows,
/// S]. A loop that tiles that loop of such an op (while its extent is S, or
/// the real rows' dynamic count) is one of its row tile loops.
constexpr llvm::StringLiteral kSlabRowLoopAttr = "arr.slab_row_loop";
/// On a row tile loop (above), for boundSlabRowTiles.
constexpr llvm::StringLiteral kSlabRowTilesAttr = "arr.slab_row_tiles";
/// On the op that writes a partial slab's padded copy of an input (it reads
/// the input by `tensor.extract`, rows past r from row 0): its register
/// tiles read rows, vectorized as contiguous loads.
constexpr llvm::StringLiteral kPaddedCopyAttr = "arr.padded_copy";
/// On a slab loop that padSlabRows rewrote.
constexpr llvm::StringLiteral kPaddedSlabAttr = "arr.padded_slab";

/// What padSlabRows made of a slab loop.
struct PaddedSlab {
  /// The roots of the slab that compute the real rows only (of a dynamic
  /// count, to be tiled one row at a time, their producers left out of the
  /// row loop but for the fills of their outputs).
  llvm::SmallVector<mlir::linalg::LinalgOp> realRowRoots;
  /// The copies of a contraction root's real rows out of the padded slab
  /// (of a dynamic row count, to be tiled one row at a time).
  llvm::SmallVector<mlir::linalg::LinalgOp> rowCopies;
};

/// Rewrites the body of `slabLoop` (an scf.for over row slabs of
/// `slabRows` = S rows, from tiling a kernel's root along its batch loop
/// with its producers fused, on tensors) as above, and marks its ops and
/// itself for boundSlabRowTiles. Fails, changing nothing, where the body is
/// not such a loop's (a yielded value that is not a slice of rows inserted
/// into the loop's destination, rows of a static count, or an op that reads
/// a tensor defined outside the loop by `tensor.extract`, whose index might
/// pass the real rows), or where the padded slab might need more than
/// `maxScratchBytes` of per-workgroup scratch (its copies of the inputs on
/// top of its intermediates; arr-cpu-workgroups' limit).
mlir::FailureOr<PaddedSlab> padSlabRows(mlir::RewriterBase &rewriter,
                                        mlir::scf::ForOp slabLoop,
                                        int64_t slabRows,
                                        int64_t maxScratchBytes);

/// Bounds the row tile loops (kSlabRowTilesAttr) of a padded slab loop,
/// after register tiling and peeling, by the rows their results' users
/// read: each op, last first, computes at least the r real rows and every
/// row a user of its results computes, so min(S, roundup(need, t)) rows for
/// tiles of t rows (its loop from 0 runs to `need`; its peeled remainder
/// tile runs where `need` reaches it). Every op keeps one static version
/// of its tiles, and no row is read that its producer did not compute. An
/// op whose users are not all known (not a row tile loop nest, a view of
/// rows, or the insertion of real rows) computes all S rows, as padSlabRows
/// left it. Where the tile sizes divide S and one another, the bounds fold
/// to min(S, roundup(r, t)), one value per t, at the start of the slab.
void boundSlabRowTiles(mlir::RewriterBase &rewriter, mlir::scf::ForOp slabLoop);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_PADSLAB_H
