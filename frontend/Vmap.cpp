//===- Vmap.cpp - vmap templates and their application -------------------===//
//
// See Vmap.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/Vmap.h"
#include "frontend/Builtins.h"

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"
#include "dialect/TypeInference.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;
using vmapc::kMaxNestingDepth;

CallExpr *vmapc::frontend::asVmapCall(Expr *expr) {
  auto *call = dyn_cast<CallExpr>(expr);
  if (!call)
    return nullptr;
  auto *name = dyn_cast<NameExpr>(call->callee.get());
  if (!name || name->name != "vmap")
    return nullptr;
  return call;
}

unsigned VmapResolver::arity(const Callable &c) const {
  if (c.fn)
    return c.fn->decl->params.size();
  return c.map->inAxes.isTuple ? c.map->inAxes.entries.size()
                               : arity(c.map->inner);
}

unsigned VmapResolver::numResults(const Callable &c) const {
  if (c.fn)
    return c.fn->decl->resultTypes.size();
  return numResults(c.map->inner);
}

std::string VmapResolver::displayName(const Callable &c) const {
  return c.fn ? "'" + c.fn->decl->name + "'" : c.map->display;
}

FnInfo *VmapResolver::innermostFn(const Callable &c) const {
  return c.fn ? c.fn : innermostFn(c.map->inner);
}

FailureOr<Callable> VmapResolver::resolveCallable(Expr *expr, StringRef owner) {
  if (CallExpr *vmapCall = asVmapCall(expr)) {
    FailureOr<VmapTemplate *> t = buildTemplate(vmapCall, owner, false);
    if (failed(t))
      return failure();
    return Callable{nullptr, *t};
  }
  auto *name = dyn_cast<NameExpr>(expr);
  if (!name)
    return ic.error(expr->getLoc(), "expected a function name or vmap(...) as "
                                    "the function to map");
  StringRef n = name->name;
  if (FnInfo *fn = names.findFunction(n))
    return Callable{fn, nullptr};
  if (MapInfo *map = names.findMap(n)) {
    FailureOr<VmapTemplate *> t = resolveMap(*map, expr->getLoc());
    if (failed(t))
      return failure();
    return Callable{nullptr, *t};
  }
  if (isBuiltin(n))
    return ic.error(expr->getLoc(), "builtin '" + n +
                                        "' cannot be mapped directly; wrap it "
                                        "in a fn");
  if (n == "vmap")
    return ic.error(expr->getLoc(), "expected vmap(...) with arguments");
  if (names.isExport(n))
    return ic.error(expr->getLoc(),
                    "'" + n +
                        "' is an entry point for host programs "
                        "and cannot be mapped; map the function "
                        "it exports");
  return ic.error(expr->getLoc(), "unknown function '" + n + "'");
}

FailureOr<AxesSpec> VmapResolver::parseAxes(Expr *expr, StringRef what) {
  AxesSpec spec;
  spec.loc = expr->getLoc();
  auto entry = [&](Expr *e, std::optional<int64_t> &out) -> LogicalResult {
    if (isa<NoneExpr>(e)) {
      out = std::nullopt;
      return success();
    }
    if (std::optional<int64_t> value = readIntLiteral(e)) {
      out = *value;
      return success();
    }
    return ic.error(e->getLoc(), what + " must be an integer, none, or a tuple "
                                        "of those");
  };
  if (auto *tuple = dyn_cast<TupleExpr>(expr)) {
    spec.isTuple = true;
    spec.entries.clear();
    spec.locs.clear();
    for (ExprPtr &e : tuple->elements) {
      std::optional<int64_t> v;
      if (failed(entry(e.get(), v)))
        return failure();
      spec.entries.push_back(v);
      spec.locs.push_back(e->getLoc());
    }
    return spec;
  }
  if (failed(entry(expr, spec.entries[0])))
    return failure();
  spec.locs[0] = expr->getLoc();
  return spec;
}

