//===- KernelLoopPasses.h - vmapc's LLVM passes on the kernels' loops -*- C++
//-*-===//
//
// The two LLVM function passes that the kernels' LLVM pipeline
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
/// - `vmapc-keep-vector-loops-rolled`: marks every loop that holds vector
///   code or a block move (`memcpy`, `memset`: LLVM's loop idiom pass makes
///   them of MLIR's row copies) `llvm.loop.unroll.runtime.disable`, so that
///   LLVM's unroller leaves the loops MLIR vectorized as they are and takes
///   only those it left scalar.
///
/// - `vmapc-prefetch-next-row`: software prefetching of the next row. In an
///   innermost loop L whose parent loop P moves to the next row of an
///   operand, a vector load or store at {{s,+,R}<P>,+,S}<L> (L walks the row
///   S bytes a step, 0 < S <= 512; P moves R >= 1024 bytes to the next row)
///   gets `llvm.prefetch` of the same place R bytes on, one a cache line of
///   the S bytes a step covers (a write prefetch for a store: `prefetchw`
///   where the level has it, else `prefetcht0`). Loads and stores a constant
///   apart share their prefetches; the stack's scratch (allocas) gets none.
///   This is the case of a kernel that makes several passes over each row,
///   with compute between them (softmax: its max, then exp, the sum, the
///   division): the hardware's stream prefetcher runs only a few lines ahead
///   of the demand loads, so it is idle while a row's compute runs, and
///   the next row's first pass waits on memory. Prefetched a row ahead, its
///   lines arrive during the row before. Measured on the bench's rows
///   (bench/RESULTS.md, 2026-12-06 eighth session): softmax, layer norm and
///   the cross-entropy 15-25% faster, on one thread and on two; no row
///   slower beyond noise; the contraction kernels unchanged (their loops
///   step through packed panels, not rows).
void registerKernelLoopPasses(llvm::PassBuilder &builder);

} // namespace vmapc

#endif // VMAPC_CODEGEN_KERNELLOOPPASSES_H
