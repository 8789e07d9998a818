//===- Names.cpp - names and scopes of a .arr program ---------------------===//
//
// See Names.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/Names.h"
#include "frontend/Builtins.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace vmapc::frontend;

bool vmapc::frontend::isLiteralName(StringRef name) {
  return name == "true" || name == "false" || name == "inf" || name == "nan";
}

bool vmapc::frontend::isReservedName(StringRef name) {
  return name == "vmap" || isBuiltin(name) || isLiteralName(name);
}

/// "'sum' is the name of a builtin", "'inf' is a literal".
static std::string reservedWhat(StringRef name) {
  return "'" + name.str() +
         (isLiteralName(name) ? "' is a literal"
                              : "' is the name of a builtin");
}

FnInfo *Names::findFunction(StringRef name) {
  auto it = fns.find(name);
  return it == fns.end() ? nullptr : &it->second;
}

MapInfo *Names::findMap(StringRef name) {
  auto it = maps.find(name);
  return it == maps.end() ? nullptr : &it->second;
}

bool Names::isUserFunction(func::FuncOp fn) const {
  auto it = fns.find(fn.getSymName());
  return it != fns.end() && it->second.op == fn;
}

LogicalResult Names::checkParams(const FunctionDecl &decl) const {
  llvm::StringMap<llvm::SMLoc> seen;
  for (const Param &p : decl.params) {
    auto [it, inserted] = seen.try_emplace(p.name, p.loc);
    if (!inserted)
      return ic.error(p.loc, "parameter '" + p.name + "' of '" + decl.name +
                                 "' is already defined; rename it");
    if (isLiteralName(p.name))
      return ic.error(p.loc, reservedWhat(p.name) + "; rename the parameter");
    if (isReservedName(p.name) || fns.count(p.name) || maps.count(p.name))
      return ic.error(p.loc, "parameter '" + p.name + "' of '" + decl.name +
                                 "' hides the function '" + p.name +
                                 "'; rename it");
  }
  return success();
}

LogicalResult Names::declare(Module &ast) {
  auto declare = [&](StringRef name, llvm::SMLoc nameLoc) -> LogicalResult {
    if (isReservedName(name))
      return ic.error(nameLoc, reservedWhat(name) + "; choose another name");
    auto [it, inserted] = topLevelNames.try_emplace(name, nameLoc);
    if (!inserted)
      return ic.error(nameLoc, "'" + name + "' is already defined at line " +
                                   Twine(ic.lineOf(it->second)) +
                                   "; choose another name");
    return success();
  };
  // Declare in source order so that a duplicate is reported at the later one.
  struct Item {
    StringRef name;
    llvm::SMLoc loc;
  };
  std::vector<Item> items;
  for (auto &fn : ast.functions)
    items.push_back({fn->name, fn->loc});
  for (auto &m : ast.maps)
    items.push_back({m->name, m->loc});
  for (auto &ex : ast.exports)
    items.push_back({ex->name, ex->loc});
  llvm::sort(items, [](const Item &a, const Item &b) {
    return a.loc.getPointer() < b.loc.getPointer();
  });
  for (const Item &item : items)
    if (failed(declare(item.name, item.loc)))
      return failure();
  for (auto &fn : ast.functions)
    fns[fn->name].decl = fn.get();
  for (auto &m : ast.maps)
    maps[m->name].decl = m.get();
  for (auto &ex : ast.exports)
    exportNames.insert(ex->name);
  return success();
}

const Variable *Names::findVariable(StringRef name, BodyContext &ctx) {
  auto it = ctx.scope.find(name);
  if (it != ctx.scope.end())
    return &it->second;
  return ctx.loop ? findVariable(name, *ctx.loop->outer) : nullptr;
}

ExprValue Names::capture(const ExprValue &op, LoopFrame &frame) {
  if (op.kind == ExprValue::tuple) {
    std::vector<ExprValue> elements;
    for (const ExprValue &e : op.elements)
      elements.push_back(capture(e, frame));
    return ExprValue::ofTuple(std::move(elements));
  }
  if (op.kind != ExprValue::tensor)
    return op; // literals are rebuilt inside the body
  auto it = frame.captured.find(op.value);
  if (it != frame.captured.end())
    return ExprValue::ofTensor(it->second);
  BlockArgument arg = frame.block->insertArgument(
      1 + frame.consts.size(), op.value.getType(), op.value.getLoc());
  frame.consts.push_back(op.value);
  frame.captured[op.value] = arg;
  return ExprValue::ofTensor(arg);
}

std::optional<Variable> Names::lookupVariable(StringRef name,
                                              BodyContext &ctx) {
  auto it = ctx.scope.find(name);
  if (it != ctx.scope.end())
    return it->second;
  if (!ctx.loop)
    return std::nullopt;
  std::optional<Variable> outer = lookupVariable(name, *ctx.loop->outer);
  if (!outer)
    return std::nullopt;
  Variable v{capture(outer->value, *ctx.loop), outer->loc};
  ctx.scope[name] = v;
  return v;
}

LogicalResult Names::checkNewName(StringRef name, llvm::SMLoc nameLoc,
                                  BodyContext &ctx, StringRef what) {
  if (const Variable *v = findVariable(name, ctx))
    return ic.error(nameLoc, "'" + name + "' is already defined at line " +
                                 Twine(ic.lineOf(v->loc)) +
                                 "; names cannot be redefined, choose another "
                                 "name");
  if (isReservedName(name))
    return ic.error(nameLoc, reservedWhat(name) + "; choose another name");
  if (fns.count(name) || maps.count(name))
    return ic.error(nameLoc, "'" + name +
                                 "' is the name of a function; choose another "
                                 "name for the " +
                                 what);
  return success();
}
