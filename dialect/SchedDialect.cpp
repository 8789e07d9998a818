//===- SchedDialect.cpp - the sched dialect -------------------------------===//

#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace vmapc::sched;

#include "dialect/SchedDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/SchedOps.cpp.inc"

void SchedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/SchedOps.cpp.inc"
      >();
}

bool vmapc::sched::isKernel(Operation *fn) {
  return fn && fn->hasAttr(SchedDialect::kKernelAttrName);
}

bool vmapc::sched::readsOutput(DispatchOp dispatch, unsigned output) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      dispatch, dispatch.getKernelAttr());
  if (!kernel || kernel.isExternal())
    return true;
  unsigned arg = dispatch.getInputs().size() + output;
  // A tensor of the binding read only as the destination of ops that
  // overwrite it (a copy's or a fill's init, after empty-tensor
  // elimination) is not read.
  auto readsTensor = [](Value tensor) {
    return llvm::any_of(tensor.getUses(), [](OpOperand &use) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
      return !linalgOp || !linalgOp.isDpsInit(&use) ||
             linalgOp.payloadUsesValueFromOperand(&use);
    });
  };
  return llvm::any_of(kernel.getArgument(arg).getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto write = dyn_cast<bufferization::MaterializeInDestinationOp>(user))
      return use.get() != write.getDest();
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(user))
      return readsTensor(toTensor.getResult());
    return true;
  });
}

bool vmapc::sched::isCopyKernel(func::FuncOp kernel) {
  if (!kernel || kernel.isExternal())
    return false;
  Block &body = kernel.getBody().front();
  return llvm::any_of(body,
                      [](Operation &op) { return isa<memref::CopyOp>(op); }) &&
         llvm::all_of(body, [](Operation &op) {
           return isa<memref::CopyOp, func::ReturnOp>(op) ||
                  op.hasTrait<OpTrait::ConstantLike>() ||
                  isa<ViewLikeOpInterface>(op);
         });
}

std::optional<uint64_t> vmapc::sched::bindingBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return std::nullopt;
  uint64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  return uint64_t(type.getNumElements()) * elementBytes;
}

int64_t vmapc::sched::workgroupCount(int64_t encoded, int64_t numExamples) {
  if (encoded > 0)
    return encoded;
  int64_t tile = -encoded;
  return (numExamples + tile - 1) / tile;
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

LogicalResult SchedDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kKernelAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitOpError()
             << "'" << name << "' must be a unit attribute on a function";
    // On func.func (before LLVM): bindings and scalars only.
    auto fn = dyn_cast<func::FuncOp>(op);
    if (!fn)
      return success();
    if (fn.getNumResults() != 0)
      return op->emitOpError("a kernel returns nothing (its outputs are "
                             "bindings)");
    for (Type type : fn.getArgumentTypes())
      if (!isa<MemRefType, IndexType>(type))
        return op->emitOpError("kernel arguments are memrefs (bindings) or "
                               "index scalars, got ")
               << type;
    return success();
  }
  if (name == kBindingBytesAttrName) {
    if (!isa<DenseI64ArrayAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be an i64 array";
    return success();
  }
  if (name == kBindingAccessAttrName) {
    auto access = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!access || llvm::any_of(access.asArrayRef(),
                                [](int64_t a) { return a < 1 || a > 3; }))
      return op->emitOpError() << "'" << name
                               << "' must be an i64 array of 1 (read), 2 "
                                  "(write) or 3 (read-write)";
    return success();
  }
  if (name == kBatchLoopAttrName || name == kScratchBytesAttrName) {
    auto loop = dyn_cast<IntegerAttr>(attr.getValue());
    if (!loop || loop.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative integer";
    return success();
  }
  if (name == kWorkgroupCountAttrName) {
    auto counts = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!counts || counts.size() != 3 ||
        llvm::any_of(counts.asArrayRef(), [](int64_t c) { return c == 0; }))
      return op->emitOpError()
             << "'" << name
             << "' must be 3 nonzero integers (c > 0: c workgroups; -T: "
                "ceil(n / T))";
    return success();
  }
  if (name == kOncePerCallAttrName) {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<DispatchOp>(op))
      return op->emitOpError()
             << "'" << name << "' must be a unit attribute on a dispatch";
    if (!isa_and_nonnull<func::FuncOp>(op->getParentOp()))
      return op->emitOpError()
             << "'" << name
             << "' marks a dispatch of the entry's body, outside every loop";
    if (!cast<DispatchOp>(op).getScalars().empty())
      return op->emitOpError() << "'" << name
                               << "' marks a dispatch without scalars (its "
                                  "work must not depend on n or a loop)";
    return success();
  }
  if (name == kPadsPartialChunksAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  return op->emitOpError() << "unknown sched attribute '" << name << "'";
}

