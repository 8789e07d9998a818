//===- Export.cpp - the entry points of a .arr program --------------------===//
//
// See Export.h.
//
//===----------------------------------------------------------------------===//

#include "frontend/Export.h"

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"

#include "llvm/ADT/STLExtras.h"

#include <tuple>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;

LogicalResult vmapc::frontend::importExport(ExportDecl &ex, ImportContext &ic,
                                            VmapResolver &vmaps,
                                            const Typing &typing) {
  OpBuilder builder(ic.getContext());
  CallExpr *call = asVmapCall(ex.value.get());
  if (!call)
    return ic.error(ex.value->getLoc(),
                    "an export must be 'vmap(f, in_axes=..., out_axes=..., "
                    "batch=B)'");
  FailureOr<VmapTemplate *> tmpl = vmaps.buildTemplate(call, ex.name, true);
  if (failed(tmpl))
    return failure();
  VmapTemplate &t = **tmpl;
  FailureOr<Signature> sig =
      vmaps.deriveSignature(t.inner, call->args[0]->getLoc());
  if (failed(sig))
    return failure();
  // The artifact's limits (runtime/include/vmapc/ArtifactFormat.h), checked
  // here so that an entry the runtime could not load fails before any pass
  // runs.
  for (auto [what, count] :
       {std::pair<StringRef, size_t>{"inputs", sig->params.size()},
        {"outputs", sig->results.size()}})
    if (count > vmapc::kMaxEntryArgs)
      return ic.error(ex.loc, "export '" + ex.name + "' has " + Twine(count) +
                                  " " + what + "; an entry has at most " +
                                  Twine(vmapc::kMaxEntryArgs) + " " + what +
                                  " (pass several values as one array)");
  // A caller passes a batched argument with its batch axis, so its rank
  // per example is one less than the artifact's rank limit.
  for (auto [what, types, axes] :
       {std::tuple<StringRef, ArrayRef<RankedTensorType>, const AxesSpec *>{
            "input", sig->params, &t.inAxes},
        {"output", sig->results, &t.outAxes}})
    for (auto [i, type] : llvm::enumerate(types)) {
      bool batched = axes->get(i).has_value();
      size_t maxRank = vmapc::kMaxEntryRank - (batched ? 1 : 0);
      if (static_cast<size_t>(type.getRank()) > maxRank)
        return ic.error(
            ex.loc,
            "export '" + ex.name + "': " + what + " " + Twine(i) +
                " has per-example type " + typeStr(type) + " of rank " +
                Twine(type.getRank()) +
                (batched
                     ? "; a batched argument has rank at most " +
                           Twine(maxRank) + " per example (" +
                           Twine(vmapc::kMaxEntryRank) + " with the batch axis)"
                     : "; an argument has rank at most " + Twine(maxRank)));
    }
  int64_t batch = *t.axisSize;
  SmallVector<Type> inputs;
  for (auto [i, pt] : llvm::enumerate(sig->params)) {
    std::optional<int64_t> a = t.inAxes.get(i);
    if (!a) {
      inputs.push_back(pt);
      continue;
    }
    int64_t r = pt.getRank();
    if (*a < -(r + 1) || *a > r)
      return ic.error(t.inAxes.getLoc(i),
                      "in_axes[" + Twine(i) + "]: axis " + Twine(*a) +
                          " is out of range for rank " + Twine(r + 1) +
                          " (valid: " + axisRangeStr(r + 1) + ")");
    inputs.push_back(arr::insertDim(pt, *a < 0 ? *a + r + 1 : *a, batch));
    if (failed(typing.checkLimits(cast<RankedTensorType>(inputs.back()),
                                  t.inAxes.getLoc(i),
                                  "input " + Twine(i) + " of export '" +
                                      ex.name + "' at batch " + Twine(batch))))
      return failure();
  }
  OpBuilder b = OpBuilder::atBlockEnd(ic.getModule().getBody());
  Location exLoc = ic.loc(ex.loc);
  auto fn = func::FuncOp::create(
      b, exLoc, ex.name, FunctionType::get(ic.getContext(), inputs, {}));
  Block *entry = fn.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);
  SmallVector<ExprValue> args;
  SmallVector<llvm::SMLoc> argLocs;
  for (BlockArgument a : entry->getArguments()) {
    args.push_back(ExprValue::ofTensor(a));
    argLocs.push_back(call->getLoc());
  }
  FailureOr<SmallVector<Value>> r =
      vmaps.applyTemplate(t, args, argLocs, call->getLoc(), body);
  if (failed(r))
    return failure();
  func::ReturnOp::create(body, exLoc, *r);
  fn.setType(
      FunctionType::get(ic.getContext(), inputs, ValueRange(*r).getTypes()));
  auto vcall = cast<arr::VmapCallOp>(r->front().getDefiningOp());
  fn->setAttr(vmapc::arr::ArrDialect::kBatchAttrName,
              builder.getI64IntegerAttr(batch));
  fn->setAttr(vmapc::arr::ArrDialect::kInAxesAttrName, vcall.getInAxes());
  fn->setAttr(vmapc::arr::ArrDialect::kOutAxesAttrName, vcall.getOutAxes());
  FnInfo *base = vmaps.innermostFn(t.inner);
  for (auto [i, p] : llvm::enumerate(base->decl->params))
    fn.setArgAttr(i, vmapc::arr::ArrDialect::kNameAttrName,
                  builder.getStringAttr(p.name));
  // Results are named as the function names them (`-> (dist: f32, idx:
  // i32)`), else out, or out0, out1, ... for several.
  const std::vector<std::string> &names = base->decl->resultNames;
  for (size_t j = 0; j < r->size(); ++j) {
    std::string name = j < names.size() && !names[j].empty() ? names[j]
                       : r->size() == 1 ? std::string("out")
                                        : "out" + std::to_string(j);
    fn.setResultAttr(j, vmapc::arr::ArrDialect::kNameAttrName,
                     builder.getStringAttr(name));
  }
  if (t.donate)
    return pairDonations(fn, t.donate, ic, typing);
  return success();
}

