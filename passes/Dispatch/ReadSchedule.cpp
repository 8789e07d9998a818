//===- ReadSchedule.cpp - the manifest's kernels and entries off the IR ---===//

#include "passes/Dispatch/ReadSchedule.h"
#include "dialect/ArrDialect.h"

#include "dialect/Limits.h"
#include "dialect/SchedDialect.h"
#include "passes/BufferPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace vmapc;

std::vector<KernelInfo> vmapc::readKernels(ModuleOp module) {
  std::vector<KernelInfo> kernels;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (!sched::isKernel(fn))
      continue;
    KernelInfo info;
    info.name = fn.getSymName().str();
    for (Type type : fn.getArgumentTypes()) {
      if (auto memref = dyn_cast<MemRefType>(type)) {
        ++info.numBindings;
        info.bindingBytes.push_back(sched::bindingBytes(memref).value_or(0));
      } else if (type.isIndex()) {
        ++info.numScalars;
      }
    }
    // Unknown (0) until --arr-tile-workgroups has chosen the grid.
    std::fill(std::begin(info.workgroupCount), std::end(info.workgroupCount),
              0);
    if (auto grid = fn->getAttrOfType<DenseI64ArrayAttr>(
            sched::SchedDialect::kWorkgroupCountAttrName))
      for (auto [i, count] : llvm::enumerate(grid.asArrayRef()))
        info.workgroupCount[i] = count;
    if (auto scratch = fn->getAttrOfType<IntegerAttr>(
            sched::SchedDialect::kScratchBytesAttrName))
      info.scratchBytes = scratch.getInt();
    // Unknown (none) until the kernel is lowered (--arr-cpu-workgroups).
    if (auto access = fn->getAttrOfType<DenseI64ArrayAttr>(
            sched::SchedDialect::kBindingAccessAttrName))
      for (int64_t a : access.asArrayRef())
        info.bindingAccess.push_back(BindingAccess(a));
    kernels.push_back(std::move(info));
  }
  return kernels;
}

namespace {
class ScheduleReader {
public:
  ScheduleReader(func::FuncOp entry, const std::vector<KernelInfo> &kernels)
      : entry(entry) {
    for (auto [i, kernel] : llvm::enumerate(kernels))
      kernelIndex[kernel.name] = i;
    unsigned inputs = 0, outputs = 0;
    for (BlockArgument arg : entry.getArguments()) {
      if (entry.getArgAttr(arg.getArgNumber(),
                           vmapc::arr::ArrDialect::kArenaAttrName)) {
        arena = arg;
        continue;
      }
      bool isOutput =
          entry.getArgAttr(arg.getArgNumber(),
                           vmapc::arr::ArrDialect::kOutputAttrName) != nullptr;
      argBinding[arg] = {isOutput ? Binding::Kind::Output
                                  : Binding::Kind::Input,
                         isOutput ? outputs++ : inputs++, 0};
    }
  }

