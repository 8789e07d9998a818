//===- FastMath.h - the one fast-math liberty: FMA contraction -*- C++ -*-===//
//
// docs/design.md: a multiply and the add that takes it may contract into one
// fused multiply-add (f32, never TF32); reassociation is allowed only inside
// reductions, and no other fast-math flag is ever set. Each target marks the
// ops its back end contracts through `arith.fastmath<contract>`; which ops
// those are is the target's decision, kept here as a parameter.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_FASTMATH_H
#define VMAPC_PASSES_CODEGEN_FASTMATH_H

#include "mlir/IR/Operation.h"

namespace vmapc {

/// Which float ops get the `contract` flag.
enum class ContractionScope {
  /// `arith.addf`, `arith.subf` and `arith.mulf`: what LLVM's x86 back end
  /// fuses into an FMA where the ISA level has one (the CPU).
  MulAddSub,
  /// Every op with fast-math flags (`arith.ArithFastMathInterface`): NVPTX
  /// contracts `fmul` + `fadd`/`fsub` marked `contract` into `fma.rn.f32`,
  /// and the flag on other ops (a division, a maximum) changes nothing
  /// (CUDA).
  AllFastMathOps,
};

/// Adds `contract` to the fast-math flags of the ops in `scope` nested in
/// `root`, keeping the flags they have.
void allowFmaContraction(mlir::Operation *root, ContractionScope scope);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_FASTMATH_H