LogicalResult vmapc::frontend::pairDonations(func::FuncOp fn, Expr *donate,
                                             ImportContext &ic,
                                             const Typing &typing) {
  FailureOr<SmallVector<int64_t>> indices =
      typing.staticInts(donate, "donate=", /*allowScalar=*/true);
  if (failed(indices))
    return failure();
  auto inAxes =
      fn->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kInAxesAttrName);
  auto outAxes =
      fn->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kOutAxesAttrName);
  auto nameOf = [&](unsigned k) {
    auto name = fn.getArgAttrOfType<StringAttr>(
        k, vmapc::arr::ArrDialect::kNameAttrName);
    return name ? name.str() : "#" + std::to_string(k);
  };
  unsigned numInputs = fn.getNumArguments();
  SmallVector<bool> taken(fn.getNumResults(), false);
  SmallVector<int64_t> seen;
  for (int64_t k : *indices) {
    if (k < 0 || k >= int64_t(numInputs))
      return ic.error(donate->getLoc(),
                      "donate= names input " + Twine(k) + ", but '" +
                          fn.getSymName() + "' has " + Twine(numInputs) +
                          " input" + (numInputs == 1 ? "" : "s") +
                          " (valid: 0.." + Twine(numInputs - 1) + ")");
    if (llvm::is_contained(seen, k))
      return ic.error(donate->getLoc(),
                      "donate= names input " + Twine(k) + " twice");
    seen.push_back(k);
    auto inAxis = dyn_cast<IntegerAttr>(inAxes[k]);
    auto type = fn.getArgumentTypes()[k];
    if (!inAxis)
      return ic.error(donate->getLoc(),
                      "donate= names input '" + nameOf(k) +
                          "', which is not mapped (in_axes none): every "
                          "chunk reads it whole, so no output can take its "
                          "bytes");
    // The first output with the input's batched type and batch axis.
    std::optional<unsigned> match;
    for (unsigned j = 0; j < fn.getNumResults() && !match; ++j) {
      auto outAxis = dyn_cast<IntegerAttr>(outAxes[j]);
      if (!taken[j] && outAxis && outAxis.getInt() == inAxis.getInt() &&
          fn.getResultTypes()[j] == type)
        match = j;
    }
    if (!match)
      return ic.error(
          donate->getLoc(),
          "donate= names input '" + nameOf(k) + "' (" +
              typeStr(cast<RankedTensorType>(type)) + ", batch axis " +
              Twine(inAxis.getInt()) +
              "), but no output left has that type and batch axis; an output "
              "takes a donated input's bytes only when it has the same "
              "dtype, per-example shape and batch axis");
    taken[*match] = true;
    fn.setResultAttr(
        *match, vmapc::arr::ArrDialect::kDonatedFromAttrName,
        IntegerAttr::get(IntegerType::get(fn.getContext(), 64), k));
  }
  return success();
}