FailureOr<VmapTemplate *>
VmapResolver::buildTemplate(CallExpr *call, StringRef owner, bool isExport) {
  llvm::SMLoc at = call->getLoc();
  if (call->args.size() != 1)
    return ic.error(at, "vmap takes one function and the keyword arguments "
                        "in_axes=, out_axes=" +
                            Twine(isExport ? ", batch=" : ", axis_size=") +
                            "; got " + Twine(call->args.size()) +
                            " positional arguments");
  FailureOr<Callable> inner = resolveCallable(call->args[0].get(), owner);
  if (failed(inner))
    return failure();
  auto t = std::make_unique<VmapTemplate>();
  t->inner = *inner;
  t->depth = inner->map ? inner->map->depth + 1 : 1;
  // Each level becomes one function in the IR: bounded as calls are.
  if (t->depth > kMaxNestingDepth)
    return ic.error(at, "vmap is nested more than " + Twine(kMaxNestingDepth) +
                            " levels deep (through named maps); that is the "
                            "limit for calls, vmaps and 'for' loops nested in "
                            "one another");
  t->loc = at;
  t->owner = owner.str();
  t->display = "vmap(" + displayName(*inner) + ")";
  t->inAxes.loc = t->outAxes.loc = at;
  bool sawBatch = false;
  for (KeywordArg &kw : call->kwargs) {
    if (kw.name == "in_axes" || kw.name == "out_axes") {
      FailureOr<AxesSpec> spec = parseAxes(kw.value.get(), kw.name);
      if (failed(spec))
        return failure();
      (kw.name == "in_axes" ? t->inAxes : t->outAxes) = *spec;
      continue;
    }
    if (kw.name == "donate") {
      if (!isExport)
        return ic.error(kw.loc, "donate= is only allowed in 'export NAME = "
                                "vmap(f, ..., donate=(k,), batch=B);'");
      t->donate = kw.value.get();
      continue;
    }
    bool isBatch = kw.name == "batch";
    if (isBatch && !isExport)
      return ic.error(kw.loc, "batch= is only allowed in 'export NAME = "
                              "vmap(f, ..., batch=B);'; use axis_size= here");
    if (kw.name == "axis_size" && isExport)
      return ic.error(kw.loc, "an export sets its batch size with batch=B, not "
                              "axis_size=");
    if (!isBatch && kw.name != "axis_size")
      return ic.error(kw.loc,
                      "unknown keyword argument '" + kw.name +
                          "' for vmap (expected in_axes=, out_axes=" +
                          (isExport ? ", batch=, donate=)" : ", axis_size=)"));
    auto *lit = dyn_cast<IntLiteralExpr>(kw.value.get());
    if (!lit)
      return ic.error(kw.value->getLoc(),
                      isBatch ? "batch must be an integer, at least 1"
                              : kw.name + " must be a non-negative integer");
    if (isBatch && lit->value < 1)
      return ic.error(kw.value->getLoc(),
                      "batch must be at least 1, got " + lit->spelling);
    if (lit->value > std::numeric_limits<int32_t>::max())
      return ic.error(kw.value->getLoc(), kw.name + " " + lit->spelling +
                                              " is too large (at most "
                                              "2147483647)");
    t->axisSize = lit->value;
    t->axisSizeLoc = kw.value->getLoc();
    sawBatch |= isBatch;
  }
  if (isExport && !sawBatch)
    return ic.error(at, "an export needs its static batch size: add batch=B, "
                        "e.g. vmap(f, in_axes=0, batch=256)");
  // "in_axes has 1 entry for a function of 2 parameters".
  auto count = [](size_t k, StringRef one, StringRef many) {
    return std::to_string(k) + " " + (k == 1 ? one : many).str();
  };
  unsigned n = arity(*inner);
  if (t->inAxes.isTuple && t->inAxes.entries.size() != n)
    return ic.error(
        t->inAxes.loc,
        "in_axes has " + count(t->inAxes.entries.size(), "entry", "entries") +
            " for a function of " + count(n, "parameter", "parameters"));
  unsigned results = numResults(*inner);
  if (t->outAxes.isTuple && t->outAxes.entries.size() != results)
    return ic.error(
        t->outAxes.loc,
        "out_axes has " + count(t->outAxes.entries.size(), "entry", "entries") +
            " for a function of " + count(results, "result", "results"));
  bool anyMapped = false;
  for (unsigned i = 0; i < n; ++i)
    anyMapped |= t->inAxes.get(i).has_value();
  if (!anyMapped && !t->axisSize)
    return ic.error(at, "vmap needs axis_size= when no operand is mapped (all "
                        "in_axes are none)");
  templates.push_back(std::move(t));
  return templates.back().get();
}

