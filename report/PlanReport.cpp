//===- PlanReport.cpp - names, explanations, text and JSON of a plan ------===//

#include "report/PlanReport.h"

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace mlir;

namespace vmapc {

const char *bufferRoleName(BufferRole role) {
  switch (role) {
  case BufferRole::Staging:
    return "staging";
  case BufferRole::Intermediate:
    return "intermediate";
  case BufferRole::InPlace:
    return "in place";
  case BufferRole::Donated:
    return "donated";
  case BufferRole::OncePerCall:
    return "once per call";
  }
  return "intermediate";
}

namespace {

/// The variable name and file:line:col in `loc`: the innermost NameLoc (an
/// inlined function's own before the call's) and the innermost
/// FileLineColLoc; in a fused location, both from its first part that has a
/// position.
void findSource(Location loc, std::string &name, std::string &where) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    if (name.empty())
      name = named.getName().str();
    findSource(named.getChildLoc(), name, where);
  } else if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    findSource(call.getCallee(), name, where);
    findSource(call.getCaller(), name, where);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations()) {
      std::string partName, partWhere;
      findSource(part, partName, partWhere);
      if (partWhere.empty())
        continue;
      if (name.empty())
        name = partName;
      if (where.empty())
        where = partWhere;
      break;
    }
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    if (where.empty() && file.getLine() != 0)
      where = llvm::formatv("{0}:{1}:{2}",
                            llvm::sys::path::filename(file.getFilename()),
                            file.getLine(), file.getColumn());
  }
}

/// The allocation or argument a buffer operand is a view of.
Value rootOf(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `op` writes `root` (a dispatch's or destination-style op's
/// output, a copy's target).
bool writes(Operation *op, Value root) {
  if (auto dispatch = dyn_cast<sched::DispatchOp>(op))
    return llvm::any_of(dispatch.getOutputs(),
                        [&](Value v) { return rootOf(v) == root; });
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return rootOf(copy.getTarget()) == root;
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    return llvm::any_of(dps.getDpsInits(),
                        [&](Value v) { return rootOf(v) == root; });
  return false;
}

/// "f32[1000, 64]" for a memref or tensor type.
std::string typeText(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return "?";
  std::string text;
  llvm::raw_string_ostream os(text);
  Type element = shaped.getElementType();
  if (element.isInteger(1))
    os << "bool";
  else if (element.isF32())
    os << "f32";
  else if (element.isInteger(32))
    os << "i32";
  else
    os << element;
  os << "[";
  llvm::interleave(shaped.getShape(), os, ", ");
  os << "]";
  return text;
}

/// "a, b and c".
std::string listText(ArrayRef<std::string> items) {
  std::string text;
  for (auto [i, item] : llvm::enumerate(items))
    text += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + item;
  return text;
}

class ReportBuilder {
public:
  ReportBuilder(func::FuncOp entry, BufferPlan plan)
      : entry(entry), symbols(entry->getParentOfType<ModuleOp>()) {
    report.entry = entry.getSymName().str();
    report.plan = std::move(plan);
  }

  PlanReport build() {
    Block &body = entry.getBody().front();
    for (auto [index, op] : llvm::enumerate(body))
      pointOfOp[&op] = static_cast<int64_t>(index);
    for (auto [index, row] : llvm::enumerate(report.plan.buffers))
      rowOfRoot[row.root] = static_cast<int>(index);
    nameBuffers();
    describePoints(body);
    explainInPlace();
    findUnmappedInputs();
    return std::move(report);
  }

private:
  int64_t pointOf(Operation *op) {
    Operation *top = entry.getBody().front().findAncestorOpInBlock(*op);
    auto it = pointOfOp.find(top);
    return it == pointOfOp.end() ? -1 : it->second;
  }
  bool isCopy(sched::DispatchOp dispatch) {
    return sched::isCopyKernel(
        symbols.lookup<func::FuncOp>(dispatch.getKernel()));
  }
  /// The name of what a buffer operand binds: a row's name, or an
  /// argument passed from the caller's memory.
  std::string operandName(Value operand) {
    Value root = rootOf(operand);
    auto it = rowOfRoot.find(root);
    if (it != rowOfRoot.end())
      return report.buffers[it->second].name;
    if (auto arg = dyn_cast<BlockArgument>(root))
      if (arg.getOwner()->getParentOp() == entry) {
        auto name = entry.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), arr::ArrDialect::kNameAttrName);
        return (name ? name.str()
                     : "arg" + std::to_string(arg.getArgNumber())) +
               " (caller's array)";
      }
    return "a buffer of its own";
  }

  void nameBuffers();
  void describePoints(Block &body);
  std::string describeOp(Operation &op);
  void explainInPlace();
  void findUnmappedInputs();

  func::FuncOp entry;
  SymbolTable symbols;
  PlanReport report;
  llvm::DenseMap<Operation *, int64_t> pointOfOp;
  llvm::DenseMap<Value, int> rowOfRoot;
};

