//===- BufferPlan.cpp - static arena planning of a bufferized function ----===//
//
// See BufferPlan.h for the algorithm and its sources.
//
//===----------------------------------------------------------------------===//

#include "passes/BufferPlan.h"
#include "dialect/ArrDialect.h"

#include "dialect/Limits.h"
#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mlir;

namespace vmapc {

//===----------------------------------------------------------------------===//
// Offset assignment
//===----------------------------------------------------------------------===//

/// `value` rounded up to a multiple of `alignment`, or nullopt if that
/// reaches kMaxBytes.
static std::optional<int64_t> alignUp(int64_t value, int64_t alignment) {
  std::optional<int64_t> padded = llvm::checkedAdd(value, alignment - 1);
  if (!padded || *padded >= kMaxBytes)
    return std::nullopt;
  return *padded / alignment * alignment;
}

/// `a + b` if below kMaxBytes.
static std::optional<int64_t> addBytes(int64_t a, int64_t b) {
  std::optional<int64_t> sum = llvm::checkedAdd(a, b);
  if (!sum || *sum >= kMaxBytes)
    return std::nullopt;
  return sum;
}

const char *placementOrderName(PlacementOrder order) {
  switch (order) {
  case PlacementOrder::BySize:
    return "size";
  case PlacementOrder::ByStart:
    return "start";
  case PlacementOrder::ByConflicts:
    return "conflicts";
  case PlacementOrder::ByPadding:
    return "padding";
  }
  return "unknown";
}

bool isValidArenaAlignment(int64_t alignment, std::string *why) {
  if (alignment >= 1 && alignment <= kMaxArenaAlignmentBytes &&
      llvm::isPowerOf2_64(static_cast<uint64_t>(alignment)))
    return true;
  if (why)
    *why = "arena alignment must be a power of two from 1 to " +
           std::to_string(kMaxArenaAlignmentBytes) + " bytes, got " +
           std::to_string(alignment);
  return false;
}

/// Whether every request is a valid size and `alignment` a valid one for
/// the arithmetic below.
static bool validRequests(ArrayRef<BufferRequest> requests, int64_t alignment) {
  if (alignment <= 0 || alignment >= kMaxBytes)
    return false;
  return llvm::all_of(requests, [](const BufferRequest &req) {
    return req.bytes >= 0 && req.bytes < kMaxBytes;
  });
}

/// The indices of `requests` in the order `order` places them.
static std::vector<size_t> placementOrder(ArrayRef<BufferRequest> requests,
                                          int64_t alignment,
                                          PlacementOrder order) {
  std::vector<int64_t> conflicts(requests.size(), 0);
  if (order == PlacementOrder::ByConflicts)
    for (size_t i = 0; i < requests.size(); ++i)
      for (size_t j = i + 1; j < requests.size(); ++j)
        if (requests[i].live.overlaps(requests[j].live)) {
          ++conflicts[i];
          ++conflicts[j];
        }
  std::vector<size_t> indices(requests.size());
  std::iota(indices.begin(), indices.end(), 0);
  // Each order's key, then larger first, then earlier start (stable: then
  // by index).
  std::stable_sort(indices.begin(), indices.end(), [&](size_t a, size_t b) {
    const BufferRequest &x = requests[a], &y = requests[b];
    if (order == PlacementOrder::ByStart && x.live.start != y.live.start)
      return x.live.start < y.live.start;
    if (order == PlacementOrder::ByConflicts && conflicts[a] != conflicts[b])
      return conflicts[a] > conflicts[b];
    auto padding = [&](int64_t bytes) {
      return (alignment - bytes % alignment) % alignment;
    };
    if (order == PlacementOrder::ByPadding &&
        padding(x.bytes) != padding(y.bytes))
      return padding(x.bytes) < padding(y.bytes);
    if (x.bytes != y.bytes)
      return x.bytes > y.bytes;
    return x.live.start < y.live.start;
  });
  return indices;
}

std::optional<OffsetAssignment>
assignOffsetsInOrder(ArrayRef<BufferRequest> requests, int64_t alignment,
                     PlacementOrder order) {
  if (!validRequests(requests, alignment))
    return std::nullopt;
  OffsetAssignment result;
  result.order = order;
  result.offsets.assign(requests.size(), 0);

  // Every placed offset + size is below kMaxBytes, so differences of them
  // cannot overflow; each new end is checked.
  std::vector<size_t> placed;
  for (size_t idx : placementOrder(requests, alignment, order)) {
    const BufferRequest &req = requests[idx];
    // Placed requests whose lifetime overlaps this one, by offset.
    std::vector<size_t> conflicts;
    for (size_t other : placed)
      if (requests[other].live.overlaps(req.live))
        conflicts.push_back(other);
    llvm::sort(conflicts, [&](size_t a, size_t b) {
      return result.offsets[a] < result.offsets[b];
    });

    // The tightest gap that fits, from offset 0 up.
    int64_t bestOffset = -1;
    int64_t bestGap = std::numeric_limits<int64_t>::max();
    int64_t prevEnd = 0;
    for (size_t other : conflicts) {
      std::optional<int64_t> candidate = alignUp(prevEnd, alignment);
      if (!candidate)
        return std::nullopt;
      int64_t gap = result.offsets[other] - *candidate;
      if (gap >= req.bytes && gap < bestGap) {
        bestGap = gap;
        bestOffset = *candidate;
      }
      prevEnd =
          std::max(prevEnd, result.offsets[other] + requests[other].bytes);
    }
    if (bestOffset < 0) {
      std::optional<int64_t> above = alignUp(prevEnd, alignment);
      if (!above)
        return std::nullopt;
      bestOffset = *above;
    }
    std::optional<int64_t> end = addBytes(bestOffset, req.bytes);
    if (!end)
      return std::nullopt;
    result.offsets[idx] = bestOffset;
    result.arenaBytes = std::max(result.arenaBytes, *end);
    placed.push_back(idx);
  }
  return result;
}

std::optional<OffsetAssignment> assignOffsets(ArrayRef<BufferRequest> requests,
                                              int64_t alignment) {
  std::optional<OffsetAssignment> best;
  for (PlacementOrder order : kPlacementOrders) {
    std::optional<OffsetAssignment> next =
        assignOffsetsInOrder(requests, alignment, order);
    // An order fails only past the size limit; another may still fit.
    if (next && (!best || next->arenaBytes < best->arenaBytes))
      best = std::move(next);
  }
  return best;
}

std::optional<OffsetAssignment>
assignOffsetsGreedyBySize(ArrayRef<BufferRequest> requests, int64_t alignment) {
  return assignOffsetsInOrder(requests, alignment, PlacementOrder::BySize);
}

std::optional<OffsetAssignment>
assignOffsetsWithoutReuse(ArrayRef<BufferRequest> requests, int64_t alignment) {
  if (!validRequests(requests, alignment))
    return std::nullopt;
  OffsetAssignment result;
  result.offsets.assign(requests.size(), 0);
  int64_t next = 0;
  for (auto [index, req] : llvm::enumerate(requests)) {
    std::optional<int64_t> offset = alignUp(next, alignment);
    std::optional<int64_t> end =
        offset ? addBytes(*offset, req.bytes) : std::nullopt;
    if (!end)
      return std::nullopt;
    result.offsets[index] = *offset;
    result.arenaBytes = std::max(result.arenaBytes, *end);
    next = *end;
  }
  return result;
}

/// The largest, over schedule points, of `sum(weight(r)) - max(slack(r))`
/// for the requests `r` live there; nullopt on a negative size or a sum
/// that reaches kMaxBytes.
template <typename Weight, typename Slack>
static std::optional<int64_t> largestLiveSum(ArrayRef<BufferRequest> requests,
                                             Weight weight, Slack slack) {
  // The live set only grows at interval starts: sweep over them.
  int64_t best = 0;
  for (const BufferRequest &probe : requests) {
    int64_t sum = 0;
    int64_t mostSlack = 0;
    for (const BufferRequest &req : requests) {
      if (req.bytes < 0)
        return std::nullopt;
      if (!req.live.contains(probe.live.start))
        continue;
      std::optional<int64_t> w = weight(req.bytes);
      std::optional<int64_t> next = w ? addBytes(sum, *w) : std::nullopt;
      if (!next)
        return std::nullopt;
      sum = *next;
      mostSlack = std::max(mostSlack, slack(req.bytes));
    }
    best = std::max(best, sum - mostSlack);
  }
  return best;
}

std::optional<int64_t> computeLowerBound(ArrayRef<BufferRequest> requests) {
  return largestLiveSum(
      requests, [](int64_t bytes) { return std::optional<int64_t>(bytes); },
      [](int64_t) { return int64_t(0); });
}

std::optional<int64_t>
computeAlignedLowerBound(ArrayRef<BufferRequest> requests, int64_t alignment) {
  if (alignment <= 0 || alignment >= kMaxBytes)
    return std::nullopt;
  // Rounding a size below kMaxBytes up may reach it: then so does the sum.
  return largestLiveSum(
      requests, [&](int64_t bytes) { return alignUp(bytes, alignment); },
      [&](int64_t bytes) {
        return alignUp(bytes, alignment).value_or(bytes) - bytes;
      });
}

//===----------------------------------------------------------------------===//
// Analysis of a function
//===----------------------------------------------------------------------===//

namespace {

/// Whether a dispatch marked `sched.once_per_call` writes `buffer` (an
/// allocation, which such a dispatch binds whole).
bool writtenOncePerCall(Value buffer) {
  return llvm::any_of(buffer.getUses(), [](OpOperand &use) {
    auto dispatch = dyn_cast<sched::DispatchOp>(use.getOwner());
    return dispatch &&
           dispatch->hasAttr(sched::SchedDialect::kOncePerCallAttrName) &&
           dispatch.isDpsInit(&use);
  });
}

/// Bytes of a statically shaped memref within the size limits (every
/// dimension at most 2^31 - 1, fewer than 2^62 bytes), or nullopt.
std::optional<int64_t> staticBytes(MemRefType type, const DataLayout &layout) {
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  int64_t elemBytes = static_cast<int64_t>(
      layout.getTypeSize(type.getElementType()).getFixedValue());
  std::optional<int64_t> elements =
      checkedNumElements(type.getShape(), elemBytes);
  if (!elements)
    return std::nullopt;
  return *elements * elemBytes;
}

/// Why `type` has no plannable size, for messages.
std::string whyNoSize(MemRefType type) {
  if (!type || !type.hasStaticShape())
    return "has a dynamic shape; the arena planner needs static shapes";
  return "is past the size limits: " + describeLimitViolation(type) +
         " (every dimension is at most 2147483647 and every buffer holds "
         "fewer than 2^62 bytes)";
}

/// Follows views back to the value they were made from.
Value traceToRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewDest() != value)
      break;
    value = view.getViewSource();
  }
  return value;
}

