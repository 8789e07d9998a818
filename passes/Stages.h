//===- Stages.h - What IR each pass runs on ---------------------*- C++ -*-===//
//
// vmapc's pipeline takes a module through a fixed sequence of stages, each
// the output of one registered pipeline or pass. Every vmapc pass accepts a
// range of them and, on any other input, fails with an error that names the
// stage it found and what to run first, instead of doing nothing (or
// something wrong) with exit 0.
//
// The stage of a module is read off the module itself (detectStage), from the
// most advanced evidence in it:
//
//   Arr         arr ops and arr.vmap_call       the front end (FILE.arr)
//   Batched     arr ops, no arr.vmap_call        --arr-vmap
//   Linalg      linalg on tensors, no arr ops    --arr-to-linalg-pipeline
//   Dispatched  entries dispatch sched.kernels   --arr-form-dispatches
//   Bufferized  entries take memrefs --arr-bufferize-pipeline=plan=false
//   Planned     entries take an arr.arena        --arr-bufferize-pipeline
//   Kernels     kernels only, schedules erased   --arr-erase-schedules
//   LLVM        llvm.func only                   --arr-to-llvm-pipeline
//
// An entry is a public function marked `arr.batch` (arr::isEntry), a kernel
// a function marked `sched.kernel` (sched::isKernel). In a module without
// entries (a hand-written test), every other function with a body stands
// for them: on tensors it is Linalg, on memrefs Bufferized, with an
// `arr.arena` argument Planned. A module with no function body at all is
// Unknown, which every pass accepts (it has no work).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_STAGES_H
#define VMAPC_PASSES_STAGES_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace vmapc {

/// The stages of the pipeline, in pipeline order.
enum class Stage {
  Arr,
  Batched,
  Linalg,
  Dispatched,
  Bufferized,
  Planned,
  Kernels,
  LLVM,
  /// A module with no function body and no arr op: every pass accepts it.
  Unknown,
};

/// What a module's stage was read from: the stage and the op that showed it
/// (an arr.vmap_call, an entry; the module itself when nothing more
/// specific did).
struct StageEvidence {
  Stage stage;
  mlir::Operation *op;
};

/// The stage of `module` (see the table above).
StageEvidence detectStage(mlir::ModuleOp module);

/// The stage's description, e.g. "planned entries (an arr.arena argument)".
llvm::StringRef describeStage(Stage stage);

/// The passes or pipelines that take a module at stage `from` to stage `to`
/// (from < to), as vmapc-opt flags: "--arr-to-linalg-pipeline
/// --arr-bufferize-pipeline".
std::string passesFromTo(Stage from, Stage to);

/// Succeeds if `module` is at a stage in [first, last]. Otherwise emits an
/// error at the evidence (`pass` runs on <first>; this IR is <found>: run
/// <passes> first), or, for a later stage, one that names the output
/// `pass` runs on, and fails.
mlir::LogicalResult checkStage(mlir::ModuleOp module, llvm::StringRef pass,
                               Stage first, Stage last);

} // namespace vmapc

#endif // VMAPC_PASSES_STAGES_H
