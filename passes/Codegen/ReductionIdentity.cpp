//===- ReductionIdentity.cpp - where a partial reduction starts -----------===//

#include "passes/Codegen/ReductionIdentity.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

std::optional<TypedAttr> vmapc::reductionIdentityOverride(Operation *combiner) {
  if (combiner->getNumResults() != 1)
    return std::nullopt;
  auto type = dyn_cast<FloatType>(combiner->getResult(0).getType());
  if (!type)
    return std::nullopt;
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  std::optional<APFloat> value =
      llvm::TypeSwitch<Operation *, std::optional<APFloat>>(combiner)
          .Case([&](arith::AddFOp) {
            return APFloat::getZero(semantics, /*Negative=*/true);
          })
          .Case([&](arith::MaxNumFOp) {
            return APFloat::getInf(semantics, /*Negative=*/true);
          })
          .Case([&](arith::MinNumFOp) {
            return APFloat::getInf(semantics, /*Negative=*/false);
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!value)
    return std::nullopt;
  return cast<TypedAttr>(FloatAttr::get(type, *value));
}

std::optional<TypedAttr> vmapc::reductionIdentity(Operation *combiner) {
  if (std::optional<TypedAttr> value = reductionIdentityOverride(combiner))
    return value;
  return arith::getNeutralElement(combiner);
}