/// True if `use` only forms a view (no memory access) or frees the buffer.
bool isNonAccess(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto view = dyn_cast<ViewLikeOpInterface>(user))
    if (view.getViewSource() == use.get() && isMemoryEffectFree(user))
      return true;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(user)) {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffectsOnValue(use.get(), instances);
    if (!instances.empty() && llvm::all_of(instances, [](auto &e) {
          return isa<MemoryEffects::Free>(e.getEffect());
        }))
      return true;
  }
  return false;
}

std::string describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " at " << op->getLoc();
  return text;
}

class Planner {
public:
  Planner(func::FuncOp func, const BufferPlanOptions &options)
      : func(func), options(options), layout(DataLayout::closest(func)),
        aliases(func) {}

  FailureOr<BufferPlan> run();

private:
  int64_t pointOf(Operation *op) const {
    Operation *top = body().findAncestorOpInBlock(*op);
    assert(top && "op outside the function body");
    return schedule.lookup(top);
  }
  Block &body() const { return *bodyBlock; }

  /// Accesses of every alias of `root`: min and max schedule points.
  LogicalResult collectAccesses(Value root, std::optional<LiveInterval> &range,
                                Operation *&firstAccess);
  /// Raises the plan's alignment to the element size of `type` (a power of
  /// two up to kMaxArenaAlignmentBytes), so that no element straddles its
  /// natural alignment whatever the option says.
  void raiseToElementSize(BufferPlan &plan, MemRefType type) const {
    auto bytes = static_cast<int64_t>(
        layout.getTypeSize(type.getElementType()).getFixedValue());
    if (bytes > 0 && bytes <= kMaxArenaAlignmentBytes &&
        llvm::isPowerOf2_64(static_cast<uint64_t>(bytes)))
      plan.alignment = std::lcm(plan.alignment, bytes);
  }
  void planInPlace(BufferPlan &plan);
  void countUpdatesInPlace(BufferPlan &plan);