FailureOr<VmapTemplate *> VmapResolver::resolveMap(MapInfo &map,
                                                   llvm::SMLoc useLoc) {
  if (map.tmpl)
    return map.tmpl;
  if (map.resolving)
    return ic.error(useLoc, "named map '" + map.decl->name +
                                "' is defined in terms of itself");
  if (++resolvingMaps > kMaxNestingDepth)
    return ic.error(useLoc, "named maps refer to each other more than " +
                                Twine(kMaxNestingDepth) + " levels deep");
  map.resolving = true;
  CallExpr *call = asVmapCall(map.decl->value.get());
  if (!call)
    return ic.error(map.decl->value->getLoc(),
                    "'fn " + map.decl->name +
                        " = ...' must name a vmap(...) expression; write 'fn " +
                        map.decl->name +
                        "(params) -> type { ... }' for a "
                        "function");
  FailureOr<VmapTemplate *> t = buildTemplate(call, map.decl->name, false);
  if (failed(t))
    return failure();
  (*t)->display = "'" + map.decl->name + "'";
  map.tmpl = *t;
  map.resolving = false;
  --resolvingMaps;
  return *t;
}

std::string VmapResolver::freshInnerName(StringRef owner) {
  while (true) {
    unsigned n = innerCounters[owner]++;
    std::string name = (owner + "_inner_" + Twine(n)).str();
    if (!names.isTopLevel(name) &&
        !SymbolTable::lookupSymbolIn(ic.getModule(), name))
      return name;
  }
}

FailureOr<func::FuncOp>
VmapResolver::instantiate(const Callable &c, ArrayRef<RankedTensorType> types,
                          llvm::SMLoc useLoc) {
  if (c.fn)
    return c.fn->op;
  std::vector<const void *> key;
  for (RankedTensorType t : types)
    key.push_back(t.getAsOpaquePointer());
  auto cacheKey = std::make_pair(c.map, key);
  if (auto it = instances.find(cacheKey); it != instances.end())
    return it->second;

  OpBuilder b = OpBuilder::atBlockEnd(ic.getModule().getBody());
  SmallVector<Type> inputs(types.begin(), types.end());
  Location fnLoc = ic.loc(c.map->loc);
  auto fn =
      func::FuncOp::create(b, fnLoc, freshInnerName(c.map->owner),
                           FunctionType::get(ic.getContext(), inputs, {}));
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);
  SmallVector<ExprValue> args;
  SmallVector<llvm::SMLoc> argLocs;
  for (BlockArgument a : entry->getArguments()) {
    args.push_back(ExprValue::ofTensor(a));
    argLocs.push_back(useLoc);
  }
  FailureOr<SmallVector<Value>> r =
      applyTemplate(*c.map, args, argLocs, useLoc, body);
  if (failed(r))
    return failure();
  func::ReturnOp::create(body, fnLoc, *r);
  fn.setType(
      FunctionType::get(ic.getContext(), inputs, ValueRange(*r).getTypes()));
  instances[cacheKey] = fn;
  return fn;
}