  LogicalResult read(Block &block, std::vector<Command> &commands) {
    for (Operation &op : block) {
      if (auto dispatch = dyn_cast<sched::DispatchOp>(op)) {
        if (failed(readDispatch(dispatch, commands)))
          return failure();
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
        std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
        std::optional<int64_t> step = getConstantIntValue(loop.getStep());
        if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub < 0 ||
            loop.getNumResults() != 0)
          return loop.emitOpError("is not a schedule loop (0 to N step 1, "
                                  "no results)");
        size_t at = commands.size();
        Command command;
        command.kind = Command::Kind::Loop;
        command.tripCount = uint64_t(*ub);
        commands.push_back(command);
        loops.push_back(loop.getInductionVar());
        if (failed(read(*loop.getBody(), commands)))
          return failure();
        loops.pop_back();
        commands[at].bodySize = uint32_t(commands.size() - at - 1);
        continue;
      }
      if (isa<memref::ViewOp, arith::ConstantOp, sched::NumExamplesOp,
              func::ReturnOp, scf::YieldOp>(op) ||
          (isMemoryEffectFree(&op) && op.getNumRegions() == 0))
        continue;
      return op.emitOpError("is outside every dispatch; a schedule is made "
                            "of dispatches and loops only");
    }
    return success();
  }

private:
  LogicalResult readDispatch(sched::DispatchOp dispatch,
                             std::vector<Command> &commands) {
    Command command;
    command.kind = Command::Kind::Dispatch;
    command.oncePerCall =
        dispatch->hasAttr(sched::SchedDialect::kOncePerCallAttrName);
    auto it = kernelIndex.find(dispatch.getKernel());
    if (it == kernelIndex.end())
      return dispatch.emitOpError("dispatches an unknown kernel");
    command.kernel = it->second;
    for (Value operand :
         llvm::concat<Value>(dispatch.getInputs(), dispatch.getOutputs())) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        auto found = argBinding.find(arg);
        if (found == argBinding.end())
          return dispatch.emitOpError("binds a block argument that is not an "
                                      "input or output of the entry");
        command.bindings.push_back(found->second);
        continue;
      }
      auto view = operand.getDefiningOp<memref::ViewOp>();
      std::optional<int64_t> offset =
          view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
      if (!view || view.getSource() != arena || !offset ||
          !view.getSizes().empty())
        return dispatch.emitOpError("binds a buffer that is neither an "
                                    "argument nor a static view of the arena");
      command.bindings.push_back({Binding::Kind::Arena, 0, uint64_t(*offset)});
    }
    for (Value scalar : dispatch.getScalars()) {
      if (scalar.getDefiningOp<sched::NumExamplesOp>()) {
        command.scalars.push_back({ScalarSource::Kind::NumExamples, 0});
        continue;
      }
      auto loop = llvm::find(loops, scalar);
      if (loop == loops.end())
        return dispatch.emitOpError("passes a scalar that is neither n nor a "
                                    "loop index");
      command.scalars.push_back(
          {ScalarSource::Kind::LoopIndex, uint32_t(loop - loops.begin())});
    }
    commands.push_back(std::move(command));
    return success();
  }

  func::FuncOp entry;
  Value arena;
  llvm::StringMap<uint32_t> kernelIndex;
  llvm::DenseMap<Value, Binding> argBinding;
  SmallVector<Value> loops;
};
} // namespace

LogicalResult vmapc::readSchedule(func::FuncOp entry,
                                  const std::vector<KernelInfo> &kernels,
                                  std::vector<Command> &commands) {
  ScheduleReader reader(entry, kernels);
  return reader.read(entry.getBody().front(), commands);
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

/// The manifest dtype of a memref element type.
static FailureOr<DType> dtypeOf(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isInteger(32))
    return DType::I32;
  if (type.isInteger(1))
    return DType::Bool;
  return failure();
}

/// Fills `arg` from argument `i` of the planned entry `fn`, whose batch axis
/// is `axis` (an IntegerAttr, or unit for none) with batch size `batch`.
static LogicalResult readArg(func::FuncOp fn, unsigned i, Attribute axis,
                             int64_t batch, ArgInfo &arg) {
  auto type = dyn_cast<MemRefType>(fn.getArgumentTypes()[i]);
  if (!type || !type.hasStaticShape())
    return fn.emitOpError()
           << "argument " << i << " is not a static memref after planning";
  FailureOr<DType> dtype = dtypeOf(type.getElementType());
  if (failed(dtype))
    return fn.emitOpError()
           << "argument " << i << " has element type " << type.getElementType()
           << ", not one of f32, i32, bool";
  arg.dtype = *dtype;
  if (auto name = fn.getArgAttrOfType<StringAttr>(
          i, vmapc::arr::ArrDialect::kNameAttrName))
    arg.name = name.str();
  else
    arg.name = "arg" + std::to_string(i);
  arg.shape.assign(type.getShape().begin(), type.getShape().end());
  if (auto a = dyn_cast_or_null<IntegerAttr>(axis)) {
    if (a.getInt() < 0 || a.getInt() >= type.getRank() ||
        type.getDimSize(a.getInt()) != batch)
      return fn.emitOpError() << "argument " << i << " has no batch dimension "
                              << batch << " at axis " << a.getInt();
    arg.mappedAxis = static_cast<int32_t>(a.getInt());
    arg.shape.erase(arg.shape.begin() + a.getInt());
  }
  if (!checkedByteSize(type))
    return fn.emitOpError()
           << "argument " << i << " has type " << type
           << ", past the size limits: " << describeLimitViolation(type);
  if (auto offset = fn.getArgAttrOfType<IntegerAttr>(
          i, vmapc::arr::ArrDialect::kStagingOffsetAttrName)) {
    if (offset.getInt() < 0 || offset.getInt() >= kMaxBytes)
      return fn.emitOpError() << "argument " << i << " has staging offset "
                              << offset.getInt() << ", outside [0, 2^62)";
    arg.stagingOffset = offset.getInt();
  }
  return success();
}