void ReportBuilder::nameBuffers() {
  for (const PlannedBuffer &row : report.plan.buffers) {
    ReportBuffer buffer;
    buffer.id = row.name;
    buffer.name = row.name;
    if (row.kind == PlannedBuffer::Kind::Staging) {
      auto arg = cast<BlockArgument>(row.root);
      buffer.role = arr::isDonated(entry, arg.getArgNumber())
                        ? BufferRole::Donated
                        : BufferRole::Staging;
      report.buffers.push_back(std::move(buffer));
      continue;
    }
    buffer.role = row.inPlaceSource >= 0 || row.updatesInPlace > 0
                      ? BufferRole::InPlace
                      : BufferRole::Intermediate;
    // The op that first writes the buffer names it; else its first user,
    // else the allocation.
    Operation *writer = nullptr, *firstUser = nullptr;
    entry.walk([&](Operation *op) {
      if (writer || op == row.root.getDefiningOp() ||
          isa<memref::DeallocOp, ViewLikeOpInterface>(op))
        return;
      if (writes(op, row.root))
        writer = op;
      else if (!firstUser && llvm::any_of(op->getOperands(), [&](Value v) {
                 return rootOf(v) == row.root;
               }))
        firstUser = op;
    });
    auto dispatch = dyn_cast_or_null<sched::DispatchOp>(writer);
    if (dispatch && buffer.role == BufferRole::Intermediate &&
        dispatch->hasAttr(sched::SchedDialect::kOncePerCallAttrName))
      buffer.role = BufferRole::OncePerCall;
    Operation *namer = writer ? writer : firstUser;
    if (!namer)
      namer = row.root.getDefiningOp();
    std::string name;
    if (namer)
      findSource(namer->getLoc(), name, buffer.location);
    if (!name.empty())
      buffer.name = name;
    else if (!buffer.location.empty())
      buffer.name = buffer.location;
    report.buffers.push_back(std::move(buffer));
  }
  // Repeated names: the second and later get #2, #3, ...
  llvm::StringMap<int> seen;
  for (ReportBuffer &buffer : report.buffers) {
    int count = ++seen[buffer.name];
    if (count > 1)
      buffer.name += "#" + std::to_string(count);
  }
}

std::string ReportBuilder::describeOp(Operation &op) {
  if (isa<arith::ConstantOp>(op))
    return "a constant (no memory)";
  if (isa<sched::NumExamplesOp>(op))
    return "n, the number of examples in the chunk (no memory)";
  if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
    auto it = rowOfRoot.find(op.getResult(0));
    std::string name =
        it == rowOfRoot.end() ? "a buffer" : report.buffers[it->second].name;
    return "allocation of " + name +
           " (its arena slot; live from its first "
           "use, not from here)";
  }
  if (auto dispatch = dyn_cast<sched::DispatchOp>(op)) {
    std::vector<std::string> ins, outs;
    for (Value v : dispatch.getInputs())
      ins.push_back(operandName(v));
    for (auto [k, v] : llvm::enumerate(dispatch.getOutputs()))
      outs.push_back(operandName(v));
    std::string kernel = dispatch.getKernel().str();
    if (isCopy(dispatch) && ins.size() == 1 && outs.size() == 1)
      return "copy " + ins[0] + " into " + outs[0] + " (" + kernel + ")";
    std::string text = "dispatch " + kernel;
    std::string where, name;
    findSource(op.getLoc(), name, where);
    if (!where.empty())
      text += " (" + (name.empty() ? where : name + " at " + where) + ")";
    text += ": ";
    if (!ins.empty())
      text += "reads " + listText(ins) + ", ";
    text += "writes " + (outs.empty() ? "nothing" : listText(outs));
    if (dispatch->hasAttr(sched::SchedDialect::kOncePerCallAttrName))
      text += "; once per call (in the first chunk only: it reads nothing "
              "that differs between chunks, and what it writes is live over "
              "the whole schedule)";
    return text;
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::vector<std::string> inner;
    loop.getBody()->walk(
        [&](sched::DispatchOp d) { inner.push_back(d.getKernel().str()); });
    std::string trips;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (lb && ub && step && *step > 0)
      trips = std::to_string(
                  std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step)) +
              " iterations";
    else
      trips = "iterations";
    return "loop of " + trips + " over " +
           (inner.empty() ? std::string("no dispatch") : listText(inner)) +
           " (one point: a buffer used inside is live over the whole loop)";
  }
  if (op.hasTrait<OpTrait::IsTerminator>())
    return "end of the chunk: outputs in staging slots are copied out to the "
           "caller's arrays";
  return op.getName().getStringRef().str();
}

