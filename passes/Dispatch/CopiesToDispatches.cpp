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

#include "dialect/SchedDialect.h"
#include "passes/Passes.h"

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
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto entry : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (!entry->hasAttr("arr.batch") || entry.isPrivate() ||
          entry.isExternal())
        continue;
      SmallVector<memref::CopyOp> copies;
      entry.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
      for (auto [index, copy] : llvm::enumerate(copies))
        outline(entry, copy, index, symbols);
    }
  }

  void outline(func::FuncOp entry, memref::CopyOp copy, size_t index,
               SymbolTable &symbols) {
    MLIRContext *ctx = entry.getContext();
    Location loc = copy.getLoc();
    SmallVector<Operation *> sourceViews, targetViews;
    Value source = rootOf(copy.getSource(), sourceViews);
    Value target = rootOf(copy.getTarget(), targetViews);
    auto kernelType = FunctionType::get(
        ctx, {source.getType(), target.getType()}, {});
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
    memref::CopyOp::create(b, loc, mapping.lookup(copy.getSource()),
                           mapping.lookup(copy.getTarget()));
    func::ReturnOp::create(b, loc);

    OpBuilder entryBuilder(copy);
    vmapc::sched::DispatchOp::create(
        entryBuilder, loc, TypeRange{},
        FlatSymbolRefAttr::get(kernel.getSymNameAttr()), ValueRange{source},
        ValueRange{target}, ValueRange{});
    copy.erase();
  }
};

} // namespace