LogicalResult SchedDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  if (attr.getName() != kNumExamplesAttrName)
    return op->emitOpError() << "unknown sched argument attribute '"
                             << attr.getName().getValue() << "'";
  // From the signature: a declaration has no entry block.
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    type = fn.getArgumentTypes()[argIndex];
  else
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!type.isIntOrIndex() || !isa<UnitAttr>(attr.getValue()))
    return op->emitOpError() << "'" << attr.getName().getValue()
                             << "' must be a unit attribute on an index "
                                "argument";
  return success();
}

//===----------------------------------------------------------------------===//
// DispatchOp
//===----------------------------------------------------------------------===//

/// The memref type a binding of `type` has in the kernel: memrefs as they
/// are, tensors with the identity layout.
static Type bindingType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  return type;
}

LogicalResult DispatchOp::verify() {
  bool onTensors = llvm::any_of(
      getOperandTypes(), [](Type t) { return isa<RankedTensorType>(t); });
  for (Value operand : llvm::concat<Value>(getInputs(), getOutputs())) {
    auto shaped = cast<ShapedType>(operand.getType());
    if (!isa<RankedTensorType, MemRefType>(shaped) || !shaped.hasStaticShape())
      return emitOpError("bindings must be statically shaped tensors or "
                         "memrefs, got ")
             << shaped;
    if (onTensors != isa<RankedTensorType>(shaped))
      return emitOpError("bindings must be all tensors or all memrefs");
  }
  if (onTensors) {
    if (getResultTypes() != getOutputs().getTypes())
      return emitOpError("on tensors, the results have the types of the "
                         "outputs");
  } else if (getNumResults() != 0) {
    return emitOpError("on memrefs, a dispatch has no results");
  }
  return success();
}

LogicalResult DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "no kernel function named " << getKernelAttr();
  if (!isKernel(kernel))
    return emitOpError() << getKernelAttr() << " is not marked '"
                         << SchedDialect::kKernelAttrName << "'";
  SmallVector<Type> expected;
  for (Type type : getInputs().getTypes())
    expected.push_back(bindingType(type));
  for (Type type : getOutputs().getTypes())
    expected.push_back(bindingType(type));
  expected.append(getScalars().size(), IndexType::get(getContext()));
  if (TypeRange(expected) != kernel.getArgumentTypes())
    return emitOpError() << "operands do not match the arguments of "
                         << getKernelAttr() << ": expected "
                         << kernel.getFunctionType().getInputs() << ", got "
                         << TypeRange(expected);
  return success();
}

void DispatchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getInputsMutable())
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  for (OpOperand &operand : getOutputsMutable()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// Bufferization
//===----------------------------------------------------------------------===//

namespace {
struct DispatchOpBufferization
    : bufferization::DstBufferizableOpInterfaceExternalModel<
          DispatchOpBufferization, DispatchOp> {
  /// Inputs are read; an output only when the kernel reads its binding's
  /// contents (an update in place, readsOutput). A kernel that only writes
  /// a result into an output leaves its init unread, so bufferization may
  /// give the output any buffer (the entry's output itself, once empty
  /// tensors are eliminated) without copying the init in first.
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const bufferization::AnalysisState &) const {
    auto dispatch = cast<DispatchOp>(op);
    if (!dispatch.isDpsInit(&operand))
      return true;
    return readsOutput(dispatch,
                       dispatch.getTiedOpResult(&operand).getResultNumber());
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const bufferization::BufferizationOptions &options,
                          bufferization::BufferizationState &state) const {
    auto dispatch = cast<DispatchOp>(op);
    SmallVector<Value> inputs, outputs;
    for (Value input : dispatch.getInputs()) {
      FailureOr<Value> buffer =
          bufferization::getBuffer(rewriter, input, options, state);
      if (failed(buffer))
        return failure();
      inputs.push_back(*buffer);
    }
    for (Value output : dispatch.getOutputs()) {
      FailureOr<Value> buffer =
          bufferization::getBuffer(rewriter, output, options, state);
      if (failed(buffer))
        return failure();
      outputs.push_back(*buffer);
    }
    rewriter.setInsertionPoint(op);
    auto bufferized = DispatchOp::create(rewriter, op->getLoc(), TypeRange{},
                                         dispatch.getKernelAttr(), inputs,
                                         outputs, dispatch.getScalars());
    bufferized->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    bufferization::replaceOpWithBufferizedValues(rewriter, op, outputs);
    return success();
  }
};
} // namespace

void vmapc::sched::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SchedDialect *) {
    DispatchOp::attachInterface<DispatchOpBufferization>(*ctx);
  });
}