void ReportBuilder::describePoints(Block &body) {
  for (auto [index, op] : llvm::enumerate(body)) {
    std::string what = describeOp(op);
    int64_t point = static_cast<int64_t>(index);
    if (!report.points.empty() && report.points.back().what == what &&
        report.points.back().last + 1 == point) {
      report.points.back().last = point;
      continue;
    }
    report.points.push_back({point, point, std::move(what)});
  }
}

void ReportBuilder::explainInPlace() {
  const std::vector<PlannedBuffer> &rows = report.plan.buffers;
  auto opAt = [&](int64_t point) -> Operation * {
    for (auto &[op, p] : pointOfOp)
      if (p == point)
        return op;
    return nullptr;
  };
  for (auto [index, row] : llvm::enumerate(rows)) {
    if (row.inPlaceSource < 0)
      continue;
    const std::string &source = report.buffers[row.inPlaceSource].name;
    std::string by = "its op";
    if (auto dispatch =
            dyn_cast_or_null<sched::DispatchOp>(opAt(row.live.start)))
      by = "dispatch " + dispatch.getKernel().str();
    else if (Operation *op = opAt(row.live.start))
      by = op->getName().getStringRef().str();
    report.inPlaceWrites.push_back(llvm::formatv(
        "point {0}: {1} writes {2} over the bytes of {3}, which it reads for "
        "the last time there, element by element (each element is read "
        "before it is written)",
        row.live.start, by, report.buffers[index].name, source));
  }
  // Updates in place, as the planner counts them (BufferPlan.h, step 3): a
  // dispatch that reads an output binding's contents and writes them back,
  // unless the op before it copied the value in.
  entry.walk([&](sched::DispatchOp dispatch) {
    if (isCopy(dispatch))
      return;
    for (auto [k, output] : llvm::enumerate(dispatch.getOutputs())) {
      auto it = rowOfRoot.find(rootOf(output));
      if (it == rowOfRoot.end() || rows[it->second].updatesInPlace == 0 ||
          !sched::readsOutput(dispatch, k))
        continue;
      if (auto prev =
              dyn_cast_or_null<sched::DispatchOp>(dispatch->getPrevNode()))
        if (isCopy(prev) && llvm::any_of(prev.getOutputs(), [&](Value v) {
              return rootOf(v) == rootOf(output);
            }))
          continue;
      bool inLoop = dispatch->getParentOp() != entry.getOperation();
      report.inPlaceWrites.push_back(llvm::formatv(
          "point {0}: dispatch {1}{2} updates {3} in place: it reads the "
          "buffer and writes it back, with no copy",
          pointOf(dispatch), dispatch.getKernel(),
          inLoop ? " (in the loop, every iteration)" : "",
          report.buffers[it->second].name));
    }
  });
  for (BlockArgument arg : entry.getArguments()) {
    auto donor = entry.getArgAttrOfType<IntegerAttr>(
        arg.getArgNumber(), arr::ArrDialect::kDonatedFromAttrName);
    if (!donor || donor.getInt() < 0 ||
        donor.getInt() >= static_cast<int64_t>(entry.getNumArguments()))
      continue;
    auto outName = entry.getArgAttrOfType<StringAttr>(
        arg.getArgNumber(), arr::ArrDialect::kNameAttrName);
    report.inPlaceWrites.push_back(
        "donation: output " + (outName ? outName.str() : "?") +
        " is computed in the buffer of input " +
        operandName(entry.getArgument(donor.getInt())) +
        " (donate=), which it shares; no bytes of its own");
  }
}

