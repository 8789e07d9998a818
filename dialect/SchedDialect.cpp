//===- SchedDialect.cpp - the sched dialect -------------------------------===//

#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

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
