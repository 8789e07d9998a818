//===- SplitKernels.cpp - a level's kernels in parts of their own ---------===//

#include "codegen/SplitKernels.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace {

/// One kernel: its function and every top-level symbol it refers to,
/// transitively, and their ops.
struct Kernel {
  llvm::SetVector<Operation *> symbols;
  int64_t ops = 0;
};

/// Whether a copy of `symbol` in each of several objects links: a
/// declaration, or a definition private to its object.
bool copiesLink(Operation *symbol) {
  if (auto function = dyn_cast<LLVM::LLVMFuncOp>(symbol))
    return function.isExternal() ||
           function.getLinkage() == LLVM::Linkage::Internal ||
           function.getLinkage() == LLVM::Linkage::Private;
  if (auto global = dyn_cast<LLVM::GlobalOp>(symbol))
    return global.getLinkage() == LLVM::Linkage::Internal ||
           global.getLinkage() == LLVM::Linkage::Private;
  auto named = dyn_cast<SymbolOpInterface>(symbol);
  return named && (named.isPrivate() || named.isDeclaration());
}

/// The kernel of the symbols `roots` (a kernel's function; or what no
/// kernel refers to).
Kernel kernelOf(ArrayRef<Operation *> roots, SymbolTable &symbols) {
  Kernel kernel;
  kernel.symbols.insert(roots.begin(), roots.end());
  for (size_t i = 0; i < kernel.symbols.size(); ++i) {
    Operation *op = kernel.symbols[i];
    op->walk([&](Operation *) { ++kernel.ops; });
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (Operation *used =
              symbols.lookup(use.getSymbolRef().getRootReference()))
        kernel.symbols.insert(used);
  }
  return kernel;
}

} // namespace

llvm::SmallVector<OwningOpRef<ModuleOp>>
vmapc::splitKernels(ModuleOp module,
                    llvm::function_ref<bool(Operation *)> isKernel,
                    unsigned maxParts, int64_t minPartOps) {
  SymbolTable symbols(module);
  std::vector<Kernel> kernels;
  for (Operation &op : module.getBody()->getOperations())
    if (isKernel(&op))
      kernels.push_back(kernelOf(&op, symbols));
  int64_t moduleOps = 0;
  module->walk([&](Operation *) { ++moduleOps; });
  size_t count =
      std::min<size_t>({maxParts, kernels.size(),
                        size_t(std::max<int64_t>(
                            moduleOps / std::max<int64_t>(minPartOps, 1), 1))});
  if (count <= 1)
    return {};

  // Largest first, each to the lightest part so far.
  std::vector<size_t> order(kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return kernels[a].ops > kernels[b].ops;
  });
  std::vector<int64_t> partOps(count, 0);
  std::vector<size_t> partOf(kernels.size());
  for (size_t k : order) {
    size_t lightest =
        std::min_element(partOps.begin(), partOps.end()) - partOps.begin();
    partOf[k] = lightest;
    partOps[lightest] += kernels[k].ops;
  }

  // The part of each symbol; one that two parts need must copy.
  llvm::DenseMap<Operation *, size_t> owner;
  std::vector<llvm::StringSet<>> keep(count);
  for (auto [k, kernel] : llvm::enumerate(kernels))
    for (Operation *symbol : kernel.symbols) {
      auto [it, inserted] = owner.try_emplace(symbol, partOf[k]);
      if (!inserted && it->second != partOf[k] && !copiesLink(symbol))
        return {};
      keep[partOf[k]].insert(SymbolTable::getSymbolName(symbol).getValue());
    }
  // Part 0 keeps the rest, and what the rest refers to.
  SmallVector<Operation *> rest;
  for (Operation &op : module.getBody()->getOperations())
    if (op.hasAttr(SymbolTable::getSymbolAttrName()) && !owner.count(&op))
      rest.push_back(&op);
  for (Operation *symbol : kernelOf(rest, symbols).symbols) {
    auto it = owner.find(symbol);
    if (it != owner.end() && it->second != 0 && !copiesLink(symbol))
      return {};
    keep[0].insert(SymbolTable::getSymbolName(symbol).getValue());
  }

  llvm::SmallVector<OwningOpRef<ModuleOp>> parts;
  for (size_t p = 0; p < count; ++p) {
    OwningOpRef<ModuleOp> part(module.clone());
    for (Operation &op :
         llvm::make_early_inc_range(part->getBody()->getOperations()))
      if (auto name =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
          name && !keep[p].contains(name.getValue()))
        op.erase();
    parts.push_back(std::move(part));
  }
  return parts;
}