void ReportBuilder::findUnmappedInputs() {
  auto inAxes =
      entry->getAttrOfType<ArrayAttr>(arr::ArrDialect::kInAxesAttrName);
  if (!inAxes)
    return;
  for (auto [index, axis] : llvm::enumerate(inAxes)) {
    if (!isa<UnitAttr>(axis) || index >= entry.getNumArguments())
      continue;
    BlockArgument arg = entry.getArgument(index);
    UnmappedInput input;
    auto name = entry.getArgAttrOfType<StringAttr>(
        index, arr::ArrDialect::kNameAttrName);
    input.name = name ? name.str() : "arg" + std::to_string(index);
    input.type = typeText(arg.getType());
    if (auto type = dyn_cast<MemRefType>(arg.getType()))
      input.bytes = static_cast<int64_t>(sched::bindingBytes(type).value_or(0));
    std::vector<Value> work{arg};
    while (!work.empty()) {
      Value v = work.back();
      work.pop_back();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<ViewLikeOpInterface>(user))
          if (view.getViewSource() == v) {
            for (Value r : user->getResults())
              work.push_back(r);
            continue;
          }
        int64_t point = pointOf(user);
        if (point >= 0 && !llvm::is_contained(input.readAt, point))
          input.readAt.push_back(point);
      }
    }
    llvm::sort(input.readAt);
    report.unmappedInputs.push_back(std::move(input));
  }
}

std::string intervalText(const LiveInterval &live) {
  return "[" + std::to_string(live.start) + ", " + std::to_string(live.end) +
         "]";
}

std::string pointsText(ArrayRef<int64_t> points) {
  std::vector<std::string> items;
  for (int64_t p : points)
    items.push_back(std::to_string(p));
  return items.empty()
             ? "no point"
             : (points.size() == 1 ? "point " : "points ") + listText(items);
}

} // namespace

PlanReport buildPlanReport(func::FuncOp entry, BufferPlan plan) {
  return ReportBuilder(entry, std::move(plan)).build();
}

void printPlanText(raw_ostream &os, const PlanReport &report) {
  const BufferPlan &plan = report.plan;
  os << "entry " << report.entry << ": " << plan.buffers.size()
     << " buffers over " << plan.scheduleLength
     << " schedule points, offsets aligned to " << plan.alignment << " bytes\n";
  size_t width = 10;
  for (const ReportBuffer &b : report.buffers)
    width = std::max(width, b.name.size());
  std::string row =
      "  {0,-" + std::to_string(width) + "} {1,12} {2,12} {3,12}  {4}\n";
  os << llvm::formatv(row.c_str(), "buffer", "bytes", "interval", "offset",
                      "memory");
  for (auto [b, r] : llvm::zip(plan.buffers, report.buffers)) {
    std::vector<std::string> notes;
    if (b.kind == PlannedBuffer::Kind::Staging)
      notes.push_back(r.role == BufferRole::Donated ? "staging slot, donated"
                                                    : "staging slot");
    else if (r.name != r.id)
      notes.push_back(r.id + (r.location.empty() || r.location == r.name
                                  ? ""
                                  : " at " + r.location));
    if (b.inPlaceSource >= 0)
      notes.push_back("written in place over " +
                      report.buffers[b.inPlaceSource].name);
    else if (b.reusedFrom >= 0)
      notes.push_back("reuses the bytes of " +
                      report.buffers[b.reusedFrom].name);
    if (r.role == BufferRole::OncePerCall)
      notes.push_back("written once per call");
    if (b.updatesInPlace > 0)
      notes.push_back(
          "updated in place" +
          (b.updatesInPlace > 1
               ? " by " + std::to_string(b.updatesInPlace) + " dispatches"
               : std::string()));
    std::string memory;
    for (const std::string &note : notes)
      memory += (memory.empty() ? "" : "; ") + note;
    os << llvm::formatv(row.c_str(), r.name, b.bytes, intervalText(b.live),
                        b.offset, memory);
  }
  double ratio = plan.lowerBound
                     ? static_cast<double>(plan.arenaBytes) / plan.lowerBound
                     : 1.0;
  os << llvm::formatv(
      "  arena {0} bytes, lower bound {1} bytes ({2:F3}x), naive sum {3} "
      "bytes, {4} in-place write(s)\n",
      plan.arenaBytes, plan.lowerBound, ratio, plan.naiveSum, plan.inPlace);
  if (plan.donatedBytes > 0)
    os << llvm::formatv("  donated {0} bytes: outputs computed in their "
                        "donated inputs' buffers\n",
                        plan.donatedBytes);
  os << llvm::formatv("  aligned lower bound {0} bytes at {1}-byte alignment; "
                      "{2}\n",
                      plan.alignedLowerBound, plan.alignment,
                      plan.reuse ? std::string("placed by ") +
                                       placementOrderName(plan.order)
                                 : std::string("planning off (no reuse)"));
  for (const std::string &line : report.inPlaceWrites)
    os << "  in place, " << line << "\n";
  os << "  schedule points (the batched program's top-level ops in order; a "
        "buffer is live from the first point that uses it to the last, both "
        "included):\n";
  for (const SchedulePoint &p : report.points)
    os << llvm::formatv("  {0,7}  {1}\n",
                        p.first == p.last ? std::to_string(p.first)
                                          : std::to_string(p.first) + "-" +
                                                std::to_string(p.last),
                        p.what);
  if (report.unmappedInputs.empty())
    return;
  os << "  unmapped inputs, read in place from the caller's arrays (never "
        "copied, outside the arena):\n";
  for (const UnmappedInput &input : report.unmappedInputs)
    os << llvm::formatv("    {0} {1}, {2} bytes, read at {3}\n", input.name,
                        input.type, input.bytes, pointsText(input.readAt));
}

