//===- BindingAccess.cpp - what a kernel does through each binding --------===//

#include "passes/Codegen/BindingAccess.h"

#include "dialect/SchedDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
constexpr int64_t kRead = 1, kWrite = 2;

/// The access of every op using `memref` or a view of it, or-ed into
/// `access`.
void collect(Value memref, int64_t &access) {
  SmallVector<Value> worklist = {memref};
  while (!worklist.empty() && access != (kRead | kWrite)) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        access |= kRead | kWrite; // it may do anything with it
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> onValue;
      effects.getEffectsOnValue(value, onValue);
      // An op with effects on memory it does not name may touch this too.
      SmallVector<MemoryEffects::EffectInstance> all;
      effects.getEffects(all);
      for (const MemoryEffects::EffectInstance &e : all)
        if (!e.getValue() && !isa<MemoryEffects::Allocate>(e.getEffect()))
          onValue.push_back(e);
      for (const MemoryEffects::EffectInstance &e : onValue) {
        if (isa<MemoryEffects::Read>(e.getEffect()))
          access |= kRead;
        else if (!isa<MemoryEffects::Allocate>(e.getEffect()))
          access |= kWrite; // Write, Free
      }
      // Views: what an op makes from the binding without touching memory.
      if (onValue.empty())
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()))
            worklist.push_back(result);
    }
  }
}
} // namespace

SmallVector<int64_t> vmapc::bindingAccess(FunctionOpInterface kernel) {
  SmallVector<int64_t> access;
  for (BlockArgument arg : kernel.getArguments()) {
    if (!isa<BaseMemRefType>(arg.getType()))
      continue;
    int64_t a = 0;
    collect(arg, a);
    access.push_back(a ? a : kRead);
  }
  return access;
}

void vmapc::setBindingAccess(FunctionOpInterface kernel) {
  kernel->setAttr(
      vmapc::sched::SchedDialect::kBindingAccessAttrName,
      DenseI64ArrayAttr::get(kernel->getContext(), bindingAccess(kernel)));
}