  func::FuncOp func;
  Block *bodyBlock = nullptr;
  BufferPlanOptions options;
  DataLayout layout;
  BufferViewFlowAnalysis aliases;
  llvm::DenseMap<Operation *, int64_t> schedule;
  llvm::DenseMap<Value, int> rowOfRoot;
  /// In-place groups as a union-find over row indices; the interval and
  /// size of each group are kept at its leader.
  std::vector<int> parent;
  std::vector<LiveInterval> groupLive;
  std::vector<int> groupSize;
  int leaderOf(int row) {
    while (parent[row] != row)
      row = parent[row] = parent[parent[row]];
    return row;
  }
};

LogicalResult Planner::collectAccesses(Value root,
                                       std::optional<LiveInterval> &range,
                                       Operation *&firstAccess) {
  for (Value alias : aliases.resolve(root)) {
    for (OpOperand &use : alias.getUses()) {
      if (isNonAccess(use))
        continue;
      Operation *user = use.getOwner();
      if (user->hasTrait<OpTrait::IsTerminator>()) {
        if (user->getBlock() == &body())
          return user->emitOpError()
                 << "returns a buffer that the planner would place in the "
                    "arena; write results into `arr.output` arguments instead";
        // A buffer allocated inside a region and yielded out of it would
        // share its one slot with the next iteration's allocation.
        Operation *def = root.getDefiningOp();
        if (def && def->getBlock() != &body())
          return user->emitOpError()
                 << "yields a buffer allocated inside its region, which one "
                    "static arena slot cannot hold across iterations";
      }
      int64_t point = pointOf(user);
      if (!range) {
        range = LiveInterval{point, point};
        firstAccess = user;
        continue;
      }
      if (point < range->start) {
        range->start = point;
        firstAccess = user;
      }
      range->end = std::max(range->end, point);
    }
  }
  return success();
}

