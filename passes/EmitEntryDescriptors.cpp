//===- EmitEntryDescriptors.cpp - what each entry's code was compiled for -===//
//
// The code object carries, per entry, the descriptor written down in
// runtime/vmapc/ArtifactFormat.h: B, the arena's bytes, and the bytes per
// example and mapped axis of every argument, read off the planned entry's
// memref types. The runtime refuses a manifest that disagrees with it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "vmapc/ArtifactFormat.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace vmapc {
#define GEN_PASS_DEF_ARREMITENTRYDESCRIPTORS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// Bytes of one element of a planned argument: f32, i32 or i1 (one byte).
static std::optional<uint64_t> elementBytes(Type type) {
  if (type.isF32() || type.isInteger(32))
    return 4;
  if (type.isInteger(1))
    return 1;
  return std::nullopt;
}

/// The batch axis of argument `index` among `axes` (`arr.in_axes` or
/// `arr.out_axes`: an integer or unit per argument), or kNoAxis.
static int64_t axisOf(ArrayAttr axes, size_t index) {
  if (!axes || index >= axes.size())
    return vmapc::kNoAxis;
  auto axis = dyn_cast<IntegerAttr>(axes[index]);
  return axis ? axis.getInt() : vmapc::kNoAxis;
}

/// The descriptor of argument `i` of `fn`, mapped at `axis` with batch `b`.
static FailureOr<vmapc::ArgDescriptor> describe(func::FuncOp fn, unsigned i,
                                                int64_t axis, uint64_t b) {
  auto type = dyn_cast<MemRefType>(fn.getArgumentTypes()[i]);
  std::optional<uint64_t> bytes =
      type ? elementBytes(type.getElementType()) : std::nullopt;
  if (!type || !type.hasStaticShape() || !bytes)
    return fn.emitOpError()
           << "argument " << i << " is not a static memref of f32, i32 or i1";
  if (axis != vmapc::kNoAxis && (axis < 0 || axis >= type.getRank() ||
                                 uint64_t(type.getDimSize(axis)) != b))
    return fn.emitOpError() << "argument " << i << " has no batch dimension "
                            << b << " at axis " << axis;
  for (int64_t d : type.getShape())
    *bytes *= uint64_t(d);
  if (axis != vmapc::kNoAxis)
    *bytes /= b;
  return vmapc::ArgDescriptor{*bytes, axis};
}

struct ArrEmitEntryDescriptorsPass
    : vmapc::impl::ArrEmitEntryDescriptorsBase<ArrEmitEntryDescriptorsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      auto batch = fn->getAttrOfType<IntegerAttr>("arr.batch");
      if (!batch || fn.isPrivate() || fn.isExternal())
        continue;
      if (failed(emit(module, fn, batch.getInt())))
        return signalPassFailure();
    }
  }

  LogicalResult emit(ModuleOp module, func::FuncOp fn, int64_t batch) {
    if (batch < 1)
      return fn.emitOpError() << "has batch size " << batch;
    auto inAxes = fn->getAttrOfType<ArrayAttr>("arr.in_axes");
    auto outAxes = fn->getAttrOfType<ArrayAttr>("arr.out_axes");
    std::vector<vmapc::ArgDescriptor> inputs, outputs;
    std::optional<uint64_t> arenaBytes;
    for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
      if (fn.getArgAttr(i, "arr.arena")) {
        auto arena = dyn_cast<MemRefType>(fn.getArgumentTypes()[i]);
        if (!arena || arena.getRank() != 1 || !arena.hasStaticShape())
          return fn.emitOpError()
                 << "arena argument " << i << " is not a static 1-d memref";
        arenaBytes = arena.getDimSize(0);
        continue;
      }
      bool isOutput = static_cast<bool>(fn.getArgAttr(i, "arr.output"));
      auto &list = isOutput ? outputs : inputs;
      int64_t axis = axisOf(isOutput ? outAxes : inAxes, list.size());
      FailureOr<vmapc::ArgDescriptor> arg = describe(fn, i, axis, batch);
      if (failed(arg))
        return failure();
      list.push_back(*arg);
    }
    if (!arenaBytes)
      return fn.emitOpError()
             << "has no arena argument: run arr-plan-buffers first";

    std::vector<uint64_t> words =
        vmapc::entryDescriptorWords(batch, *arenaBytes, inputs, outputs);
    MLIRContext *ctx = module.getContext();
    auto i64 = IntegerType::get(ctx, 64);
    auto value = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(words.size())}, i64),
        ArrayRef<uint64_t>(words));
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    LLVM::GlobalOp::create(
        b, fn.getLoc(), LLVM::LLVMArrayType::get(i64, words.size()),
        /*isConstant=*/true, LLVM::Linkage::External,
        vmapc::entryDescriptorSymbol(fn.getSymName().str()), value,
        /*alignment=*/8);
    return success();
  }
};

} // namespace