llvm::json::Object planToJson(const PlanReport &report) {
  const BufferPlan &plan = report.plan;
  llvm::json::Array rows;
  for (auto [b, r] : llvm::zip(plan.buffers, report.buffers)) {
    auto nameOf = [&](int row) {
      return row >= 0 ? llvm::json::Value(plan.buffers[row].name)
                      : llvm::json::Value(nullptr);
    };
    rows.push_back(llvm::json::Object{
        {"name", b.name},
        {"source", r.name},
        {"source_location", r.location.empty() ? llvm::json::Value(nullptr)
                                               : llvm::json::Value(r.location)},
        {"role", bufferRoleName(r.role)},
        {"kind", b.kind == PlannedBuffer::Kind::Staging ? "staging" : "alloc"},
        {"description", b.description},
        {"bytes", b.bytes},
        {"start", b.live.start},
        {"end", b.live.end},
        {"offset", b.offset},
        {"in_place_of", nameOf(b.inPlaceSource)},
        {"reused_from", nameOf(b.reusedFrom)},
        {"updates_in_place", b.updatesInPlace}});
  }
  llvm::json::Array points;
  for (const SchedulePoint &p : report.points)
    points.push_back(llvm::json::Object{
        {"first", p.first}, {"last", p.last}, {"what", p.what}});
  llvm::json::Array unmapped;
  for (const UnmappedInput &input : report.unmappedInputs)
    unmapped.push_back(
        llvm::json::Object{{"name", input.name},
                           {"type", input.type},
                           {"bytes", input.bytes},
                           {"read_at", llvm::json::Array(input.readAt)}});
  llvm::json::Array inPlace;
  for (const std::string &line : report.inPlaceWrites)
    inPlace.push_back(line);
  return llvm::json::Object{
      {"entry", report.entry},
      {"donated_bytes", plan.donatedBytes},
      {"arena_bytes", plan.arenaBytes},
      {"lower_bound", plan.lowerBound},
      {"aligned_lower_bound", plan.alignedLowerBound},
      {"placement", plan.reuse ? placementOrderName(plan.order) : "none"},
      {"naive_sum", plan.naiveSum},
      {"in_place", plan.inPlace},
      {"alignment", plan.alignment},
      {"schedule_length", plan.scheduleLength},
      {"points", std::move(points)},
      {"writes_in_place", std::move(inPlace)},
      {"unmapped_inputs", std::move(unmapped)},
      {"buffers", std::move(rows)}};
}

} // namespace vmapc