/// The identity-layout, whole-buffer condition of the in-place rule.
static bool coversWholeRoot(Value operand, int64_t rootBytes,
                            const DataLayout &layout) {
  auto type = dyn_cast<MemRefType>(operand.getType());
  if (!type || !type.getLayout().isIdentity())
    return false;
  std::optional<int64_t> bytes = staticBytes(type, layout);
  return bytes && *bytes == rootBytes;
}

void Planner::planInPlace(BufferPlan &plan) {
  auto leaderLive = [&](int row) -> LiveInterval & {
    return groupLive[leaderOf(row)];
  };
  auto rowOf = [&](Value operand) -> int {
    auto it = rowOfRoot.find(traceToRoot(operand));
    if (it == rowOfRoot.end())
      return -1;
    return it->second;
  };

  for (Operation &op : body()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        !linalgOp.isAllParallelLoops())
      continue;
    // A payload that loads or stores could read anywhere.
    if (!llvm::all_of(
            linalgOp.getBlock()->without_terminator(),
            [](Operation &inner) { return isMemoryEffectFree(&inner); }))
      continue;
    int64_t point = schedule.lookup(&op);

    SmallVector<int> takenInputs;
    for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
      int outRow = rowOf(init.get());
      if (outRow < 0 || plan.buffers[outRow].kind != PlannedBuffer::Kind::Alloc)
        continue;
      PlannedBuffer &out = plan.buffers[outRow];
      if (leaderLive(outRow).start != point ||
          groupSize[leaderOf(outRow)] != 1 ||
          !linalgOp.getMatchingIndexingMap(&init).isIdentity() ||
          linalgOp.payloadUsesValueFromOperand(&init) ||
          !coversWholeRoot(init.get(), out.bytes, layout))
        continue;

      for (OpOperand *input : linalgOp.getDpsInputOperands()) {
        int inRow = rowOf(input->get());
        if (inRow < 0 || inRow == outRow ||
            llvm::is_contained(takenInputs, inRow) ||
            plan.buffers[inRow].kind != PlannedBuffer::Kind::Alloc)
          continue;
        PlannedBuffer &in = plan.buffers[inRow];
        auto inType = cast<MemRefType>(input->get().getType());
        auto outType = cast<MemRefType>(init.get().getType());
        if (in.bytes != out.bytes || leaderLive(inRow).end != point ||
            !linalgOp.getMatchingIndexingMap(input).isIdentity() ||
            !coversWholeRoot(input->get(), in.bytes, layout) ||
            layout.getTypeSize(inType.getElementType()) !=
                layout.getTypeSize(outType.getElementType()))
          continue;
        // No other operand may read the input's buffer out of step, write
        // it, or touch the output's buffer.
        bool clash = false;
        for (OpOperand &other : op.getOpOperands()) {
          if (&other == input || &other == &init ||
              !isa<MemRefType>(other.get().getType()))
            continue;
          int otherRow = rowOf(other.get());
          if (otherRow < 0)
            continue;
          bool isInit = linalgOp.isDpsInit(&other);
          if (otherRow == outRow ||
              (leaderOf(otherRow) == leaderOf(inRow) &&
               (isInit ||
                !linalgOp.getMatchingIndexingMap(&other).isIdentity() ||
                !coversWholeRoot(other.get(), in.bytes, layout)))) {
            clash = true;
            break;
          }
        }
        if (clash)
          continue;

        int inLeader = leaderOf(inRow);
        int outLeader = leaderOf(outRow);
        groupLive[inLeader].end =
            std::max(groupLive[inLeader].end, groupLive[outLeader].end);
        groupSize[inLeader] += groupSize[outLeader];
        parent[outLeader] = inLeader;
        out.inPlaceSource = inRow;
        takenInputs.push_back(inRow);
        ++plan.inPlace;
        break;
      }
    }
  }
}

