//===- ArrDialect.cpp - the arr dialect -----------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace vmapc::arr;

#include "dialect/ArrDialect.cpp.inc"
#include "dialect/ArrEnums.cpp.inc"
#include "dialect/BatchingOpInterface.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialect/ArrAttrs.cpp.inc"

namespace {
/// Every arr op is pure, so any of them may be inlined, and calls inside an
/// `arr.for` body may be inlined there: inlining turns each entry into one
/// schedule of ops and loops.
struct ArrInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void ArrDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/ArrOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialect/ArrAttrs.cpp.inc"
      >();
  addInterfaces<ArrInlinerInterface>();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult
BufferPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t arenaBytes, int64_t lowerBound,
                       int64_t alignedLowerBound, int64_t naiveSum,
                       int64_t inPlace, int64_t buffers, int64_t alignment) {
  for (auto [name, value] :
       {std::pair<StringRef, int64_t>{"arena_bytes", arenaBytes},
        {"lower_bound", lowerBound},
        {"aligned_lower_bound", alignedLowerBound},
        {"naive_sum", naiveSum}})
    if (value < 0 || value >= vmapc::kMaxBytes)
      return emitError() << name << " = " << value << " is outside [0, 2^62)";
  for (auto [name, value] : {std::pair<StringRef, int64_t>{"in_place", inPlace},
                             {"buffers", buffers}})
    if (value < 0 || value > std::numeric_limits<uint32_t>::max())
      return emitError() << name << " = " << value << " is outside [0, 2^32)";
  if (alignment < 1 || alignment > vmapc::kMaxArenaAlignmentBytes ||
      !llvm::isPowerOf2_64(static_cast<uint64_t>(alignment)))
    return emitError() << "alignment = " << alignment
                       << " is not a power of two in [1, "
                       << vmapc::kMaxArenaAlignmentBytes << "]";
  return success();
}

bool vmapc::arr::isDonated(func::FuncOp fn, unsigned arg) {
  for (unsigned j = 0; j < fn.getNumResults(); ++j)
    if (auto k = fn.getResultAttrOfType<IntegerAttr>(
            j, ArrDialect::kDonatedFromAttrName);
        k && k.getInt() == int64_t(arg))
      return true;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (auto k = fn.getArgAttrOfType<IntegerAttr>(
            i, ArrDialect::kDonatedFromAttrName);
        k && k.getInt() == int64_t(arg))
      return true;
  return false;
}

bool vmapc::arr::isUnmappedInput(func::FuncOp fn, unsigned arg) {
  if (arg >= fn.getNumArguments() ||
      fn.getArgAttr(arg, ArrDialect::kOutputAttrName) ||
      fn.getArgAttr(arg, ArrDialect::kArenaAttrName))
    return false;
  auto inAxes = fn->getAttrOfType<ArrayAttr>(ArrDialect::kInAxesAttrName);
  // The input's index: the arguments before it that are inputs.
  unsigned index = 0;
  for (unsigned i = 0; i < arg; ++i)
    index += !fn.getArgAttr(i, ArrDialect::kOutputAttrName) &&
             !fn.getArgAttr(i, ArrDialect::kArenaAttrName);
  return inAxes && index < inAxes.size() && isa<UnitAttr>(inAxes[index]);
}

bool vmapc::arr::isEntry(Operation *op) {
  return op && op->hasAttr(ArrDialect::kBatchAttrName);
}

/// Checks an array of axes: integers >= 0 or unit.
static bool isAxisList(Attribute attr) {
  auto axes = dyn_cast<ArrayAttr>(attr);
  return axes && llvm::all_of(axes, [](Attribute a) {
           auto i = dyn_cast<IntegerAttr>(a);
           return isa<UnitAttr>(a) || (i && i.getInt() >= 0);
         });
}

LogicalResult ArrDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kBatchAttrName) {
    auto batch = dyn_cast<IntegerAttr>(attr.getValue());
    // B = 0 is an entry over no examples, which an artifact cannot hold
    // (the manifest reader refuses it) but the compiler batches.
    if (!batch || batch.getInt() < 0 || batch.getInt() > vmapc::kMaxDimSize)
      return op->emitOpError() << "'" << name << "' must be an integer in [0, "
                               << vmapc::kMaxDimSize << "]";
    auto fn = dyn_cast<func::FuncOp>(op);
    if (!fn || fn.isPrivate() || fn.isExternal())
      return op->emitOpError() << "'" << name
                               << "' marks an entry point: a public func.func "
                                  "with a body";
    return success();
  }
  if (name == kInAxesAttrName || name == kOutAxesAttrName) {
    if (!isAxisList(attr.getValue()))
      return op->emitOpError() << "'" << name
                               << "' must be an array of non-negative "
                                  "integers or unit (none)";
    return success();
  }
  if (name == kPlanAttrName) {
    if (!isa<BufferPlanAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a #arr.plan<...> attribute";
    return success();
  }
  return op->emitOpError() << "unknown arr attribute '" << name << "'";
}

/// The attributes of an entry's arguments and results.
static LogicalResult verifyValueAttribute(Operation *op, NamedAttribute attr,
                                          bool isArgument) {
  StringRef name = attr.getName().strref();
  if (name == ArrDialect::kNameAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a string";
    return success();
  }
  if (isArgument && (name == ArrDialect::kOutputAttrName ||
                     name == ArrDialect::kStagingAttrName ||
                     name == ArrDialect::kArenaAttrName)) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  if (name == ArrDialect::kDonatedFromAttrName) {
    auto input = dyn_cast<IntegerAttr>(attr.getValue());
    if (!input || input.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative integer";
    return success();
  }
  if (isArgument && name == ArrDialect::kStagingOffsetAttrName) {
    auto offset = dyn_cast<IntegerAttr>(attr.getValue());
    if (!offset || offset.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative integer";
    return success();
  }
  return op->emitOpError() << "unknown arr "
                           << (isArgument ? "argument" : "result")
                           << " attribute '" << name << "'";
}

LogicalResult ArrDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                   unsigned,
                                                   NamedAttribute attr) {
  return verifyValueAttribute(op, attr, /*isArgument=*/true);
}

LogicalResult ArrDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                      unsigned,
                                                      NamedAttribute attr) {
  return verifyValueAttribute(op, attr, /*isArgument=*/false);
}

Operation *ArrDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
