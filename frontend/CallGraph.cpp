//===- CallGraph.cpp - recursion and nesting depth ------------------------===//
//
// See CallGraph.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/CallGraph.h"

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <deque>
#include <optional>
#include <string>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;

/// Finds recursion (an error: the language has none) and bounds the nesting
/// depth: the function bodies (user functions and vmap levels, which are
/// functions in the IR) and `for` bodies that enclose any op, through calls.
/// depth(f) = 1 + the largest, over the ops of f, of (the `for` bodies
/// around the op in f) + depth(callee) for a call or vmap_call. After
/// inlining an entry, no loop is nested deeper than its depth, and
/// `--arr-vmap` recurses once per enclosing body (dialect/Limits.h). An
/// iterative depth-first search, callees first.
LogicalResult vmapc::frontend::checkCallGraph(
    ModuleOp module, llvm::function_ref<bool(func::FuncOp)> isUserFunction) {
  struct Edge {
    Operation *op;
    func::FuncOp callee;
    unsigned loops; // `for` bodies around `op` in its function
  };
  struct Node {
    func::FuncOp fn;
    enum State { visiting, done } state = visiting;
    SmallVector<Edge> edges;
    size_t next = 0; // the next edge to follow
    unsigned maxLoops = 0;
    unsigned depth = 0;
    int deepest = -1; // the edge that gives `depth`, if any
  };
  std::deque<Node> storage; // stable addresses
  llvm::DenseMap<Operation *, Node *> nodes;
  SymbolTable symbols(module);
  auto visit = [&](func::FuncOp fn) {
    Node &node = storage.emplace_back();
    node.fn = fn;
    nodes[fn] = &node;
    fn.walk([&](Operation *op) {
      unsigned loops = 0;
      for (Operation *p = op->getParentOp(); p && p != fn; p = p->getParentOp())
        loops += isa<arr::ForOp>(p);
      node.maxLoops = std::max(node.maxLoops, loops);
      FlatSymbolRefAttr callee;
      if (auto call = dyn_cast<func::CallOp>(op))
        callee = call.getCalleeAttr();
      else if (auto vmap = dyn_cast<arr::VmapCallOp>(op))
        callee = vmap.getCalleeAttr();
      if (callee)
        if (auto target = symbols.lookup<func::FuncOp>(callee.getValue()))
          node.edges.push_back({op, target, loops});
    });
    return &node;
  };
  // A user function's name, or nullopt for a generated one (a vmap level).
  auto userName = [&](func::FuncOp fn) -> std::optional<std::string> {
    if (!isUserFunction(fn))
      return std::nullopt;
    return fn.getSymName().str();
  };

  for (auto root : module.getOps<func::FuncOp>()) {
    if (nodes.count(root))
      continue;
    SmallVector<Node *> stack{visit(root)};
    while (!stack.empty()) {
      Node &node = *stack.back();
      if (node.next < node.edges.size()) {
        Edge edge = node.edges[node.next++];
        auto it = nodes.find(edge.callee);
        if (it == nodes.end()) {
          stack.push_back(visit(edge.callee));
          continue;
        }
        if (it->second->state == Node::done)
          continue;
        // A call of a function on the stack: recursion.
        std::string chain;
        for (auto f = llvm::find(stack, it->second); f != stack.end(); ++f)
          if (std::optional<std::string> name = userName((*f)->fn))
            chain += *name + " -> ";
        std::string name =
            userName(edge.callee).value_or(edge.callee.getSymName().str());
        return emitError(edge.op->getLoc())
               << "'" << name << "' calls itself (" << chain << name
               << "); recursion is not supported";
      }
      // Every callee is done: the depth of this function.
      node.depth = 1 + node.maxLoops;
      for (auto [i, edge] : llvm::enumerate(node.edges)) {
        unsigned d = 1 + edge.loops + nodes[edge.callee]->depth;
        if (d > node.depth) {
          node.depth = d;
          node.deepest = static_cast<int>(i);
        }
      }
      node.state = Node::done;
      stack.pop_back();
      if (node.depth <= vmapc::kMaxNestingDepth)
        continue;
      // Its callees are within the limit: this function's deepest call (or
      // loop) is the one that passes it.
      if (node.deepest < 0)
        return emitError(node.fn.getLoc())
               << "'for' loops nest " << node.maxLoops << " levels deep in '"
               << node.fn.getSymName()
               << "'; calls, vmaps and 'for' loops may nest at most "
               << vmapc::kMaxNestingDepth << " levels in one another";
      std::string chain = node.fn.getSymName().str();
      const Node *n = &node;
      for (unsigned shown = 0; n->deepest >= 0; ++shown) {
        if (shown == 4) {
          chain += " -> ...";
          break;
        }
        func::FuncOp callee = n->edges[n->deepest].callee;
        chain += " -> " + callee.getSymName().str();
        n = nodes[callee];
      }
      return emitError(node.edges[node.deepest].op->getLoc())
             << "calls, vmaps and 'for' loops nest " << node.depth
             << " levels deep through this call (" << chain
             << "); they may nest at most " << vmapc::kMaxNestingDepth
             << " levels in one another: make the call chain shorter";
    }
  }
  return success();
}