void Planner::countUpdatesInPlace(BufferPlan &plan) {
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return;
  SymbolTable symbols(module);
  auto rowOf = [&](Value operand) -> int {
    auto it = rowOfRoot.find(traceToRoot(operand));
    return it == rowOfRoot.end() ? -1 : it->second;
  };
  // Whether `op` copies into the buffer of `row`: a copy bufferization made
  // because the updated value is read later (the update then writes the
  // copy, not the value's own bytes).
  auto copiesInto = [&](Operation *op, int row) {
    if (auto copy = dyn_cast_or_null<memref::CopyOp>(op))
      return rowOf(copy.getTarget()) == row;
    auto dispatch = dyn_cast_or_null<vmapc::sched::DispatchOp>(op);
    if (!dispatch || !vmapc::sched::isCopyKernel(
                         symbols.lookup<func::FuncOp>(dispatch.getKernel())))
      return false;
    return llvm::any_of(dispatch.getOutputs(),
                        [&](Value out) { return rowOf(out) == row; });
  };
  func.walk([&](vmapc::sched::DispatchOp dispatch) {
    // A copy reads its source, never its target.
    if (vmapc::sched::isCopyKernel(
            symbols.lookup<func::FuncOp>(dispatch.getKernel())))
      return;
    for (auto [k, output] : llvm::enumerate(dispatch.getOutputs())) {
      int row = rowOf(output);
      if (row < 0 || !vmapc::sched::readsOutput(dispatch, k) ||
          copiesInto(dispatch->getPrevNode(), row))
        continue;
      ++plan.buffers[row].updatesInPlace;
      ++plan.inPlace;
    }
  });
}