FailureOr<EntryInfo> vmapc::readEntry(func::FuncOp fn,
                                      const std::vector<KernelInfo> &kernels) {
  auto batch =
      fn->getAttrOfType<IntegerAttr>(vmapc::arr::ArrDialect::kBatchAttrName);
  if (!batch)
    return fn.emitOpError("is not an exported entry (no arr.batch)");
  EntryInfo entry;
  entry.name = fn.getSymName().str();
  if (batch.getInt() < 1 || batch.getInt() > kMaxDimSize)
    return fn.emitOpError() << "has arr.batch = " << batch.getInt()
                            << ", outside [1, " << kMaxDimSize << "]";
  entry.batchSize = static_cast<uint32_t>(batch.getInt());
  // The dialect verifies the figures' ranges (ArrAttrs.td).
  auto plan = fn->getAttrOfType<vmapc::arr::BufferPlanAttr>(
      vmapc::arr::ArrDialect::kPlanAttrName);
  if (!plan)
    return fn.emitOpError("has no buffer plan (arr.plan)");
  entry.arenaBytes = plan.getArenaBytes();
  entry.lowerBoundBytes = plan.getLowerBound();
  entry.alignedLowerBoundBytes = plan.getAlignedLowerBound();
  entry.naiveSumBytes = plan.getNaiveSum();
  entry.inPlaceCount = static_cast<uint32_t>(plan.getInPlace());
  entry.arenaAlignment = static_cast<uint32_t>(plan.getAlignment());
  auto inAxes =
      fn->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kInAxesAttrName);
  auto outAxes =
      fn->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kOutAxesAttrName);
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    if (fn.getArgAttr(i, vmapc::arr::ArrDialect::kArenaAttrName))
      continue;
    bool isOutput = static_cast<bool>(
        fn.getArgAttr(i, vmapc::arr::ArrDialect::kOutputAttrName));
    auto &list = isOutput ? entry.outputs : entry.inputs;
    ArrayAttr axes = isOutput ? outAxes : inAxes;
    size_t index = list.size();
    if (!axes || index >= axes.size())
      return fn.emitOpError()
             << "argument " << i << " has no axis in "
             << (isOutput ? vmapc::arr::ArrDialect::kOutAxesAttrName
                          : vmapc::arr::ArrDialect::kInAxesAttrName);
    ArgInfo arg;
    if (failed(readArg(fn, i, axes[index], batch.getInt(), arg)))
      return failure();
    // A donated output lives in its input's buffer, staging slot included.
    if (auto donor = fn.getArgAttrOfType<IntegerAttr>(
            i, vmapc::arr::ArrDialect::kDonatedFromAttrName)) {
      if (!isOutput || donor.getInt() >= int64_t(entry.inputs.size()))
        return fn.emitOpError() << "argument " << i << " is donated from input "
                                << donor.getInt() << ", which is not an input";
      arg.donatedFrom = static_cast<int32_t>(donor.getInt());
      arg.stagingOffset = entry.inputs[arg.donatedFrom].stagingOffset;
    }
    list.push_back(std::move(arg));
  }
  entry.padsPartialChunks =
      fn->hasAttr(sched::SchedDialect::kPadsPartialChunksAttrName);
  if (failed(readSchedule(fn, kernels, entry.schedule)))
    return failure();
  return entry;
}
