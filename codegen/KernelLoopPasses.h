//===- KernelLoopPasses.h - vmapc's LLVM passes on the kernels' loops -*- C++
//-*-===//
//
// The three LLVM function passes that the kernels' LLVM pipeline
// (CpuObject.cpp) runs beside LLVM's own, on the loops the MLIR pipeline
// tiled and vectorized.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEGEN_KERNELLOOPPASSES_H
#define VMAPC_CODEGEN_KERNELLOOPPASSES_H

#include "llvm/Passes/PassBuilder.h"

namespace vmapc {

/// Registers with `builder`, by name in a pipeline's text, the function
/// passes:
///
/// - `vmapc-keep-tile-loops-rolled`: marks every loop that holds another
///   loop and vector code (a loop over a contraction's column tiles, whose
///   body is the loop over the slab's row tiles) `llvm.loop.unroll.disable`,
///   so that LLVM's full unroller does not copy the inner loops once per
///   column tile. MLP 64-32-10's first layer, 32 columns in tiles of 16 at
///   AVX2, was two copies of its row-tile loop: 34 of the kernel's 407
///   instructions, and 3% of its compile time (bench/RESULTS.md, 2026-12-07
///   twelfth session).
///
/// - `vmapc-keep-vector-loops-rolled`: marks every loop that holds vector
///   code or a block move (`memcpy`, `memset`: LLVM's loop idiom pass makes
///   them of MLIR's row copies) `llvm.loop.unroll.runtime.disable`, so that
///   LLVM's unroller leaves the loops MLIR vectorized as they are and takes
///   only those it left scalar.
///
/// - `vmapc-prefetch-next-row`: software prefetching of the next row in a
///   row's later passes. In an innermost loop L whose parent loop P moves to
///   the next row of an operand, a vector load at {{s,+,R}<P>,+,S}<L> (L
///   walks the row S bytes a step, 0 < S <= 512; P moves R >= 1024 bytes to
///   the next row) gets `prefetcht0` (`llvm.prefetch`, a read into every
///   level) of the same place R bytes on, one a cache line of the S bytes a
///   step covers, if code of P that runs before L (an earlier loop, or one
///   LLVM unrolled in full) read the same row. Loads a constant apart share
///   their prefetches; the stack's scratch (allocas) gets none. The case is
///   a kernel that makes several passes over each row, with compute between
///   them (softmax: the max, then exp, the sum, the division): its first
///   pass streams the row from memory, which the hardware's stream
///   prefetcher follows a few lines ahead; the later passes read the row
///   from the cache, the hardware prefetcher idles, and the next row's first
///   pass waits on memory. Prefetched from the later passes, the next row's
///   lines arrive during the row before. A row read in one pass (an
///   elementwise chain) keeps the hardware's stream alone; prefetches in
///   every pass made the linear-model gradient 6-9% slower on one thread
///   and the chain at N = 256 1-3% (L3-resident). Measured on the bench's
///   rows (bench/RESULTS.md, 2026-12-06 eighth session): only the softmax,
///   layer norm, cross-entropy and linear-model gradient kernels change;
///   interleaved in one process, on one thread and on two, the first three
///   run 16-19%, 13-27% and 21-24% faster, the gradient 0-8% (medians of
///   120 and 150 calls, two runs).
///
///   The same later pass also prefetches, for a write (`llvm.prefetch`
///   with rw = 1: `prefetchw` where the level has PRFCHW, else
///   `prefetcht0`), the rows that innermost loops of P after it store
///   (vector stores at {{s,+,R}<P>,+,S}<W>, R >= 1024, not the stack's):
///   of each such row, the lines at the offsets the pass reads in its
///   step, the distance between the two rows computed once before the
///   loop. The softmax's division and the layer norm's last loop store a
///   row that is not in the cache: each store missed and waited for its
///   line (a read for ownership) with nothing else to do, while the exp
///   pass before it, bound by its arithmetic, leaves the memory idle. A
///   store loop's own next row, prefetched from the store loop, made no
///   row faster (the eighth session); from the pass before, the softmax
///   row at N = 8192 on one thread ran 14% faster, the layer norm 10-15%
///   (bench/RESULTS.md, 2026-12-07 tenth session).
void registerKernelLoopPasses(llvm::PassBuilder &builder);

} // namespace vmapc

#endif // VMAPC_CODEGEN_KERNELLOOPPASSES_H