FailureOr<BufferPlan> Planner::run() {
  BufferPlan plan;
  plan.alignment = options.alignment;
  plan.reuse = options.reuse;
  if (std::string why; !isValidArenaAlignment(options.alignment, &why))
    return func.emitError() << why;
  if (func.isExternal())
    return plan;
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "buffer planning needs a function body of one block";
  bodyBlock = &func.getBody().front();

  for (auto [index, op] : llvm::enumerate(body()))
    schedule[&op] = static_cast<int64_t>(index);
  plan.scheduleLength = static_cast<int64_t>(schedule.size());
  int64_t endPoint = plan.scheduleLength - 1;

  // Staging arguments.
  for (BlockArgument arg : func.getArguments()) {
    if (!func.getArgAttr(arg.getArgNumber(),
                         vmapc::arr::ArrDialect::kStagingAttrName))
      continue;
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      return func.emitError() << "staging argument #" << arg.getArgNumber()
                              << " is not a memref: " << arg.getType();
    std::optional<int64_t> bytes = staticBytes(type, layout);
    if (!bytes)
      return func.emitError() << "staging argument #" << arg.getArgNumber()
                              << " of type " << type << " " << whyNoSize(type);
    raiseToElementSize(plan, type);
    PlannedBuffer row;
    row.kind = PlannedBuffer::Kind::Staging;
    if (auto name = func.getArgAttrOfType<StringAttr>(
            arg.getArgNumber(), vmapc::arr::ArrDialect::kNameAttrName))
      row.name = name.str();
    else
      row.name = "arg" + std::to_string(arg.getArgNumber());
    row.root = arg;
    row.bytes = *bytes;
    bool isOutput =
        func.getArgAttr(arg.getArgNumber(),
                        vmapc::arr::ArrDialect::kOutputAttrName) != nullptr;
    std::optional<LiveInterval> range;
    Operation *first = nullptr;
    if (failed(collectAccesses(arg, range, first)))
      return failure();
    // An input is staged before the call; an output is copied out after it
    // (a donated input's slot holds its output until then).
    if (isOutput)
      row.live = {range ? range->start : endPoint, endPoint};
    else if (vmapc::arr::isDonated(func, arg.getArgNumber()))
      row.live = {0, endPoint};
    else
      row.live = {0, range ? range->end : 0};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "staging slot of " << (isOutput ? "output " : "input ") << type;
    row.description = text;
    rowOfRoot[arg] = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back(std::move(row));
  }

  // Allocations.
  int allocCount = 0;
  WalkResult walk =
      func.walk([&](Operation *op) -> WalkResult {
        if (!isa<memref::AllocOp, memref::AllocaOp>(op)) {
          if (!hasEffect<MemoryEffects::Allocate>(op))
            return WalkResult::advance();
          op->emitOpError()
              << "allocates memory that the buffer planner cannot "
                 "place; only memref.alloc and memref.alloca are planned";
          return WalkResult::interrupt();
        }
        Value result = op->getResult(0);
        auto type = cast<MemRefType>(result.getType());
        std::optional<int64_t> bytes = staticBytes(type, layout);
        if (op->getNumOperands() != 0 || !type.hasStaticShape()) {
          op->emitOpError() << "has a dynamic shape; the arena planner needs "
                               "static shapes";
          return WalkResult::interrupt();
        }
        if (!bytes) {
          op->emitOpError() << "of type " << type << " " << whyNoSize(type);
          return WalkResult::interrupt();
        }
        if (!type.getLayout().isIdentity()) {
          op->emitOpError()
              << "has a non-identity layout, which a view into the "
                 "arena cannot have";
          return WalkResult::interrupt();
        }
        raiseToElementSize(plan, type);
        // An allocation that asks for more alignment raises the arena's.
        if (auto align = op->getAttrOfType<IntegerAttr>("alignment")) {
          if (align.getInt() > 0 && align.getInt() <= kMaxArenaAlignmentBytes)
            plan.alignment = std::lcm(plan.alignment, align.getInt());
          if (align.getInt() > kMaxArenaAlignmentBytes ||
              plan.alignment > kMaxArenaAlignmentBytes) {
            op->emitOpError() << "asks for an alignment of " << align.getInt()
                              << " bytes; the arena is aligned to at most "
                              << kMaxArenaAlignmentBytes << " bytes";
            return WalkResult::interrupt();
          }
        }
        PlannedBuffer row;
        row.kind = PlannedBuffer::Kind::Alloc;
        row.name = "alloc" + std::to_string(allocCount++);
        row.root = result;
        row.bytes = *bytes;
        std::optional<LiveInterval> range;
        Operation *first = nullptr;
        if (failed(collectAccesses(result, range, first)))
          return WalkResult::interrupt();
        int64_t allocPoint = pointOf(op);
        row.live = range.value_or(LiveInterval{allocPoint, allocPoint});
        // A dispatch run once per call writes it in the first chunk; every
        // later chunk reads it again, from the start of the schedule.
        if (writtenOncePerCall(result))
          row.live = {0, endPoint};
        std::string text;
        llvm::raw_string_ostream os(text);
        os << type << ", first used by " << describeOp(first ? first : op);
        row.description = text;
        rowOfRoot[result] = static_cast<int>(plan.buffers.size());
        plan.buffers.push_back(std::move(row));
        return WalkResult::advance();
      });
  if (walk.wasInterrupted())
    return failure();

  for (auto [index, row] : llvm::enumerate(plan.buffers)) {
    parent.push_back(static_cast<int>(index));
    groupLive.push_back(row.live);
    groupSize.push_back(1);
  }
  if (options.reuse)
    planInPlace(plan);
  countUpdatesInPlace(plan);
  // Donated outputs take their inputs' bytes (no buffer of their own).
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(),
                        vmapc::arr::ArrDialect::kDonatedFromAttrName))
      if (auto type = dyn_cast<MemRefType>(arg.getType()))
        if (std::optional<int64_t> bytes = staticBytes(type, layout))
          plan.donatedBytes += *bytes;

  // One request per slot (in-place group or staging argument).
  std::vector<BufferRequest> requests;
  llvm::DenseMap<int, int> slotOfLeader;
  bool naiveSumFits = true;
  for (auto [index, row] : llvm::enumerate(plan.buffers)) {
    int leader = leaderOf(static_cast<int>(index));
    auto [it, inserted] =
        slotOfLeader.try_emplace(leader, static_cast<int>(requests.size()));
    if (inserted)
      requests.push_back({row.bytes, groupLive[leader]});
    else
      requests[it->second].bytes =
          std::max(requests[it->second].bytes, row.bytes);
    row.slot = it->second;
    std::optional<int64_t> sum = addBytes(plan.naiveSum, row.bytes);
    naiveSumFits &= sum.has_value();
    plan.naiveSum = sum.value_or(plan.naiveSum);
  }
  std::optional<OffsetAssignment> assignment =
      options.reuse ? assignOffsets(requests, plan.alignment)
                    : assignOffsetsWithoutReuse(requests, plan.alignment);
  std::optional<int64_t> lowerBound = computeLowerBound(requests);
  std::optional<int64_t> alignedLowerBound =
      computeAlignedLowerBound(requests, plan.alignment);
  if (!assignment || !lowerBound || !alignedLowerBound || !naiveSumFits) {
    InFlightDiagnostic diag =
        func.emitError() << "the buffers of this function need an arena of "
                            "2^62 bytes or more (the size limit of one arena)";
    auto largest = llvm::max_element(
        plan.buffers, [](const PlannedBuffer &a, const PlannedBuffer &b) {
          return a.bytes < b.bytes;
        });
    if (largest != plan.buffers.end())
      diag << "; the largest buffer is " << largest->description;
    return diag;
  }
  for (PlannedBuffer &row : plan.buffers)
    row.offset = assignment->offsets[row.slot];
  plan.arenaBytes = assignment->arenaBytes;
  plan.lowerBound = *lowerBound;
  plan.alignedLowerBound = *alignedLowerBound;
  plan.order = assignment->order;
  plan.numSlots = static_cast<int64_t>(requests.size());

  // Report reuse: the first row of each slot names the last earlier slot
  // whose bytes it overwrites.
  std::vector<int> firstRowOfSlot(requests.size(), -1);
  for (auto [index, row] : llvm::enumerate(plan.buffers))
    if (firstRowOfSlot[row.slot] < 0)
      firstRowOfSlot[row.slot] = static_cast<int>(index);
  for (PlannedBuffer &row : plan.buffers) {
    if (row.inPlaceSource >= 0)
      continue;
    const BufferRequest &mine = requests[row.slot];
    int64_t bestEnd = -1;
    for (auto [slot, other] : llvm::enumerate(requests)) {
      int64_t otherOffset = assignment->offsets[slot];
      if (static_cast<int>(slot) == row.slot ||
          other.live.end >= mine.live.start ||
          otherOffset >= row.offset + mine.bytes ||
          row.offset >= otherOffset + other.bytes || other.live.end <= bestEnd)
        continue;
      bestEnd = other.live.end;
      row.reusedFrom = firstRowOfSlot[slot];
    }
  }
  return plan;
}

} // namespace