FailureOr<SmallVector<Value>>
VmapResolver::applyTemplate(VmapTemplate &t, ArrayRef<ExprValue> operands,
                            ArrayRef<llvm::SMLoc> operandLocs,
                            llvm::SMLoc callLoc, OpBuilder &b) {
  unsigned n = arity(t.inner);
  if (operands.size() != n)
    return ic.error(callLoc, t.display + " takes " + Twine(n) + " argument" +
                                 (n == 1 ? "" : "s") + ", got " +
                                 Twine(operands.size()));
  FnInfo *base = innermostFn(t.inner);
  // Mapping the function being imported is recursion (other cycles are
  // found once every body is imported, by checkCallGraph); said first, it
  // explains the mismatched per-example types that would follow.
  if (base == importing)
    return ic.error(callLoc, "'" + base->decl->name + "' calls itself (" +
                                 base->decl->name + " -> " + base->decl->name +
                                 "); recursion is not supported");
  SmallVector<Value> values;
  SmallVector<RankedTensorType> perExample;
  SmallVector<Attribute> inAttrs;
  std::optional<int64_t> size;
  unsigned sizeOperand = 0;
  for (auto [i, op] : llvm::enumerate(operands)) {
    std::optional<int64_t> axis = t.inAxes.get(i);
    Value v;
    if (op.isLiteral() || (op.kind == ExprValue::arrayLit && !axis)) {
      if (axis)
        return ic.error(operandLocs[i],
                        "operand " + Twine(i) + " is the literal " + op.text +
                            ", which has no axis to map over; use none for it "
                            "in in_axes");
      auto pt = cast<RankedTensorType>(base->op.getFunctionType().getInput(i));
      FailureOr<Value> m = typing.materialize(
          op, pt.getElementType(),
          op.kind == ExprValue::arrayLit ? op.shape : SmallVector<int64_t>(),
          operandLocs[i], b, operandLocs[i]);
      if (failed(m))
        return failure();
      v = *m;
    } else if (op.kind == ExprValue::arrayLit) {
      FailureOr<Value> m = typing.materializeDefault(op, operandLocs[i], b);
      if (failed(m))
        return failure();
      v = *m;
    } else {
      v = op.value;
    }
    auto type = cast<RankedTensorType>(v.getType());
    values.push_back(v);
    if (!axis) {
      perExample.push_back(type);
      inAttrs.push_back(UnitAttr::get(ic.getContext()));
      continue;
    }
    int64_t rank = type.getRank();
    if (rank == 0)
      return ic.error(t.inAxes.getLoc(i),
                      "in_axes maps operand " + Twine(i) + " of type " +
                          typeStr(type) +
                          ", a scalar with no axis to map over; use none for "
                          "it");
    int64_t a = *axis;
    if (a < -rank || a >= rank)
      return ic.error(t.inAxes.getLoc(i),
                      "in_axes[" + Twine(i) + "]: axis " + Twine(a) +
                          " is out of range for rank " + Twine(rank) +
                          " (valid: " + axisRangeStr(rank) + ")");
    if (a < 0)
      a += rank;
    int64_t s = type.getDimSize(a);
    if (!size) {
      size = s;
      sizeOperand = i;
    } else if (*size != s) {
      return ic.error(callLoc,
                      "vmapped operands have different sizes on their mapped "
                      "axes: " +
                          Twine(*size) + " (operand " + Twine(sizeOperand) +
                          ") and " + Twine(s) + " (operand " + Twine(i) + ")");
    }
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + a);
    perExample.push_back(RankedTensorType::get(shape, type.getElementType()));
    inAttrs.push_back(b.getI64IntegerAttr(a));
  }
  if (t.axisSize && size && *t.axisSize != *size)
    return ic.error(t.axisSizeLoc, "axis_size=" + Twine(*t.axisSize) +
                                       " does not match size " + Twine(*size) +
                                       " of the mapped axis of operand " +
                                       Twine(sizeOperand));
  int64_t axisSize = size ? *size : *t.axisSize;

  FailureOr<func::FuncOp> callee = instantiate(t.inner, perExample, callLoc);
  if (failed(callee))
    return failure();
  FunctionType ct = callee->getFunctionType();
  for (auto [i, pe] : llvm::enumerate(perExample))
    if (ct.getInput(i) != pe) {
      std::string how =
          t.inAxes.get(i)
              ? "after removing mapped axis " +
                    std::to_string(cast<IntegerAttr>(inAttrs[i]).getInt())
              : "unmapped";
      return ic.error(operandLocs[i],
                      t.display + ": operand " + Twine(i) +
                          " has per-example type " + typeStr(pe) + " (" + how +
                          " of " + typeStr(values[i].getType()) + "), but " +
                          displayName(t.inner) + " expects " +
                          typeStr(ct.getInput(i)) + " for parameter '" +
                          base->decl->params[i].name + "'");
    }

  // The axes, checked against the callee's results and normalized; the
  // batched types are the op's type rule's.
  SmallVector<arr::BatchDim> outAxes;
  SmallVector<Attribute> outAttrs;
  for (auto [j, rt] : llvm::enumerate(ct.getResults())) {
    auto resultType = cast<RankedTensorType>(rt);
    std::optional<int64_t> out = t.outAxes.get(j);
    if (!out) {
      outAttrs.push_back(UnitAttr::get(ic.getContext()));
      outAxes.push_back(std::nullopt);
      continue;
    }
    int64_t r = resultType.getRank();
    int64_t a = *out;
    std::string which =
        ct.getNumResults() == 1 ? std::string() : "[" + std::to_string(j) + "]";
    if (a < -(r + 1) || a > r)
      return ic.error(t.outAxes.getLoc(j),
                      "out_axes" + which + ": axis " + Twine(a) +
                          " is out of range for a result of per-example type " +
                          typeStr(resultType) +
                          " (valid: " + axisRangeStr(r + 1) + ")");
    if (a < 0)
      a += r + 1;
    outAxes.push_back(a);
    outAttrs.push_back(b.getI64IntegerAttr(a));
  }
  SmallVector<arr::BatchDim> inAxes;
  for (Attribute a : inAttrs)
    inAxes.push_back(isa<IntegerAttr>(a)
                         ? arr::BatchDim(cast<IntegerAttr>(a).getInt())
                         : std::nullopt);
  SmallVector<Type> operandTypes, batchedTypes;
  if (failed(arr::inferVmapCallOp(std::nullopt, ct, inAxes, outAxes, axisSize,
                                  operandTypes, batchedTypes)))
    return ic.error(callLoc, "internal error: " + t.display +
                                 " has no batched type (a bug in vmapc)");
  for (auto [j, type] : llvm::enumerate(batchedTypes))
    if (outAxes[j] && failed(typing.checkLimits(
                          cast<RankedTensorType>(type), callLoc,
                          "result " + Twine(j) + " of " + t.display + " over " +
                              Twine(axisSize) + " examples")))
      return failure();
  auto call = arr::VmapCallOp::create(
      b, ic.loc(callLoc), TypeRange(batchedTypes),
      FlatSymbolRefAttr::get(callee->getSymNameAttr()), values,
      b.getArrayAttr(inAttrs), b.getArrayAttr(outAttrs),
      b.getI64IntegerAttr(axisSize));
  return SmallVector<Value>(call.getResults());
}

