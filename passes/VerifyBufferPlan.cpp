//===- VerifyBufferPlan.cpp - --arr-verify-buffer-plan pass --------------===//
//
// An independent check of a buffer plan. It shares no code with the planner
// (BufferPlan.cpp) beyond MLIR itself: it finds the buffers from the
// rewritten IR alone (every `memref.view` of the `arr.arena` argument, every
// argument with `arr.staging_offset`), follows their aliases with its own
// conservative forward walk, computes its own live intervals over the
// top-level ops of the body, and proves that no two buffers live at one
// point share a byte, except a legal in-place pair. What a dispatch marked
// `sched.once_per_call` writes lives over the whole schedule (the runtime
// writes it in a call's first chunk only), and such a dispatch may read only
// unmapped inputs and buffers that only such dispatches write.
//
// Its byte arithmetic is its own too, overflow-checked: a buffer's size
// (dimensions times element bytes), its end (offset + size) and the arena
// must stay below 2^62 bytes (the runtime's kMaxArrayBytes), and offsets
// must not be negative; anything else is an error at the buffer's op, never
// a wrapped-around range that would hide an overlap.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace vmapc {
#define GEN_PASS_DEF_ARRVERIFYBUFFERPLAN
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// Every byte count is below this: 2^62, the runtime's kMaxArrayBytes.
constexpr int64_t kByteLimit = int64_t{1} << 62;

/// `a * b` or `a + b` if the result is in [0, kByteLimit), else nullopt.
std::optional<int64_t> mulBytes(int64_t a, int64_t b) {
  std::optional<int64_t> r = llvm::checkedMul(a, b);
  return r && *r >= 0 && *r < kByteLimit ? r : std::nullopt;
}
std::optional<int64_t> addBytes(int64_t a, int64_t b) {
  std::optional<int64_t> r = llvm::checkedAdd(a, b);
  return r && *r >= 0 && *r < kByteLimit ? r : std::nullopt;
}

/// One buffer in the arena: a view of the arena or a staging slot.
struct ArenaBuffer {
  Value value;
  Location loc;
  bool staging = false;
  int64_t byteBegin = 0;
  int64_t byteEnd = 0;
  /// Schedule points of the first and last access; nullopt if never accessed.
  std::optional<int64_t> first, last;
  /// Whether a dispatch run once per call writes it, and whether anything
  /// else may (any other access that is not a dispatch's input).
  bool writtenOncePerCall = false;
  bool writtenEveryChunk = false;
};

/// Whether `op` is a dispatch that the runtime runs in a call's first chunk
/// only.
bool isOncePerCall(Operation *op) {
  return isa<vmapc::sched::DispatchOp>(op) &&
         op->hasAttr(vmapc::sched::SchedDialect::kOncePerCallAttrName);
}

std::string shortLoc(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << llvm::sys::path::filename(file.getFilename().getValue()) << ":"
       << file.getLine() << ":" << file.getColumn();
  else if (auto name = dyn_cast<NameLoc>(loc))
    os << name.getName().getValue();
  else
    os << loc;
  return text;
}

std::string describe(const ArenaBuffer &buffer) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (buffer.staging ? "staging slot" : "buffer") << " [" << buffer.byteBegin
     << ", " << buffer.byteEnd << ") live [" << *buffer.first << ", "
     << *buffer.last << "]";
  return text;
}

bool callsAllocator(Operation *op) {
  auto call = dyn_cast<CallOpInterface>(op);
  if (!call)
    return false;
  auto callee =
      llvm::dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
  if (!callee)
    return false;
  return llvm::StringSwitch<bool>(callee.getLeafReference().getValue())
      .Cases({"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign"},
             true)
      .Default(false);
}

class PlanChecker {
public:
  PlanChecker(func::FuncOp func)
      : func(func), layout(DataLayout::closest(func)) {}

