//===- Interpreter.h - the oracle: an interpreter of arr ------*- C++ -*-===//
//
// An interpreter of `func.func`s of arr ops on host arrays, written
// independently of the lowering and of `--arr-vmap`: it is the reference the
// batched and compiled programs are compared with (the batching invariant,
// docs/design.md "Testing").
//
// Numbers. Every element is held as a double, whatever its dtype:
//   - f32 ops are computed in double precision and NOT rounded to f32 between
//     ops (inputs and constants are f32 values, so the first op is exact up to
//     double rounding). Compare f32 results with a tolerance.
//   - Discrete decisions on f32 data (`arr.cmp`, `arr.argmin`, `arr.argmax`,
//     `arr.sign`, `arr.convert` to i32 or bool) are taken on the values
//     rounded to f32 first (`(double)(float)x`), so
//     that a double-only difference does not flip them.
//   - i32 ops are exact and wrap modulo 2^32 as two's complement (add, sub,
//     mul, neg, reduce_sum, dot_general); `arr.div` truncates toward zero as
//     C does; division by zero is an error (undefined in the language).
//   - bool (i1) elements are 0.0 or 1.0.
//   - reduce_max/reduce_min propagate NaN; argmin/argmax pick the first NaN
//     if there is one (numpy), else the lowest index among equal extremes.
//
// Per-op rules of the elementwise, shape and loop ops:
//   - `arr.abs`: |x|; i32 wraps, so abs(INT32_MIN) = INT32_MIN (as neg).
//   - `arr.sign`: i32 -1/0/1; f32: 1 if x > 0, -1 if x < 0, else x itself
//     (0 -> 0, -0 -> -0, NaN -> NaN), decided on the f32-rounded value.
//   - `arr.not`, `arr.and`, `arr.or`: logic on bools (0.0 / 1.0).
//   - `arr.maximum` / `arr.minimum`: f32 gives NaN if either operand is NaN
//     (JAX's lax.max/min), else the larger/smaller (either one on a tie);
//     i32 exact.
//   - `arr.pow`: C's powf computed in double, `std::pow(x, y)` (so a
//     negative base with a non-integer exponent is NaN, pow(0, -1) = inf).
//   - `arr.select %c, %a, %b`: c ? a : b elementwise.
//   - `arr.convert` (S -> T): same dtype: identity. f32 -> i32: the value
//     rounded to f32, truncated toward zero, saturated at [INT32_MIN,
//     INT32_MAX]; NaN -> 0 (so -2.5 -> -2, 3e9 -> INT32_MAX). i32 -> f32:
//     rounded to the nearest f32, ties to even (2^24 + 1 -> 2^24).
//     bool -> f32/i32: 1 or 0. f32/i32 -> bool: x != 0 (f32 decided on the
//     f32-rounded value; NaN -> true).
//   - `arr.concat ..., dim = d`: the pieces one after the other along d.
//   - `arr.slice %x, start = s, stride = t`: result[i] = x[s + t * i] per
//     dimension (t may be negative); a zero stride or an index out of
//     bounds is an error. An empty result (a size-0 batch dimension of a
//     batched program over 0 examples) reads nothing and is allowed.
//   - `arr.iota dim = d`: element [i0, ...] is i_d (as i32 or f32).
//   - `arr.for N consts(...) iter_args(...)`: the body block runs N times
//     (N = 0: the results are the inits); iteration i binds the block
//     arguments to (i as a tensor<i32> scalar, the consts, the carries) and
//     `arr.yield` gives the next carries; the results are the last carries.
//     The body is interpreted like a function body, so `func.call` and
//     `arr.vmap_call` inside it work (callees are looked up from the op).
//   - `arr.gather %x[%i], axis = a, batch_dims = n, mode = m`: result
//     [b, o, j, s] = x[b, o, index(i[b, j]), s] (ArrOps.td). For a dimension
//     of size d: clamp adds d to a negative index, then clamps into [0, d);
//     clip clamps the index as given; fill adds d to a negative index and
//     reads NaN (f32), INT32_MIN (i32) or true (bool) where it is still out
//     of [0, d).
//   - `arr.scatter %x[%i], %u, axis = a, batch_dims = n, kind = k`: x with,
//     for every index position (b, j) in row-major order, result[b, o, i, s]
//     = combine(result[b, o, i, s], u[b, o, j, s]), where i = i[b, j] plus d
//     when negative; an i still out of [0, d) drops its update. combine is
//     the update (set: of duplicates the last wins), +, * (i32 wraps), or
//     minimum / maximum (NaN-propagating on f32). add, mul, min and max on
//     bool are an error.
//
// vmap. `arr.vmap_call` is evaluated by its definition, a loop: for each i in
// [0, axis_size), mapped operands are sliced at i on their in axis, unmapped
// operands are passed as they are, the callee is evaluated, and the results
// are stacked along out_axes. A result with out axis `unit` must be the same
// for every i (it is checked) and is taken from i = 0; over 0 examples it is
// evaluated on a dummy example whose mapped operands are all ones.
//
// Errors (an op the interpreter does not know, a wrong argument shape, ...)
// are returned as llvm::Error with the op's name and location; nothing
// aborts.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_ORACLE_INTERPRETER_H
#define VMAPC_TEST_ORACLE_INTERPRETER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vmapc::oracle {

/// The element types of the arr language.
enum class DType { F32, I32, Bool };

/// "f32", "i32" or "bool".
const char *dtypeName(DType dtype);