FailureOr<Signature> VmapResolver::deriveSignature(const Callable &c,
                                                   llvm::SMLoc useLoc) {
  if (c.fn) {
    FunctionType ft = c.fn->op.getFunctionType();
    Signature sig;
    for (Type t : ft.getInputs())
      sig.params.push_back(cast<RankedTensorType>(t));
    for (Type t : ft.getResults())
      sig.results.push_back(cast<RankedTensorType>(t));
    return sig;
  }
  VmapTemplate &t = *c.map;
  FailureOr<Signature> inner = deriveSignature(t.inner, useLoc);
  if (failed(inner))
    return failure();
  if (!t.axisSize)
    return ic.error(useLoc,
                    "cannot derive the per-example parameter types of " +
                        t.display +
                        ": its axis size is only known where it is "
                        "applied; give it axis_size=N, or export a fn "
                        "that applies it");
  Signature sig;
  for (auto [i, pt] : llvm::enumerate(inner->params)) {
    std::optional<int64_t> a = t.inAxes.get(i);
    if (!a) {
      sig.params.push_back(pt);
      continue;
    }
    int64_t r = pt.getRank();
    if (*a < -(r + 1) || *a > r)
      return ic.error(t.inAxes.getLoc(i),
                      "in_axes[" + Twine(i) + "]: axis " + Twine(*a) +
                          " is out of range for rank " + Twine(r + 1) +
                          " (valid: " + axisRangeStr(r + 1) + ")");
    sig.params.push_back(
        arr::insertDim(pt, *a < 0 ? *a + r + 1 : *a, *t.axisSize));
    if (failed(
            typing.checkLimits(sig.params.back(), t.inAxes.getLoc(i),
                               "parameter " + Twine(i) + " of " + t.display)))
      return failure();
  }
  for (auto [j, rt] : llvm::enumerate(inner->results)) {
    RankedTensorType result = rt;
    if (std::optional<int64_t> a = t.outAxes.get(j)) {
      int64_t r = rt.getRank();
      if (*a >= -(r + 1) && *a <= r)
        result = arr::insertDim(rt, *a < 0 ? *a + r + 1 : *a, *t.axisSize);
      if (failed(typing.checkLimits(result, t.outAxes.getLoc(j),
                                    "result " + Twine(j) + " of " + t.display)))
        return failure();
    }
    sig.results.push_back(result);
  }
  return sig;
}
