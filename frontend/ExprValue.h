//===- ExprValue.h - the value of an expression during import ---*- C++ -*-===//
//
// An evaluated `.arr` expression: a tensor (an SSA value of the arr dialect),
// a weakly typed literal that takes its dtype from the operand next to it
// (JAX's weak types), or a tuple of values (a tuple expression or the
// results of a call). Literals become `arr.constant`s only where their dtype
// and shape are known (Typing::materialize).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_EXPRVALUE_H
#define VMAPC_FRONTEND_EXPRVALUE_H

#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace vmapc::frontend {

struct ExprValue {
  /// `arrayLit` is a weakly typed literal array; `tuple` is several values,
  /// for `let (a, b) = ...`, `return` and `yield`.
  enum Kind { tensor, intLit, floatLit, arrayLit, tuple } kind = tensor;
  mlir::Value value;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text; // the literal as written, for messages
  // A literal array: its shape and elements (row-major).
  llvm::SmallVector<int64_t> shape;
  std::vector<int64_t> intValues;
  std::vector<double> floatValues;
  bool isFloatArray = false;
  std::vector<ExprValue> elements; // for `tuple`

  /// A scalar literal (weakly typed, takes the other operand's shape).
  bool isLiteral() const { return kind == intLit || kind == floatLit; }
  /// Not yet a tensor: a scalar literal or a literal array.
  bool isWeak() const { return isLiteral() || kind == arrayLit; }
  /// A literal's value as a double.
  double asDouble() const {
    return kind == intLit ? double(intValue) : floatValue;
  }
  static ExprValue ofTensor(mlir::Value v) {
    ExprValue o;
    o.value = v;
    return o;
  }
  static ExprValue ofInt(int64_t v, std::string text) {
    ExprValue o;
    o.kind = intLit;
    o.intValue = v;
    o.text = std::move(text);
    return o;
  }
  static ExprValue ofFloat(double v, std::string text) {
    ExprValue o;
    o.kind = floatLit;
    o.floatValue = v;
    o.text = std::move(text);
    return o;
  }
  static ExprValue ofTuple(std::vector<ExprValue> elements) {
    ExprValue o;
    o.kind = tuple;
    o.elements = std::move(elements);
    return o;
  }
  static ExprValue ofValues(mlir::ValueRange values) {
    if (values.size() == 1)
      return ofTensor(values[0]);
    std::vector<ExprValue> elements;
    for (mlir::Value v : values)
      elements.push_back(ofTensor(v));
    return ofTuple(std::move(elements));
  }
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_EXPRVALUE_H
