//===- Utils.cpp - helpers shared by the arr to linalg patterns -----------===//

#include "passes/ArrToLinalg/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

using namespace mlir;

Value vmapc::createEmptyTensor(OpBuilder &b, Location loc,
                               RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value vmapc::copyIntoNewTensor(OpBuilder &b, Location loc, Value value) {
  Value empty =
      createEmptyTensor(b, loc, cast<RankedTensorType>(value.getType()));
  return linalg::CopyOp::create(b, loc, value, empty).getResult(0);
}

Value vmapc::createFilledTensor(OpBuilder &b, Location loc,
                                RankedTensorType type, TypedAttr value) {
  Value empty = createEmptyTensor(b, loc, type);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

TypedAttr vmapc::getExtremeValue(Type elementType, bool positive) {
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(floatType,
                          llvm::APFloat::getInf(floatType.getFloatSemantics(),
                                                /*Negative=*/!positive));
  unsigned width = elementType.getIntOrFloatBitWidth();
  return IntegerAttr::get(elementType,
                          positive ? llvm::APInt::getSignedMaxValue(width)
                                   : llvm::APInt::getSignedMinValue(width));
}

AffineMap vmapc::getIdentityMap(MLIRContext *ctx, unsigned n) {
  return AffineMap::getMultiDimIdentityMap(n, ctx);
}
