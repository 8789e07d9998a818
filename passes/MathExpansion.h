//===- MathExpansion.h - what --arr-expand-math's files share ---*- C++ -*-===//
//
// Internal to passes/: the builder of elementwise arith ops on f32 (and f64)
// scalars, vectors and ranked tensors that ExpandMath.cpp (exp, log, tanh,
// powf, the roundings) and ExpandMathF64.cpp (sin, cos, log1p, expm1, erf:
// computed in f64 and rounded once) write their approximations with.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_MATHEXPANSION_H
#define VMAPC_PASSES_MATHEXPANSION_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include <cstdint>
#include <optional>

namespace vmapc::math_expansion {

using namespace mlir;
using arith::CmpFPredicate;
using arith::CmpIPredicate;

/// The types expanded here: f32, and vectors (fixed or scalable) and ranked
/// tensors (static or dynamic shape) of f32.
inline bool isF32Like(mlir::Type type) {
  if (isa<VectorType, RankedTensorType>(type))
    return cast<ShapedType>(type).getElementType().isF32();
  return type.isF32();
}

/// Builds elementwise ops on values shaped like `like` (an operand of the op
/// expanded: a scalar, a vector or a ranked tensor); constants are splats of
/// that shape (`tensor.splat` with `like`'s sizes for a dynamic shape).
class Elementwise {
public:
  Elementwise(OpBuilder &builder, Location loc, Value like)
      : builder(builder), loc(loc), like(like) {}

  /// `element` in the operand's shape.
  Type type(Type element) const {
    if (auto shaped = dyn_cast<ShapedType>(like.getType()))
      return shaped.clone(element);
    return element;
  }
  Type f32Type() const { return type(builder.getF32Type()); }
  Type f64Type() const { return type(builder.getF64Type()); }
  Type i32Type() const { return type(builder.getI32Type()); }
  Type i64Type() const { return type(builder.getI64Type()); }

  Value constant(TypedAttr scalar) {
    auto shaped = dyn_cast<ShapedType>(type(scalar.getType()));
    if (!shaped)
      return arith::ConstantOp::create(builder, loc, scalar);
    if (shaped.hasStaticShape())
      return arith::ConstantOp::create(
          builder, loc, shaped,
          DenseElementsAttr::get(shaped, ArrayRef<Attribute>(scalar)));
    Value element = arith::ConstantOp::create(builder, loc, scalar);
    return tensor::SplatOp::create(builder, loc, element, shaped,
                                   dynamicSizes());
  }
  Value f32(double v) {
    return constant(builder.getFloatAttr(builder.getF32Type(), v));
  }
  Value f64(double v) {
    return constant(builder.getFloatAttr(builder.getF64Type(), v));
  }
  Value i32(int64_t v) { return constant(builder.getI32IntegerAttr(v)); }
  Value i64(int64_t v) { return constant(builder.getI64IntegerAttr(v)); }
  Value f32Inf() { return f32(INFINITY); }
  Value f32NaN() { return f32(NAN); }

  Value add(Value a, Value b) {
    return arith::AddFOp::create(builder, loc, a, b);
  }
  Value sub(Value a, Value b) {
    return arith::SubFOp::create(builder, loc, a, b);
  }
  Value mul(Value a, Value b) {
    return arith::MulFOp::create(builder, loc, a, b);
  }
  Value div(Value a, Value b) {
    return arith::DivFOp::create(builder, loc, a, b);
  }
  Value neg(Value a) { return arith::NegFOp::create(builder, loc, a); }
  Value abs(Value a) { return math::AbsFOp::create(builder, loc, a); }
  /// a * b + c, one FMA where the target has it (the `contract` flag).
  Value fma(Value a, Value b, Value c) {
    auto contract = arith::FastMathFlags::contract;
    Value product = arith::MulFOp::create(builder, loc, a, b, contract);
    return arith::AddFOp::create(builder, loc, product, c, contract);
  }
  /// c[0] + x * (c[1] + x * (c[2] + ...)) by Horner's rule, in x's type.
  Value polynomial(Value x, ArrayRef<double> c) {
    bool isF64 = getElementTypeOrSelf(x).isF64();
    auto coefficient = [&](double v) { return isF64 ? f64(v) : f32(v); };
    Value result = coefficient(c.back());
    for (double v : llvm::reverse(c.drop_back()))
      result = fma(result, x, coefficient(v));
    return result;
  }

  Value cmp(CmpFPredicate predicate, Value a, Value b) {
    return arith::CmpFOp::create(builder, loc, predicate, a, b);
  }
  Value cmpi(CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, predicate, a, b);
  }
  Value isNaN(Value a) { return cmp(CmpFPredicate::UNO, a, a); }
  Value select(Value condition, Value t, Value f) {
    return arith::SelectOp::create(builder, loc, condition, t, f);
  }
  Value andi(Value a, Value b) {
    return arith::AndIOp::create(builder, loc, a, b);
  }
  Value ori(Value a, Value b) {
    return arith::OrIOp::create(builder, loc, a, b);
  }
  Value addi(Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b);
  }
  Value subi(Value a, Value b) {
    return arith::SubIOp::create(builder, loc, a, b);
  }
  Value shli(Value a, Value b) {
    return arith::ShLIOp::create(builder, loc, a, b);
  }
  Value shrsi(Value a, Value b) {
    return arith::ShRSIOp::create(builder, loc, a, b);
  }
  Value shrui(Value a, Value b) {
    return arith::ShRUIOp::create(builder, loc, a, b);
  }

  Value bitcast(Type resultType, Value a) {
    return arith::BitcastOp::create(builder, loc, resultType, a);
  }
  Value trunci(Value a) {
    return arith::TruncIOp::create(builder, loc, i32Type(), a);
  }
  Value copysign(Value magnitude, Value sign) {
    return math::CopySignOp::create(builder, loc, magnitude, sign);
  }
  Value extf(Value a) {
    return arith::ExtFOp::create(builder, loc, f64Type(), a);
  }
  Value truncf(Value a) {
    return arith::TruncFOp::create(builder, loc, f32Type(), a);
  }
  Value sitofp(Type resultType, Value a) {
    return arith::SIToFPOp::create(builder, loc, resultType, a);
  }
  Value fptosi(Value a) {
    return arith::FPToSIOp::create(builder, loc, i32Type(), a);
  }

  /// The f32 2^k for i32 k in [-126, 127], from its bits.
  Value f32PowerOfTwo(Value k) {
    Value biased = addi(k, i32(127));
    return bitcast(f32Type(), shli(biased, i32(23)));
  }

private:
  /// The dynamic sizes of `like` (a tensor), made once, where first needed.
  ValueRange dynamicSizes() {
    if (!sizes) {
      sizes.emplace();
      auto tensorType = cast<RankedTensorType>(like.getType());
      for (int64_t i = 0; i < tensorType.getRank(); ++i)
        if (tensorType.isDynamicDim(i))
          sizes->push_back(tensor::DimOp::create(builder, loc, like, i));
    }
    return *sizes;
  }

  OpBuilder &builder;
  Location loc;
  Value like;
  std::optional<SmallVector<Value>> sizes;
};

/// Adds the patterns of ExpandMathF64.cpp: math.sin, math.cos, math.log1p,
/// math.expm1 and math.erf on f32 (docs/math.md has their bounds).
void populateF64Approximations(RewritePatternSet &patterns);

} // namespace vmapc::math_expansion

#endif // VMAPC_PASSES_MATHEXPANSION_H