  LogicalResult check();

private:
  /// Bytes of a static memref, below kByteLimit (as is the product of its
  /// non-zero dimensions), or nullopt.
  std::optional<int64_t> bytesOf(Type type) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape())
      return std::nullopt;
    std::optional<int64_t> bytes = static_cast<int64_t>(
        layout.getTypeSize(memref.getElementType()).getFixedValue());
    bool empty = false;
    for (int64_t d : memref.getShape()) {
      empty |= d == 0;
      if (d != 0 && bytes)
        bytes = mulBytes(*bytes, d);
    }
    if (!bytes)
      return std::nullopt;
    return empty ? 0 : *bytes;
  }
  LogicalResult collectBuffers(BlockArgument arena, int64_t arenaBytes);
  void computeLiveness(int index);
  /// Checks that each dispatch run once per call reads only unmapped inputs
  /// and buffers that only such dispatches write: what it computes in the
  /// first chunk is then what every chunk would.
  LogicalResult checkOncePerCall();
  /// Why the overlap of `earlier` and `later` is not a legal in-place pair,
  /// or nullopt if it is one.
  std::optional<std::string> inPlaceViolation(int earlier, int later);
  bool aliasesBuffer(Value value, int buffer) const {
    auto it = bufferOfAlias.find(value);
    return it != bufferOfAlias.end() && llvm::is_contained(it->second, buffer);
  }

  func::FuncOp func;
  DataLayout layout;
  Block *body = nullptr;
  llvm::DenseMap<Operation *, int64_t> point;
  SmallVector<Operation *> schedule;
  SmallVector<ArenaBuffer> buffers;
  llvm::DenseMap<Value, SmallVector<int, 1>> bufferOfAlias;
};

LogicalResult PlanChecker::collectBuffers(BlockArgument arena,
                                          int64_t arenaBytes) {
  bool ok = true;
  for (BlockArgument arg : func.getArguments()) {
    auto offset = func.getArgAttrOfType<IntegerAttr>(
        arg.getArgNumber(), vmapc::arr::ArrDialect::kStagingOffsetAttrName);
    if (!offset)
      continue;
    std::optional<int64_t> bytes = bytesOf(arg.getType());
    if (!bytes) {
      func.emitError() << "staging argument #" << arg.getArgNumber()
                       << " is not a statically shaped memref of fewer than "
                          "2^62 bytes: "
                       << arg.getType();
      ok = false;
      continue;
    }
    ArenaBuffer buffer{arg, arg.getLoc(), /*staging=*/true};
    buffer.byteBegin = offset.getInt();
    std::optional<int64_t> end = addBytes(buffer.byteBegin, *bytes);
    if (buffer.byteBegin < 0 || !end) {
      func.emitError() << "staging slot of argument #" << arg.getArgNumber()
                       << " has offset " << buffer.byteBegin << " and "
                       << *bytes
                       << " bytes: a negative offset or an end at 2^62 bytes "
                          "or more";
      ok = false;
      continue;
    }
    buffer.byteEnd = *end;
    if (buffer.byteEnd > arenaBytes) {
      func.emitError() << "staging slot of argument #" << arg.getArgNumber()
                       << " reaches past the arena: bytes [" << buffer.byteBegin
                       << ", " << buffer.byteEnd << ") of an arena of "
                       << arenaBytes << " bytes";
      ok = false;
    }
    buffers.push_back(buffer);
  }

  for (OpOperand &use : arena.getUses()) {
    auto view = dyn_cast<memref::ViewOp>(use.getOwner());
    if (!view || view.getSource() != arena) {
      use.getOwner()->emitOpError()
          << "uses the arena; only memref.view may take the arena";
      ok = false;
      continue;
    }
    std::optional<int64_t> shift = getConstantIntValue(view.getByteShift());
    std::optional<int64_t> bytes = bytesOf(view.getType());
    if (!shift || !bytes) {
      view.emitOpError() << "is a view of the arena without a constant offset "
                            "and a static shape of fewer than 2^62 bytes";
      ok = false;
      continue;
    }
    ArenaBuffer buffer{view.getResult(), view.getLoc(), /*staging=*/false};
    buffer.byteBegin = *shift;
    std::optional<int64_t> end = addBytes(*shift, *bytes);
    if (*shift < 0 || !end) {
      view.emitOpError() << "has offset " << *shift << " and " << *bytes
                         << " bytes: a negative offset or an end at 2^62 "
                            "bytes or more";
      ok = false;
      continue;
    }
    buffer.byteEnd = *end;
    if (buffer.byteEnd > arenaBytes) {
      view.emitOpError() << "reaches past the arena: bytes ["
                         << buffer.byteBegin << ", " << buffer.byteEnd
                         << ") of an arena of " << arenaBytes << " bytes";
      ok = false;
    }
    buffers.push_back(buffer);
  }
  return success(ok);
}

