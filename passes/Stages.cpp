//===- Stages.cpp - What IR each pass runs on -----------------------------===//

#include "passes/Stages.h"

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <iterator>

using namespace mlir;

namespace vmapc {
namespace {

struct StageInfo {
  Stage stage;
  llvm::StringLiteral description;
};

constexpr StageInfo kStages[] = {
    {Stage::Arr, "arr with arr.vmap_call (the front end's output)"},
    {Stage::Batched,
     "batched arr, no arr.vmap_call (the output of --arr-vmap)"},
    {Stage::Linalg,
     "linalg on tensors (the output of --arr-to-linalg-pipeline)"},
    {Stage::Dispatched, "entries that dispatch sched.kernel functions, on "
                        "tensors (the output of --arr-form-dispatches)"},
    {Stage::Bufferized, "bufferized entries, on memrefs (the output of "
                        "--arr-bufferize-pipeline=plan=false)"},
    {Stage::Planned, "planned entries, with an arr.arena argument (the output "
                     "of --arr-bufferize-pipeline)"},
    {Stage::Kernels,
     "kernels only, the entries' schedules erased (the output of "
     "--arr-erase-schedules)"},
    {Stage::LLVM, "the LLVM dialect (the output of --arr-to-llvm-pipeline)"},
    {Stage::Unknown, "a module with no function body"},
};
static_assert(std::size(kStages) == static_cast<size_t>(Stage::Unknown) + 1,
              "one row per stage, in order");

/// The ways from one stage to a later one, each a pipeline or passes of
/// vmapc-opt; passesFromTo takes the longest step that does not pass its
/// goal, then the next.
struct Step {
  Stage from, to;
  llvm::StringLiteral flags;
};

constexpr Step kSteps[] = {
    {Stage::Arr, Stage::Linalg, "--arr-to-linalg-pipeline"},
    {Stage::Arr, Stage::Batched, "--arr-vmap"},
    {Stage::Batched, Stage::Linalg, "--arr-to-linalg-pipeline"},
    {Stage::Linalg, Stage::Planned, "--arr-bufferize-pipeline"},
    {Stage::Linalg, Stage::Bufferized, "--arr-bufferize-pipeline=plan=false"},
    {Stage::Linalg, Stage::Dispatched,
     "--arr-pack-operands --arr-form-dispatches"},
    {Stage::Dispatched, Stage::Bufferized,
     "--arr-outputs-to-destinations --eliminate-empty-tensors "
     "--arr-bufferize-entries --arr-copies-to-dispatches"},
    {Stage::Bufferized, Stage::Planned, "--arr-plan-buffers"},
    {Stage::Planned, Stage::LLVM, "--arr-to-llvm-pipeline"},
    {Stage::Planned, Stage::Kernels,
     "--arr-emit-entry-descriptors --arr-erase-schedules"},
    {Stage::Kernels, Stage::LLVM,
     "the passes of --arr-to-llvm-pipeline after --arr-erase-schedules"},
};

/// Whether `fn` is on memrefs: a memref in its signature or made in its
/// body (a memref.alloc of a function with no arguments).
bool isOnMemrefs(func::FuncOp fn) {
  auto isMemref = llvm::IsaPred<MemRefType>;
  if (llvm::any_of(fn.getArgumentTypes(), isMemref) ||
      llvm::any_of(fn.getResultTypes(), isMemref))
    return true;
  WalkResult walk = fn.walk([&](Operation *op) {
    return llvm::any_of(op->getResultTypes(), isMemref)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

bool hasArenaArgument(func::FuncOp fn) {
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (fn.getArgAttr(i, arr::ArrDialect::kArenaAttrName))
      return true;
  return false;
}

} // namespace

StageEvidence detectStage(ModuleOp module) {
  // The functions that hold the program: the entries, or, in a module
  // without entries (a hand-written test), every function with a body that
  // is not a kernel.
  SmallVector<func::FuncOp> entries, others;
  func::FuncOp firstKernel;
  Operation *llvmFunc = nullptr;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto fn = dyn_cast<LLVM::LLVMFuncOp>(op)) {
      if (!fn.isExternal() && !llvmFunc)
        llvmFunc = fn;
      continue;
    }
    auto fn = dyn_cast<func::FuncOp>(op);
    if (!fn || fn.isExternal())
      continue;
    if (sched::isKernel(fn))
      firstKernel = firstKernel ? firstKernel : fn;
    else
      (arr::isEntry(fn) ? entries : others).push_back(fn);
  }
  // arr ops: the front end's output, before or after --arr-vmap. They are
  // lowered before there are kernels or LLVM functions, so the walk (of the
  // whole program, once per pass) is skipped once there are.
  if (!firstKernel && !llvmFunc) {
    Operation *arrOp = nullptr, *vmapCall = nullptr;
    module.walk([&](Operation *op) {
      if (!isa_and_nonnull<arr::ArrDialect>(op->getDialect()))
        return WalkResult::advance();
      arrOp = arrOp ? arrOp : op;
      if (isa<arr::VmapCallOp>(op)) {
        vmapCall = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (vmapCall)
      return {Stage::Arr, vmapCall};
    if (arrOp)
      return {Stage::Batched, arrOp};
  }

  ArrayRef<func::FuncOp> program = entries.empty() ? others : entries;
  for (func::FuncOp fn : program)
    if (hasArenaArgument(fn))
      return {Stage::Planned, fn};
  for (func::FuncOp fn : program)
    if (isOnMemrefs(fn))
      return {Stage::Bufferized, fn};
  if (!program.empty())
    return {firstKernel ? Stage::Dispatched : Stage::Linalg, program.front()};
  if (firstKernel)
    return {Stage::Kernels, firstKernel};
  if (llvmFunc)
    return {Stage::LLVM, llvmFunc};
  // Nothing to read a stage from (an empty module): no pass has work.
  return {Stage::Unknown, module};
}

llvm::StringRef describeStage(Stage stage) {
  return kStages[static_cast<size_t>(stage)].description;
}

std::string passesFromTo(Stage from, Stage to) {
  std::string flags;
  while (from < to) {
    const Step *best = nullptr;
    for (const Step &step : kSteps)
      if (step.from == from && step.to <= to && (!best || step.to > best->to))
        best = &step;
    if (!best)
      break;
    if (!flags.empty())
      flags += " ";
    flags += best->flags.str();
    from = best->to;
  }
  return flags;
}

LogicalResult checkStage(ModuleOp module, llvm::StringRef pass, Stage first,
                         Stage last) {
  StageEvidence found = detectStage(module);
  if (found.stage == Stage::Unknown ||
      (found.stage >= first && found.stage <= last))
    return success();
  InFlightDiagnostic diag = found.op->emitError() << "'" << pass << "' runs on "
                                                  << describeStage(first);
  if (last != first)
    diag << " up to " << describeStage(last);
  diag << "; this IR is " << describeStage(found.stage);
  if (found.stage < first)
    diag << ": run " << passesFromTo(found.stage, first) << " first";
  else
    diag << ", a later stage";
  return failure();
}

} // namespace vmapc