/// The dtype of an MLIR element type (f32, i32, i1), or nullopt.
std::optional<DType> dtypeOf(mlir::Type elementType);

/// A dense host array in row-major order; every element is a double (see the
/// file comment for what that means per dtype). A scalar has an empty shape
/// and one element.
struct Array {
  DType dtype = DType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<double> values;

  Array() = default;
  Array(DType dtype, llvm::ArrayRef<int64_t> shape, std::vector<double> values)
      : dtype(dtype), shape(shape), values(std::move(values)) {}

  /// An array of `shape` filled with `fill`.
  static Array filled(DType dtype, llvm::ArrayRef<int64_t> shape,
                      double fill = 0.0);
  /// A scalar (0-d) array.
  static Array scalar(DType dtype, double value) {
    return Array(dtype, {}, {value});
  }

  /// An array read from a host buffer of `shape` in row-major order: `float`
  /// for f32, `int32_t` for i32, one byte (0 or not 0) per bool.
  static Array fromBuffer(DType dtype, llvm::ArrayRef<int64_t> shape,
                          const void *data);
  /// Writes the elements to a host buffer in the layout of `fromBuffer`
  /// (f32 values rounded to float).
  void toBuffer(void *data) const;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numElements() const { return static_cast<int64_t>(values.size()); }

  /// Element at a multi-index (no bounds checks beyond assertions).
  double at(llvm::ArrayRef<int64_t> index) const;

  /// Whether `type` (a ranked tensor type) has this array's shape and dtype.
  bool matches(mlir::Type type) const;

  /// e.g. "f32[2x3] [1, 2, 3, 4, 5, 6]" (values elided past `maxValues`).
  std::string toString(int64_t maxValues = 16) const;
};

/// Row-major strides of `shape` (in elements).
llvm::SmallVector<int64_t, 4> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// Element i of `array` along `axis`: the array without that dimension.
Array sliceAxis(const Array &array, int64_t axis, int64_t i);

/// Stacks `pieces` (all of one shape and dtype) along a new dimension `axis`
/// of the result. `pieceShape`/`dtype` give the result shape when `pieces`
/// is empty.
Array stackAxis(llvm::ArrayRef<Array> pieces, int64_t axis,
                llvm::ArrayRef<int64_t> pieceShape, DType dtype);

/// A deterministic random array of `type` (a ranked tensor type of f32, i32
/// or i1): f32 uniform in [-1, 1) (exact f32 values), i32 uniform in
/// [-20, 20] without 0 (so it is always a valid divisor), bool 0/1.
Array randomArray(mlir::Type type, uint64_t seed);

/// Random arrays for every input of `fn`, from seeds `seed`, `seed + 1`, ...
std::vector<Array> randomInputs(mlir::func::FuncOp fn, uint64_t seed);

/// Whether `actual` equals `expected`: same dtype and shape; f32 elements
/// within `atol + rtol * |expected|` (NaN equals NaN); i32 and bool exactly.
/// On a mismatch, `why` (if given) says where.
bool allClose(const Array &expected, const Array &actual, double rtol = 1e-5,
              double atol = 1e-6, std::string *why = nullptr);

/// Evaluates `fn` on `args`, op by op. Callees of `func.call` and
/// `arr.vmap_call` are looked up in the symbol table around `fn`.
llvm::Expected<std::vector<Array>> evaluate(mlir::func::FuncOp fn,
                                            llvm::ArrayRef<Array> args);

/// Evaluates the function named `name` in `module`.
llvm::Expected<std::vector<Array>> evaluate(mlir::ModuleOp module,
                                            llvm::StringRef name,
                                            llvm::ArrayRef<Array> args);

/// vmap by its definition: evaluates `callee` on example i for each i in
/// [0, axisSize) (operand j sliced at inAxes[j], or passed whole when it is
/// nullopt) and stacks result j along outAxes[j] (nullopt: the same for every
/// example, taken from example 0, or from a dummy example of ones when
/// axisSize is 0).
llvm::Expected<std::vector<Array>>
evaluateMapped(mlir::func::FuncOp callee, llvm::ArrayRef<Array> args,
               llvm::ArrayRef<std::optional<int64_t>> inAxes,
               llvm::ArrayRef<std::optional<int64_t>> outAxes,
               int64_t axisSize);

/// The per-example reference of an EXPORTED entry: a public func.func whose
/// body is one `arr.vmap_call` of a per-example function f and which carries
/// `arr.batch`, `arr.in_axes` and `arr.out_axes`. `batchedArgs` hold N
/// examples on their in axes (N may differ from `arr.batch`; N is `arr.batch`
/// when no input is mapped): f is evaluated on each example and the results
/// are stacked along out_axes. Must be called on the module BEFORE
/// `--arr-vmap` (f must still exist).
llvm::Expected<std::vector<Array>>
evaluatePerExample(mlir::func::FuncOp exported,
                   llvm::ArrayRef<Array> batchedArgs);

/// The per-example function f of an exported entry (the callee of the single
/// arr.vmap_call in its body), or an error.
llvm::Expected<mlir::func::FuncOp>
perExampleFunction(mlir::func::FuncOp exported);

/// `arr.in_axes` / `arr.out_axes` of an exported entry (an integer or `unit`
/// per input/result), or an error when missing or malformed.
llvm::Expected<llvm::SmallVector<std::optional<int64_t>>>
exportAxes(mlir::func::FuncOp exported, llvm::StringRef attrName);

} // namespace vmapc::oracle

#endif // VMAPC_TEST_ORACLE_INTERPRETER_H
