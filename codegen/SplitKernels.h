//===- SplitKernels.h - a level's kernels in parts of their own -*- C++ -*-===//
//
// The LLVM half of an ISA level's compile (translation, LLVM's pipeline,
// instruction selection) is most of that level's time, and its kernels
// share nothing: each exported wrapper calls its own kernel body and refers
// to no symbol of another kernel. splitKernels cuts a level's module (LLVM
// dialect, after buildKernelsToLLVMPipeline) into parts made of whole
// kernels. Each part compiles into an object on a thread of its own
// (emitCpuObjectFile, in an LLVMContext of its own), and the system linker
// makes one shared object of the level's objects.
//
// This is the partitioning of LLVM's parallel code generation
// (llvm/CodeGen/ParallelCG.h over llvm/Transforms/Utils/SplitModule.h), done
// on the MLIR module instead of the LLVM one, so that no part has to go
// through bitcode to reach a context of its own. The parts depend on the
// module alone, never on the number of threads: the artifact is the same
// for any `vmapc compile -j`.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEGEN_SPLITKERNELS_H
#define VMAPC_CODEGEN_SPLITKERNELS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

namespace vmapc {

/// The most parts a level's module is cut into: enough for the cores of a
/// workstation with three ISA levels compiling beside each other, few
/// enough that the parts' fixed costs (an LLVMContext, a TargetMachine and
/// a pass pipeline each, one more object for `ld`) stay small.
constexpr unsigned kMaxKernelParts = 4;

/// The fewest ops of a part (LLVM dialect ops, counted as `walk` counts
/// them): a program of smaller kernels is cut into fewer parts, one of
/// under 2 * kMinKernelPartOps into none. The cosine's three kernels have
/// 300-450 ops each at x86-64-v3.
constexpr int64_t kMinKernelPartOps = 256;

/// Cuts `module` into parts, each a clone of `module` that keeps the
/// top-level symbols of some of its kernels and erases the others'. A
/// kernel is a public function with a body (an exported wrapper) and every
/// symbol it refers to, transitively; part 0 also keeps every symbol no
/// kernel refers to (the entry and kernel descriptors), and every part
/// keeps the top-level ops that are not symbols. Kernels go, largest first
/// (by ops, ties in module order), to the part with the fewest ops so far
/// (ties: the first); the number of parts is the least of `maxParts`, the
/// number of kernels and the module's ops / `minPartOps`.
///
/// Returns no part, leaving `module` to be compiled whole, when that number
/// is 1, or when two kernels of different parts refer to the same symbol
/// and it is a definition that the link would see twice (a public global;
/// private symbols and declarations are copied into each part).
llvm::SmallVector<mlir::OwningOpRef<mlir::ModuleOp>>
splitKernels(mlir::ModuleOp module, unsigned maxParts = kMaxKernelParts,
             int64_t minPartOps = kMinKernelPartOps);

} // namespace vmapc

#endif // VMAPC_CODEGEN_SPLITKERNELS_H
