//===- Compile.cpp - from arr IR to a .vmapc artifact ---------------------===//

#include "codegen/Compile.h"

#include "codegen/CpuObject.h"
#include "dialect/Limits.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace vmapc;

LogicalResult vmapc::lowerToPlannedBuffers(ModuleOp module) {
  PassManager pm(module.getContext());
  buildArrToLinalgPipeline(pm);
  buildArrBufferizePipeline(pm);
  return pm.run(module);
}

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
/// is `axis` (an IntegerAttr, or unit for none).
static LogicalResult readArg(func::FuncOp fn, unsigned i, Attribute axis,
                             ArgInfo &arg) {
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
  if (auto name = fn.getArgAttrOfType<StringAttr>(i, "arr.name"))
    arg.name = name.str();
  else
    arg.name = "arg" + std::to_string(i);
  arg.shape.assign(type.getShape().begin(), type.getShape().end());
  if (auto a = dyn_cast_or_null<IntegerAttr>(axis)) {
    arg.mappedAxis = static_cast<int32_t>(a.getInt());
    arg.shape.erase(arg.shape.begin() + a.getInt());
  }
  if (!checkedByteSize(type))
    return fn.emitOpError()
           << "argument " << i << " has type " << type
           << ", past the size limits: " << describeLimitViolation(type);
  if (auto offset = fn.getArgAttrOfType<IntegerAttr>(i, "arr.staging_offset")) {
    if (offset.getInt() < 0 || offset.getInt() >= kMaxBytes)
      return fn.emitOpError() << "argument " << i << " has staging offset "
                              << offset.getInt() << ", outside [0, 2^62)";
    arg.stagingOffset = offset.getInt();
  }
  return success();
}

/// A figure of the `arr.plan` dictionary: a byte count (or a count) in
/// [0, limit), else an error on `fn`.
static FailureOr<uint64_t> planFigure(func::FuncOp fn, DictionaryAttr plan,
                                      StringRef name, int64_t limit) {
  auto value = plan.getAs<IntegerAttr>(name);
  if (!value)
    return fn.emitOpError() << "has no '" << name << "' in arr.plan";
  if (value.getInt() < 0 || value.getInt() >= limit)
    return fn.emitOpError()
           << "has arr.plan " << name << " = " << value.getInt()
           << ", outside [0, "
           << (limit == kMaxBytes ? std::string("2^62") : std::to_string(limit))
           << ")";
  return static_cast<uint64_t>(value.getInt());
}

LogicalResult vmapc::readManifest(ModuleOp module,
                                  std::vector<EntryInfo> &entries) {
  for (auto fn : module.getOps<func::FuncOp>()) {
    auto batch = fn->getAttrOfType<IntegerAttr>("arr.batch");
    if (!batch || fn.isPrivate())
      continue;
    EntryInfo entry;
    entry.name = fn.getSymName().str();
    entry.symbol = cEntrySymbol(entry.name);
    if (batch.getInt() < 1 || batch.getInt() > kMaxDimSize)
      return fn.emitOpError() << "has arr.batch = " << batch.getInt()
                              << ", outside [1, " << kMaxDimSize << "]";
    entry.batchSize = static_cast<uint32_t>(batch.getInt());
    auto plan = fn->getAttrOfType<DictionaryAttr>("arr.plan");
    if (!plan)
      return fn.emitOpError("has no buffer plan (arr.plan)");
    FailureOr<uint64_t> arena = planFigure(fn, plan, "arena_bytes", kMaxBytes);
    FailureOr<uint64_t> lowerBound =
        planFigure(fn, plan, "lower_bound", kMaxBytes);
    FailureOr<uint64_t> naiveSum = planFigure(fn, plan, "naive_sum", kMaxBytes);
    FailureOr<uint64_t> inPlace =
        planFigure(fn, plan, "in_place", std::numeric_limits<uint32_t>::max());
    if (failed(arena) || failed(lowerBound) || failed(naiveSum) ||
        failed(inPlace))
      return failure();
    entry.arenaBytes = *arena;
    entry.lowerBoundBytes = *lowerBound;
    entry.naiveSumBytes = *naiveSum;
    entry.inPlaceCount = static_cast<uint32_t>(*inPlace);
    auto inAxes = fn->getAttrOfType<ArrayAttr>("arr.in_axes");
    auto outAxes = fn->getAttrOfType<ArrayAttr>("arr.out_axes");
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      if (fn.getArgAttr(i, "arr.arena"))
        continue;
      bool isOutput = static_cast<bool>(fn.getArgAttr(i, "arr.output"));
      auto &list = isOutput ? entry.outputs : entry.inputs;
      ArrayAttr axes = isOutput ? outAxes : inAxes;
      size_t index = list.size();
      if (!axes || index >= axes.size())
        return fn.emitOpError() << "argument " << i << " has no axis in "
                                << (isOutput ? "arr.out_axes" : "arr.in_axes");
      ArgInfo arg;
      if (failed(readArg(fn, i, axes[index], arg)))
        return failure();
      list.push_back(std::move(arg));
    }
    // The artifact's rules for one entry, reported at the export.
    if (Status status = validateEntry(entry); !status.ok())
      return fn.emitError() << status.message();
    entries.push_back(std::move(entry));
  }
  if (entries.empty())
    return module.emitError("the program exports no entry; add `export NAME "
                            "= vmap(f, in_axes=..., batch=B);`");
  return success();
}

LogicalResult vmapc::compileForCpu(ModuleOp module, Artifact &artifact) {
  if (failed(lowerToPlannedBuffers(module)))
    return failure();
  artifact = Artifact();
  artifact.target = Target::CpuX86_64;
  artifact.cpuFeatures = {"sse2"};
  if (failed(readManifest(module, artifact.entries)))
    return failure();
  PassManager pm(module.getContext());
  buildArrToLLVMPipeline(pm);
  if (failed(pm.run(module)))
    return failure();
  if (failed(emitCpuSharedObject(module, &artifact.code)))
    return failure();
  // Each entry passed validateEntry; what is left (the code, unique names)
  // belongs to the whole file.
  if (Status status = validateArtifact(artifact); !status.ok())
    return module.emitError() << status.message();
  return success();
}
