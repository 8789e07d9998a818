//===- SplitKernels.h - a level's kernels in parts of their own -*- C++ -*-===//
//
// An ISA level's compile is the same work for each of its kernels, and the
// kernels share nothing once the entries' schedules are erased: from there
// on every pass works on each kernel alone, and each kernel becomes its own
// exported wrapper in the object. splitKernels cuts a level's module into
// parts made of whole kernels, each compiled into an object on a thread of
// its own (emitCpuObjectFile, in an LLVMContext of its own); the system
// linker makes one shared object of the level's objects. codegen/Compile.cpp
// splits a level after its MLIR half when several levels compile at once
// (the parts then share out LLVM's half), and before it, right after the
// schedules are erased, when one level compiles alone (each part then
// lowers its own kernels too).
//
// This is the partitioning of LLVM's parallel code generation
// (llvm/CodeGen/ParallelCG.h over llvm/Transforms/Utils/SplitModule.h), done
// on the MLIR module, so that no part goes through bitcode to reach a
// context of its own. The parts depend on the module alone, never on the
// number of threads: the artifact is the same for any `vmapc compile -j`.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEGEN_SPLITKERNELS_H
#define VMAPC_CODEGEN_SPLITKERNELS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace vmapc {

/// The most parts a level's module is cut into: enough for the cores of a
/// workstation with three ISA levels compiling beside each other, few
/// enough that the parts' fixed costs (an LLVMContext, a TargetMachine and
/// a pass pipeline each, one more object for `ld`) stay small.
constexpr unsigned kMaxKernelParts = 4;

/// The fewest ops of a part of a module after its MLIR half (LLVM-dialect
/// ops, counted as `walk` counts them): a program of smaller kernels is cut
/// into fewer parts, one of under 2 * kMinKernelPartOps into none. The
/// cosine's three kernels have 300-450 ops each at x86-64-v3.
constexpr int64_t kMinKernelPartOps = 256;

/// Cuts `module` into parts, each a clone of `module` that keeps the
/// top-level symbols of some of its kernels and erases the others'. A
/// kernel is an op of `module`'s body for which `isKernel` holds and every
/// symbol it refers to, transitively; part 0 also keeps every symbol no
/// kernel refers to (and what those refer to), and every part keeps the
/// top-level ops that are not symbols. Kernels go, largest first (by ops,
/// ties in module order), to the part with the fewest ops so far (ties: the
/// first); the number of parts is the least of `maxParts`, the number of
/// kernels and the module's ops / `minPartOps`.
///
/// Returns no part, leaving `module` to be compiled whole, when that number
/// is 1, or when two parts need the same symbol and it is a definition that
/// a link would see twice (a public global; private symbols and
/// declarations are copied into each part that needs them).
llvm::SmallVector<mlir::OwningOpRef<mlir::ModuleOp>>
splitKernels(mlir::ModuleOp module,
             llvm::function_ref<bool(mlir::Operation *)> isKernel,
             unsigned maxParts = kMaxKernelParts,
             int64_t minPartOps = kMinKernelPartOps);

} // namespace vmapc

#endif // VMAPC_CODEGEN_SPLITKERNELS_H