void PlanChecker::computeLiveness(int index) {
  ArenaBuffer &buffer = buffers[index];
  // Forward closure over everything the buffer can flow into. Conservative:
  // any memref result of an op that takes the buffer, and every memref block
  // argument of its regions (loop-carried values), is an alias.
  llvm::SetVector<Value> worklist;
  worklist.insert(buffer.value);
  auto addMemRefs = [&](auto values) {
    for (Value value : values)
      if (isa<BaseMemRefType>(value.getType()))
        worklist.insert(value);
  };
  auto addRegionArgs = [&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        addMemRefs(block.getArguments());
  };
  for (size_t i = 0; i < worklist.size(); ++i) {
    Value value = worklist[i];
    bufferOfAlias[value].push_back(index);
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user))
        continue;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == value && isMemoryEffectFree(user)) {
          addMemRefs(user->getResults());
          continue;
        }
      }
      auto dispatch = dyn_cast<vmapc::sched::DispatchOp>(user);
      bool written = !dispatch || dispatch.isDpsInit(&use);
      if (written && isOncePerCall(user))
        buffer.writtenOncePerCall = true;
      else if (written)
        buffer.writtenEveryChunk = true;
      Operation *top = body->findAncestorOpInBlock(*user);
      int64_t at = point.lookup(top);
      buffer.first = buffer.first ? std::min(*buffer.first, at) : at;
      buffer.last = buffer.last ? std::max(*buffer.last, at) : at;
      addMemRefs(user->getResults());
      addRegionArgs(user);
      if (user->hasTrait<OpTrait::IsTerminator>() && user->getBlock() != body) {
        Operation *parent = user->getParentOp();
        addMemRefs(parent->getResults());
        addRegionArgs(parent);
      }
    }
  }

  int64_t endPoint = static_cast<int64_t>(schedule.size()) - 1;
  // Written in the first chunk, read by every chunk.
  if (buffer.writtenOncePerCall) {
    buffer.first = 0;
    buffer.last = endPoint;
  }
  if (!buffer.staging)
    return;
  // The runtime fills an input's slot before the call and reads an output's
  // slot after it.
  auto arg = cast<BlockArgument>(buffer.value);
  if (func.getArgAttr(arg.getArgNumber(),
                      vmapc::arr::ArrDialect::kOutputAttrName)) {
    buffer.first = buffer.first.value_or(endPoint);
    buffer.last = endPoint;
  } else {
    buffer.first = 0;
    buffer.last = buffer.last.value_or(0);
  }
}

LogicalResult PlanChecker::checkOncePerCall() {
  bool ok = true;
  for (Operation *op : schedule) {
    if (!isOncePerCall(op))
      continue;
    auto dispatch = cast<vmapc::sched::DispatchOp>(op);
    for (Value input : dispatch.getInputs()) {
      // An unmapped input, bound in place or staged, holds the same bytes
      // in every chunk.
      if (auto arg = dyn_cast<BlockArgument>(input)) {
        if (arg.getOwner() == body &&
            vmapc::arr::isUnmappedInput(func, arg.getArgNumber()))
          continue;
      } else if (auto it = bufferOfAlias.find(input);
                 it != bufferOfAlias.end() &&
                 llvm::all_of(it->second, [&](int b) {
                   return buffers[b].writtenOncePerCall &&
                          !buffers[b].writtenEveryChunk;
                 })) {
        continue;
      }
      dispatch.emitOpError()
          << "runs once per call but reads " << input
          << ", which is neither an unmapped input nor a buffer that only "
             "dispatches run once per call write";
      ok = false;
    }
  }
  return success(ok);
}

std::optional<std::string> PlanChecker::inPlaceViolation(int earlier,
                                                         int later) {
  const ArenaBuffer &x = buffers[earlier];
  const ArenaBuffer &y = buffers[later];
  if (x.staging || y.staging)
    return "a staging slot is never reused in place";
  if (*x.last != *y.first)
    return "the earlier buffer is still read after the later one is written";
  if (x.byteBegin != y.byteBegin || x.byteEnd != y.byteEnd)
    return "an in-place pair must have the same offset and size";
  Operation *op = schedule[*y.first];
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
      !linalgOp.isAllParallelLoops())
    return "the later buffer is not first written by an elementwise linalg op";
  for (Operation &inner : linalgOp.getBlock()->without_terminator())
    if (!isMemoryEffectFree(&inner))
      return "the writing op's payload accesses memory";

  auto wholeIdentity = [&](OpOperand &operand, const ArenaBuffer &buffer) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    return type && type.getLayout().isIdentity() &&
           bytesOf(type) == buffer.byteEnd - buffer.byteBegin &&
           linalgOp.getMatchingIndexingMap(&operand).isIdentity();
  };
  OpOperand *input = nullptr;
  OpOperand *init = nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    bool isInit = linalgOp.isDpsInit(&operand);
    if (aliasesBuffer(operand.get(), later)) {
      if (!isInit || init)
        return "the later buffer is read by the op that writes it";
      init = &operand;
    }
    if (aliasesBuffer(operand.get(), earlier)) {
      if (isInit)
        return "the op writes the earlier buffer";
      if (!wholeIdentity(operand, x))
        return "the op reads the earlier buffer through a non-identity map";
      input = &operand;
    }
  }
  if (!init || !input)
    return "the op at the shared point does not read the earlier buffer and "
           "write the later one";
  if (!wholeIdentity(*init, y))
    return "the op writes the later buffer through a non-identity map";
  if (linalgOp.payloadUsesValueFromOperand(init))
    return "the op's payload reads the later buffer";
  auto inType = cast<MemRefType>(input->get().getType());
  auto outType = cast<MemRefType>(init->get().getType());
  if (layout.getTypeSize(inType.getElementType()) !=
      layout.getTypeSize(outType.getElementType()))
    return "input and output elements differ in size";
  return std::nullopt;
}