FailureOr<BufferPlan> computeBufferPlan(func::FuncOp func,
                                        const BufferPlanOptions &options) {
  return Planner(func, options).run();
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

static bool isMallocLike(Operation *op) {
  auto call = dyn_cast<CallOpInterface>(op);
  if (!call)
    return false;
  auto callee = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!callee)
    return false;
  StringRef name = callee.getLeafReference().getValue();
  return llvm::is_contained({"malloc", "calloc", "realloc", "aligned_alloc",
                             "posix_memalign", "cudaMalloc", "cuMemAlloc"},
                            name);
}

LogicalResult applyBufferPlan(func::FuncOp func, const BufferPlan &plan) {
  if (func.isExternal())
    return success();
  MLIRContext *ctx = func.getContext();
  Block &body = func.getBody().front();
  auto i64 = IntegerType::get(ctx, 64);

  auto arenaType = MemRefType::get({plan.arenaBytes}, IntegerType::get(ctx, 8));
  NamedAttrList arenaAttrs;
  arenaAttrs.append(vmapc::arr::ArrDialect::kArenaAttrName, UnitAttr::get(ctx));
  unsigned arenaIndex = func.getNumArguments();
  if (failed(func.insertArgument(arenaIndex, arenaType,
                                 arenaAttrs.getDictionary(ctx), func.getLoc())))
    return func.emitError() << "cannot add the arena argument";
  Value arena = func.getArgument(arenaIndex);

  // One index constant per distinct offset, in ascending order, at the top
  // of the body.
  OpBuilder builder(ctx);
  builder.setInsertionPointToStart(&body);
  std::map<int64_t, Value> offsetValues;
  for (const PlannedBuffer &row : plan.buffers)
    if (row.kind == PlannedBuffer::Kind::Alloc)
      offsetValues[row.offset] = nullptr;
  for (auto &[offset, value] : offsetValues)
    value = arith::ConstantIndexOp::create(builder, func.getLoc(), offset);

  for (const PlannedBuffer &row : plan.buffers) {
    if (row.kind == PlannedBuffer::Kind::Staging) {
      auto arg = cast<BlockArgument>(row.root);
      func.setArgAttr(arg.getArgNumber(),
                      vmapc::arr::ArrDialect::kStagingOffsetAttrName,
                      IntegerAttr::get(i64, row.offset));
      continue;
    }
    Operation *alloc = row.root.getDefiningOp();
    Value offset = offsetValues.at(row.offset);
    builder.setInsertionPoint(alloc);
    auto view =
        memref::ViewOp::create(builder, alloc->getLoc(), row.root.getType(),
                               arena, offset, ValueRange{});
    Value root = row.root;
    root.replaceAllUsesWith(view.getResult());
    alloc->erase();
  }

  // Deallocs of planned buffers: anything freed that traces to the arena.
  SmallVector<Operation *> deallocs;
  func.walk([&](memref::DeallocOp dealloc) {
    if (traceToRoot(dealloc.getMemref()) == arena)
      deallocs.push_back(dealloc);
  });
  for (Operation *op : deallocs)
    op->erase();

  func->setAttr(vmapc::arr::ArrDialect::kPlanAttrName,
                vmapc::arr::BufferPlanAttr::get(
                    ctx, plan.arenaBytes, plan.lowerBound,
                    plan.alignedLowerBound, plan.naiveSum, plan.inPlace,
                    static_cast<int64_t>(plan.buffers.size()), plan.alignment));

  // Nothing may allocate any more.
  WalkResult leftover = func.walk([&](Operation *op) -> WalkResult {
    if (hasEffect<MemoryEffects::Allocate>(op) || isMallocLike(op)) {
      op->emitOpError() << "still allocates memory after buffer planning";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(leftover.wasInterrupted());
}

} // namespace vmapc
