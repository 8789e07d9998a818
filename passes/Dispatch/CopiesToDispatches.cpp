//===- CopiesToDispatches.cpp - copies bufferization adds, as dispatches --===//
//
// `--arr-copies-to-dispatches`: after `--arr-bufferize-entries`, an entry may
// hold `memref.copy`s that bufferization inserted (a loop carry that cannot
// be updated in place, a value returned twice). A schedule is made of
// dispatches only, so each copy becomes a dispatch of a kernel of its own
// that does the copy, its source and target bound as whole buffers (the
// views between them and their roots are rebuilt in the kernel).
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRCOPIESTODISPATCHES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// The views from `value` back to the buffer it views (a block argument or
/// a `memref.view` of the arena, which stays outside), innermost last.
Value rootOf(Value value, SmallVectorImpl<Operation *> &views) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (isa<memref::ViewOp>(view.getOperation()))
      break;
    views.push_back(view);
    value = view.getViewSource();
  }
  std::reverse(views.begin(), views.end());
  return value;
}

struct ArrCopiesToDispatchesPass
    : vmapc::impl::ArrCopiesToDispatchesBase<ArrCopiesToDispatchesPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Bufferized,
                                 vmapc::Stage::Planned)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto entry : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!vmapc::arr::isEntry(entry))
        continue;
      SmallVector<Operation *> copies;
      entry.walk([&](Operation *op) {
        auto linalgCopy = dyn_cast<linalg::CopyOp>(op);
        if (isa<memref::CopyOp>(op) ||
            (linalgCopy && linalgCopy.hasPureBufferSemantics()))
          copies.push_back(op);
      });
      // A copy into a buffer that the next dispatch overwrites without
      // reading it (a loop carry's initial value, say) is dead.
      llvm::erase_if(copies, [&](Operation *copy) {
        if (!overwrittenNext(copy))
          return false;
        copy->erase();
        return true;
      });
      for (auto [index, copy] : llvm::enumerate(copies))
        if (failed(outline(entry, copy, index, symbols)))
          return signalPassFailure();
      SmallVector<vmapc::sched::DispatchOp> dispatches;
      entry.walk([&](vmapc::sched::DispatchOp d) { dispatches.push_back(d); });
      for (vmapc::sched::DispatchOp dispatch : dispatches)
        if (failed(bindRoots(dispatch, symbols)))
          return signalPassFailure();
    }
  }

  /// Whether the op right after `copy` is a dispatch that writes the copy's
  /// whole target and never reads it: its kernel only materializes a result
  /// into that binding.
  static bool overwrittenNext(Operation *copy) {
    auto dispatch =
        dyn_cast_or_null<vmapc::sched::DispatchOp>(copy->getNextNode());
    if (!dispatch)
      return false;
    Value target = copy->getOperand(1);
    if (llvm::is_contained(dispatch.getInputs(), target))
      return false;
    auto outputs = dispatch.getOutputs();
    auto it = llvm::find(outputs, target);
    if (it == outputs.end())
      return false;
    return !vmapc::sched::readsOutput(dispatch, it - outputs.begin());
  }

  /// Binds the buffers that `dispatch`'s operands view (an argument of the
  /// entry, or a `memref.view` of the arena) instead of the views that
  /// bufferization left between them (a subview, a reshape, a cast): the
  /// kernel rebuilds the views from its bindings. Fails on a view whose
  /// offsets or sizes are not constants.
  LogicalResult bindRoots(vmapc::sched::DispatchOp dispatch,
                          SymbolTable &symbols) {
    auto kernel = symbols.lookup<func::FuncOp>(dispatch.getKernel());
    if (!kernel || kernel.isExternal())
      return success();
    Block &body = kernel.getBody().front();
    unsigned numIns = dispatch.getInputs().size();
    SmallVector<Value> operands(dispatch.getInputs());
    llvm::append_range(operands, dispatch.getOutputs());
    bool changed = false;
    OpBuilder b = OpBuilder::atBlockBegin(&body);
    // A constant the dispatch reads is the kernel's own: it takes the
    // global instead of a binding.
    for (unsigned i = numIns; i-- > 0;) {
      auto global = operands[i].getDefiningOp<memref::GetGlobalOp>();
      if (!global)
        continue;
      body.getArgument(i).replaceAllUsesWith(b.clone(*global)->getResult(0));
      body.eraseArgument(i);
      operands.erase(operands.begin() + i);
      --numIns;
      changed = true;
    }
    for (auto [i, operand] : llvm::enumerate(operands)) {
      SmallVector<Operation *> views;
      Value root = rootOf(operand, views);
      if (views.empty())
        continue;
      BlockArgument arg = body.getArgument(i);
      // The kernel's reads of the view, moved to the rebuilt view below.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : arg.getUses())
        uses.push_back(&use);
      arg.setType(root.getType());
      IRMapping mapping;
      mapping.map(root, arg);
      for (Operation *view : views) {
        for (Value index : view->getOperands()) {
          if (mapping.contains(index))
            continue;
          Operation *def = index.getDefiningOp();
          if (!def || !def->hasTrait<OpTrait::ConstantLike>())
            return dispatch.emitOpError()
                   << "binds a view with a non-constant operand";
          b.clone(*def, mapping);
        }
        b.clone(*view, mapping);
      }
      Value rebuilt = mapping.lookup(operand);
      for (OpOperand *use : uses)
        use->set(rebuilt);
      operands[i] = root;
      changed = true;
    }
    if (!changed)
      return success();
    kernel.setType(
        FunctionType::get(kernel.getContext(), body.getArgumentTypes(), {}));
    dispatch.getInputsMutable().assign(
        ArrayRef<Value>(operands).take_front(numIns));
    dispatch.getOutputsMutable().assign(
        ArrayRef<Value>(operands).drop_front(numIns));
    return success();
  }

  LogicalResult outline(func::FuncOp entry, Operation *copy, size_t index,
                        SymbolTable &symbols) {
    MLIRContext *ctx = entry.getContext();
    Location loc = copy->getLoc();
    SmallVector<Operation *> sourceViews, targetViews;
    Value copySource = copy->getOperand(0), copyTarget = copy->getOperand(1);
    Value source = rootOf(copySource, sourceViews);
    Value target = rootOf(copyTarget, targetViews);
    // The kernel rebuilds the views from constants only.
    for (Operation *view : llvm::concat<Operation *>(sourceViews, targetViews))
      for (Value operand : view->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (isa<BaseMemRefType>(operand.getType()) ||
            (def && def->hasTrait<OpTrait::ConstantLike>()))
          continue;
        return copy->emitOpError()
               << "copies through a view with a non-constant operand";
      }
    auto kernelType =
        FunctionType::get(ctx, {source.getType(), target.getType()}, {});
    OpBuilder moduleBuilder(entry);
    auto kernel = func::FuncOp::create(
        moduleBuilder, loc,
        (entry.getSymName() + "_copy_" + Twine(index)).str(), kernelType);
    kernel.setPrivate();
    kernel->setAttr(vmapc::sched::SchedDialect::kKernelAttrName,
                    UnitAttr::get(ctx));
    symbols.insert(kernel);
    Block *body = kernel.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    IRMapping mapping;
    mapping.map(source, body->getArgument(0));
    mapping.map(target, body->getArgument(1));
    auto cloneViews = [&](ArrayRef<Operation *> views) {
      for (Operation *view : views) {
        // Index operands of a view (offsets, sizes) are constants here.
        for (Value operand : view->getOperands())
          if (!mapping.contains(operand))
            if (Operation *def = operand.getDefiningOp())
              b.clone(*def, mapping);
        b.clone(*view, mapping);
      }
    };
    cloneViews(sourceViews);
    cloneViews(targetViews);
    // A memref.copy either way: the kernel pipeline copies whole buffers
    // and leaves linalg ops on memrefs alone.
    memref::CopyOp::create(b, loc, mapping.lookup(copySource),
                           mapping.lookup(copyTarget));
    func::ReturnOp::create(b, loc);

    OpBuilder entryBuilder(copy);
    vmapc::sched::DispatchOp::create(
        entryBuilder, loc, TypeRange{},
        FlatSymbolRefAttr::get(kernel.getSymNameAttr()), ValueRange{source},
        ValueRange{target}, ValueRange{});
    copy->erase();
    return success();
  }
};

} // namespace