LogicalResult PlanChecker::check() {
  if (func.isExternal())
    return success();
  bool ok = true;

  func.walk([&](Operation *op) {
    if (hasEffect<MemoryEffects::Allocate>(op) || callsAllocator(op)) {
      op->emitOpError() << "allocates memory after buffer planning; every "
                           "buffer must be a view of the arena";
      ok = false;
    }
  });

  BlockArgument arena;
  for (BlockArgument arg : func.getArguments()) {
    if (!func.getArgAttr(arg.getArgNumber(),
                         vmapc::arr::ArrDialect::kArenaAttrName))
      continue;
    if (arena) {
      func.emitError() << "has more than one arr.arena argument";
      return failure();
    }
    arena = arg;
  }
  if (!arena) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      if (func.getArgAttr(i, vmapc::arr::ArrDialect::kStagingOffsetAttrName)) {
        func.emitError() << "has a staging offset but no arr.arena argument";
        return failure();
      }
    }
    return success(ok);
  }
  auto arenaType = dyn_cast<MemRefType>(arena.getType());
  if (!arenaType || arenaType.getRank() != 1 || !arenaType.hasStaticShape() ||
      !arenaType.getElementType().isInteger(8) ||
      !arenaType.getLayout().isIdentity() ||
      arenaType.getDimSize(0) >= kByteLimit) {
    func.emitError() << "arena argument must be a static memref<Nxi8> with N "
                        "below 2^62, got "
                     << arena.getType();
    return failure();
  }
  if (!func.getBody().hasOneBlock()) {
    func.emitError() << "cannot verify a buffer plan over several blocks";
    return failure();
  }
  body = &func.getBody().front();
  for (Operation &op : *body) {
    point[&op] = static_cast<int64_t>(schedule.size());
    schedule.push_back(&op);
  }

  if (failed(collectBuffers(arena, arenaType.getDimSize(0))))
    ok = false;
  for (int i = 0, e = static_cast<int>(buffers.size()); i < e; ++i)
    computeLiveness(i);
  if (failed(checkOncePerCall()))
    ok = false;

  for (int i = 0, e = static_cast<int>(buffers.size()); i < e; ++i) {
    for (int j = i + 1; j < e; ++j) {
      const ArenaBuffer &a = buffers[i];
      const ArenaBuffer &b = buffers[j];
      if (!a.first || !b.first || *a.first > *b.last || *b.first > *a.last ||
          a.byteBegin >= b.byteEnd || b.byteBegin >= a.byteEnd)
        continue;
      int earlier = i, later = j;
      if (*b.first < *a.first || (*b.first == *a.first && *b.last < *a.last))
        std::swap(earlier, later);
      const ArenaBuffer &x = buffers[earlier];
      const ArenaBuffer &y = buffers[later];
      // Touching at one point: only a legal in-place pair may share bytes.
      std::optional<std::string> why;
      bool touching = *x.first < *y.first && *x.last == *y.first;
      if (touching) {
        why = inPlaceViolation(earlier, later);
        if (!why)
          continue;
      }
      InFlightDiagnostic diag = emitError(y.loc);
      if (touching)
        diag << "illegal in-place reuse (" << *why << "): ";
      else
        diag << "buffers overlap while both are live: ";
      diag << describe(y) << " overlaps " << describe(x) << " (defined at "
           << shortLoc(y.loc) << " and " << shortLoc(x.loc) << ")";
      diag.attachNote(x.loc) << "the overlapping buffer is defined here";
      ok = false;
    }
  }
  return success(ok);
}

struct ArrVerifyBufferPlanPass
    : vmapc::impl::ArrVerifyBufferPlanBase<ArrVerifyBufferPlanPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Planned, vmapc::Stage::Planned)))
      return signalPassFailure();
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (failed(PlanChecker(func).check()))
        ok = false;
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
