//===- Interpreter.cpp - the oracle: a plain interpreter of arr programs --===//
//
// Straightforward on purpose: one function per op family, index arithmetic
// through one strided loop (`forEachIndex`), no per-element allocation.
//
//===----------------------------------------------------------------------===//

#include "test/oracle/Interpreter.h"

#include "dialect/ArrDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace mlir;
using namespace vmapc;
using namespace vmapc::oracle;
using llvm::Expected;

//===----------------------------------------------------------------------===//
// Array
//===----------------------------------------------------------------------===//

const char *oracle::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

std::optional<DType> oracle::dtypeOf(Type elementType) {
  if (elementType.isF32())
    return DType::F32;
  if (elementType.isInteger(32))
    return DType::I32;
  if (elementType.isInteger(1))
    return DType::Bool;
  return std::nullopt;
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

Array Array::filled(DType dtype, ArrayRef<int64_t> shape, double fill) {
  return Array(dtype, shape,
               std::vector<double>(static_cast<size_t>(product(shape)), fill));
}

Array Array::fromBuffer(DType dtype, ArrayRef<int64_t> shape,
                        const void *data) {
  Array result = filled(dtype, shape);
  for (size_t i = 0; i < result.values.size(); ++i) {
    switch (dtype) {
    case DType::F32:
      result.values[i] = static_cast<const float *>(data)[i];
      break;
    case DType::I32:
      result.values[i] = static_cast<const int32_t *>(data)[i];
      break;
    case DType::Bool:
      result.values[i] = static_cast<const uint8_t *>(data)[i] ? 1.0 : 0.0;
      break;
    }
  }
  return result;
}

void Array::toBuffer(void *data) const {
  for (size_t i = 0; i < values.size(); ++i) {
    switch (dtype) {
    case DType::F32:
      static_cast<float *>(data)[i] = static_cast<float>(values[i]);
      break;
    case DType::I32:
      static_cast<int32_t *>(data)[i] = static_cast<int32_t>(values[i]);
      break;
    case DType::Bool:
      static_cast<uint8_t *>(data)[i] = values[i] != 0.0 ? 1 : 0;
      break;
    }
  }
}

SmallVector<int64_t, 4> oracle::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

double Array::at(ArrayRef<int64_t> index) const {
  assert(index.size() == shape.size() && "index rank mismatch");
  SmallVector<int64_t, 4> strides = rowMajorStrides(shape);
  int64_t offset = 0;
  for (auto [i, s] : llvm::zip(index, strides)) {
    assert(i >= 0 && "negative index");
    offset += i * s;
  }
  return values[static_cast<size_t>(offset)];
}

bool Array::matches(Type type) const {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && dtypeOf(tensor.getElementType()) == dtype &&
         tensor.getShape() == ArrayRef<int64_t>(shape);
}

static std::string shapeString(DType dtype, ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << dtypeName(dtype) << "[";
  llvm::interleave(shape, os, "x");
  os << "]";
  return s;
}

std::string Array::toString(int64_t maxValues) const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << shapeString(dtype, shape) << " [";
  for (int64_t i = 0; i < numElements() && i < maxValues; ++i)
    os << (i ? ", " : "") << values[i];
  if (numElements() > maxValues)
    os << ", ... (" << numElements() << " values)";
  os << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// The strided loop
//===----------------------------------------------------------------------===//

/// Calls `body(a, b)` for every index of `shape` in row-major order, where
/// a = aOffset + sum(index[d] * aStrides[d]) and likewise b. A stride of 0
/// repeats (broadcasts); strides of a transposed or sliced view read it in
/// place.
template <typename Fn>
static void forEachIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> aStrides,
                         int64_t aOffset, ArrayRef<int64_t> bStrides,
                         int64_t bOffset, Fn &&body) {
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t n = product(shape);
  if (n == 0)
    return;
  SmallVector<int64_t, 8> index(rank, 0);
  int64_t a = aOffset, b = bOffset;
  for (int64_t k = 0; k < n; ++k) {
    body(a, b);
    for (int64_t d = rank - 1; d >= 0; --d) {
      ++index[d];
      a += aStrides[d];
      b += bStrides[d];
      if (index[d] < shape[d])
        break;
      a -= aStrides[d] * shape[d];
      b -= bStrides[d] * shape[d];
      index[d] = 0;
    }
  }
}

/// `shape` without dimension `axis`, and the matching strides.
static void dropAxis(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                     int64_t axis, SmallVectorImpl<int64_t> &outShape,
                     SmallVectorImpl<int64_t> &outStrides) {
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d == axis)
      continue;
    outShape.push_back(shape[d]);
    outStrides.push_back(strides[d]);
  }
}

Array oracle::sliceAxis(const Array &array, int64_t axis, int64_t i) {
  assert(axis >= 0 && axis < array.rank() && i >= 0 && i < array.shape[axis]);
  SmallVector<int64_t, 4> strides = rowMajorStrides(array.shape);
  SmallVector<int64_t, 4> shape, srcStrides;
  dropAxis(array.shape, strides, axis, shape, srcStrides);
  Array result = Array::filled(array.dtype, shape);
  SmallVector<int64_t, 4> dstStrides = rowMajorStrides(shape);
  forEachIndex(
      shape, srcStrides, i * strides[axis], dstStrides, 0,
      [&](int64_t a, int64_t b) { result.values[b] = array.values[a]; });
  return result;
}

Array oracle::stackAxis(ArrayRef<Array> pieces, int64_t axis,
                        ArrayRef<int64_t> pieceShape, DType dtype) {
  SmallVector<int64_t, 4> shape(pieceShape);
  assert(axis >= 0 && axis <= static_cast<int64_t>(shape.size()));
  shape.insert(shape.begin() + axis, static_cast<int64_t>(pieces.size()));
  Array result = Array::filled(dtype, shape);
  SmallVector<int64_t, 4> strides = rowMajorStrides(shape);
  SmallVector<int64_t, 4> innerShape, dstStrides;
  dropAxis(shape, strides, axis, innerShape, dstStrides);
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(innerShape);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Array &piece = pieces[i];
    assert(piece.shape == innerShape && piece.dtype == dtype);
    forEachIndex(
        innerShape, srcStrides, 0, dstStrides,
        static_cast<int64_t>(i) * strides[axis],
        [&](int64_t a, int64_t b) { result.values[b] = piece.values[a]; });
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Random inputs and comparison
//===----------------------------------------------------------------------===//

Array oracle::randomArray(Type type, uint64_t seed) {
  auto tensor = cast<RankedTensorType>(type);
  DType dtype = *dtypeOf(tensor.getElementType());
  Array result = Array::filled(dtype, tensor.getShape());
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(-20, 19);
  for (double &v : result.values) {
    switch (dtype) {
    case DType::F32:
      v = static_cast<double>(real(rng));
      break;
    case DType::I32: {
      int x = integer(rng);
      v = x >= 0 ? x + 1 : x;
      break;
    }
    case DType::Bool:
      v = static_cast<double>(rng() & 1);
      break;
    }
  }
  return result;
}

std::vector<Array> oracle::randomInputs(func::FuncOp fn, uint64_t seed) {
  std::vector<Array> inputs;
  for (Type t : fn.getFunctionType().getInputs())
    inputs.push_back(randomArray(t, seed++));
  return inputs;
}

bool oracle::allClose(const Array &expected, const Array &actual, double rtol,
                      double atol, std::string *why) {
  auto fail = [&](const Twine &msg) {
    if (why)
      *why = msg.str();
    return false;
  };
  if (expected.dtype != actual.dtype || expected.shape != actual.shape)
    return fail("expected " + shapeString(expected.dtype, expected.shape) +
                ", got " + shapeString(actual.dtype, actual.shape));
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    double e = expected.values[i], a = actual.values[i];
    bool ok;
    if (expected.dtype == DType::F32)
      ok = (std::isnan(e) && std::isnan(a)) || e == a ||
           std::fabs(e - a) <= atol + rtol * std::fabs(e);
    else
      ok = e == a;
    if (!ok) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "element " << i << " of "
         << shapeString(expected.dtype, expected.shape) << ": expected " << e
         << ", got " << a;
      return fail(s);
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The evaluator
//===----------------------------------------------------------------------===//

namespace {

using Results = std::vector<Array>;

llvm::Error makeError(const Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

std::string locString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  loc.print(os);
  return s;
}

/// An error about `op`: its name, location and `msg`.
llvm::Error opError(Operation *op, const Twine &msg) {
  return makeError("'" + op->getName().getStringRef() + "' at " +
                   locString(op->getLoc()) + ": " + msg);
}

/// Wraps an integer value to i32 (two's complement).
double wrapI32(double v) {
  auto wide = static_cast<int64_t>(v);
  return static_cast<double>(
      static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(wide))));
}

/// The value a discrete decision (compare, arg-reduce) sees.
double decisionValue(DType dtype, double v) {
  return dtype == DType::F32 ? static_cast<double>(static_cast<float>(v)) : v;
}

Results one(Array a) {
  Results r;
  r.push_back(std::move(a));
  return r;
}

RankedTensorType resultType(Operation *op, unsigned i = 0) {
  return cast<RankedTensorType>(op->getResult(i).getType());
}

DType resultDType(Operation *op) {
  return *dtypeOf(resultType(op).getElementType());
}

class Evaluator {
public:
  using BatchDimT = std::optional<int64_t>;
  Expected<Results> call(func::FuncOp fn, Results args);
  Expected<Results> mapped(func::FuncOp callee, ArrayRef<Array> args,
                           ArrayRef<BatchDimT> inAxes,
                           ArrayRef<BatchDimT> outAxes, int64_t axisSize);

private:
  Expected<Results> evalOp(Operation *op, ArrayRef<const Array *> operands);

  Expected<Results> constant(arr::ConstantOp op);
  template <typename Fn>
  Expected<Results> unary(Operation *op, const Array &x, Fn fn);
  template <typename Fn>
  Expected<Results> binary(Operation *op, const Array &x, const Array &y,
                           Fn fn);
  Expected<Results> divide(arr::DivOp op, const Array &x, const Array &y);
  Expected<Results> compare(arr::CmpOp op, const Array &x, const Array &y);
  Expected<Results> broadcastInDim(arr::BroadcastInDimOp op, const Array &x);
  Expected<Results> transpose(arr::TransposeOp op, const Array &x);
  Expected<Results> reshape(arr::ReshapeOp op, const Array &x);
  enum class ReduceKind { Sum, Max, Min };
  Expected<Results> reduce(Operation *op, ArrayRef<int64_t> dims,
                           const Array &x, ReduceKind kind);
  Expected<Results> argReduce(Operation *op, int64_t axis, const Array &x,
                              bool isMin);
  Expected<Results> dotGeneral(arr::DotGeneralOp op, const Array &lhs,
                               const Array &rhs);
  Expected<Results> funcCall(func::CallOp op, ArrayRef<const Array *> args);
  Expected<Results> vmapCall(arr::VmapCallOp op, ArrayRef<const Array *> args);
  // abs, sign, maximum, minimum, pow, select, convert, concat, slice, iota.
  Expected<Results> select(Operation *op, const Array &c, const Array &a,
                           const Array &b);
  Expected<Results> convert(Operation *op, const Array &x);
  Expected<Results> concat(arr::ConcatOp op, ArrayRef<const Array *> pieces);
  Expected<Results> slice(arr::SliceOp op, const Array &x);
  Expected<Results> iota(arr::IotaOp op);
  Expected<Results> forLoop(arr::ForOp op, ArrayRef<const Array *> operands);
  Expected<Results> gather(arr::GatherOp op, const Array &x,
                           const Array &indices);
  Expected<Results> scatter(arr::ScatterOp op, const Array &x,
                            const Array &indices, const Array &updates);

  /// Runs the ops of `block` (its arguments bound to `args`) up to its
  /// terminator (`func.return` or `arr.yield`) and returns the terminator's
  /// operands.
  Expected<Results> runBlock(Block &block, Results args);

  SymbolTableCollection symbols;
  int depth = 0;
};

} // namespace

Expected<Results> Evaluator::call(func::FuncOp fn, Results args) {
  if (fn.isExternal())
    return opError(fn, "function '" + fn.getSymName() + "' has no body");
  if (!fn.getBody().hasOneBlock())
    return opError(fn, "function '" + fn.getSymName() +
                           "' has more than one block");
  FunctionType type = fn.getFunctionType();
  if (args.size() != type.getNumInputs())
    return opError(fn, "function '" + fn.getSymName() + "' takes " +
                           Twine(type.getNumInputs()) + " arguments, got " +
                           Twine(args.size()));
  for (auto [i, arg] : llvm::enumerate(args)) {
    if (!arg.matches(type.getInput(i))) {
      std::string expected;
      llvm::raw_string_ostream os(expected);
      os << type.getInput(i);
      return opError(fn, "argument " + Twine(i) + " of '" + fn.getSymName() +
                             "' is " + shapeString(arg.dtype, arg.shape) +
                             ", expected " + expected);
    }
  }
  if (depth > 64)
    return opError(fn, "calls nested too deeply (recursion?)");
  ++depth;
  llvm::scope_exit restoreDepth([&] { --depth; });

  return runBlock(fn.getBody().front(), std::move(args));
}

Expected<Results> Evaluator::runBlock(Block &body, Results args) {
  if (args.size() != body.getNumArguments())
    return opError(body.getParentOp(),
                   "internal: " + Twine(args.size()) + " values for " +
                       Twine(body.getNumArguments()) + " block arguments");
  llvm::DenseMap<Value, Array> env;
  for (auto [arg, value] : llvm::zip(body.getArguments(), args))
    env[arg] = std::move(value);
  // A value is dropped after its last use, so that large intermediates of a
  // batched program do not pile up.
  llvm::DenseMap<Value, Operation *> lastUser;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      lastUser[v] = &op;

  SmallVector<const Array *, 4> operands;
  for (Operation &op : body) {
    operands.clear();
    for (Value v : op.getOperands()) {
      auto it = env.find(v);
      if (it == env.end())
        return opError(&op, "operand defined outside the body being run");
      operands.push_back(&it->second);
    }
    if (isa<func::ReturnOp, arr::YieldOp>(op)) {
      Results results;
      for (const Array *a : operands)
        results.push_back(*a);
      return results;
    }
    Expected<Results> results = evalOp(&op, operands);
    if (!results)
      return results.takeError();
    if (results->size() != op.getNumResults())
      return opError(&op, "internal: interpreter gave " +
                              Twine(results->size()) + " results");
    for (auto [value, array] : llvm::zip(op.getResults(), *results)) {
      if (!array.matches(value.getType())) {
        std::string expected;
        llvm::raw_string_ostream os(expected);
        os << value.getType();
        return opError(&op, "internal: interpreter gave " +
                                shapeString(array.dtype, array.shape) +
                                " for a result of type " + expected);
      }
      env[value] = std::move(array);
    }
    for (Value v : op.getOperands())
      if (lastUser.lookup(v) == &op)
        env.erase(v);
  }
  return opError(body.getParentOp(), "a block without a terminator");
}

Expected<Results> Evaluator::evalOp(Operation *op,
                                    ArrayRef<const Array *> operands) {
  using namespace arr;
  auto x = [&]() -> const Array & { return *operands[0]; };
  auto y = [&]() -> const Array & { return *operands[1]; };
  auto isInt = [&]() { return x().dtype == DType::I32; };
  return llvm::TypeSwitch<Operation *, Expected<Results>>(op)
      .Case([&](ConstantOp c) { return constant(c); })
      // Elementwise, unary.
      .Case([&](NegOp) {
        bool i = isInt();
        return unary(op, x(), [i](double v) { return i ? wrapI32(-v) : -v; });
      })
      .Case([&](ExpOp) {
        return unary(op, x(), [](double v) { return std::exp(v); });
      })
      .Case([&](LogOp) {
        return unary(op, x(), [](double v) { return std::log(v); });
      })
      .Case([&](TanhOp) {
        return unary(op, x(), [](double v) { return std::tanh(v); });
      })
      .Case([&](SqrtOp) {
        return unary(op, x(), [](double v) { return std::sqrt(v); });
      })
      .Case([&](SinOp) {
        return unary(op, x(), [](double v) { return std::sin(v); });
      })
      .Case([&](CosOp) {
        return unary(op, x(), [](double v) { return std::cos(v); });
      })
      .Case([&](Log1pOp) {
        return unary(op, x(), [](double v) { return std::log1p(v); });
      })
      .Case([&](Expm1Op) {
        return unary(op, x(), [](double v) { return std::expm1(v); });
      })
      .Case([&](ErfOp) {
        return unary(op, x(), [](double v) { return std::erf(v); });
      })
      // The roundings decide on the f32 value (a double just below an
      // integer may be that integer in f32); round is half to even
      // (std::nearbyint in the default rounding mode), as jnp.round.
      .Case([&](FloorOp) {
        return unary(op, x(), [](double v) {
          return std::floor(decisionValue(DType::F32, v));
        });
      })
      .Case([&](CeilOp) {
        return unary(op, x(), [](double v) {
          return std::ceil(decisionValue(DType::F32, v));
        });
      })
      .Case([&](RoundOp) {
        return unary(op, x(), [](double v) {
          return std::nearbyint(decisionValue(DType::F32, v));
        });
      })
      // Elementwise, binary.
      .Case([&](AddOp) {
        bool i = isInt();
        return binary(op, x(), y(), [i](double a, double b) {
          return i ? wrapI32(a + b) : a + b;
        });
      })
      .Case([&](SubOp) {
        bool i = isInt();
        return binary(op, x(), y(), [i](double a, double b) {
          return i ? wrapI32(a - b) : a - b;
        });
      })
      .Case([&](MulOp) {
        bool i = isInt();
        return binary(op, x(), y(), [i](double a, double b) {
          // Exact for |a|, |b| < 2^31 only up to 2^53; wrap via int64.
          return i ? wrapI32(static_cast<double>(static_cast<int64_t>(a) *
                                                 static_cast<int64_t>(b)))
                   : a * b;
        });
      })
      .Case([&](DivOp d) { return divide(d, x(), y()); })
      // abs, sign, maximum, minimum, pow, and, or, not, select, convert.
      .Case([&](AbsOp) {
        bool i = isInt();
        // i32: |INT32_MIN| wraps to INT32_MIN, as negation does.
        return unary(op, x(), [i](double v) {
          return i ? wrapI32(std::fabs(v)) : std::fabs(v);
        });
      })
      .Case([&](SignOp) {
        bool i = isInt();
        return unary(op, x(), [i](double v) {
          if (i)
            return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0;
          // The decision is taken on the f32 value; 0, -0 and NaN are kept
          // (as f32: a double too small for f32 becomes a signed zero).
          double f = decisionValue(DType::F32, v);
          return f > 0 ? 1.0 : f < 0 ? -1.0 : f;
        });
      })
      .Case([&](NotOp) {
        return unary(op, x(), [](double v) { return v != 0 ? 0.0 : 1.0; });
      })
      .Case([&](MaximumOp) {
        return binary(op, x(), y(), [](double a, double b) {
          if (std::isnan(a) || std::isnan(b))
            return std::numeric_limits<double>::quiet_NaN();
          return a > b ? a : b;
        });
      })
      .Case([&](MinimumOp) {
        return binary(op, x(), y(), [](double a, double b) {
          if (std::isnan(a) || std::isnan(b))
            return std::numeric_limits<double>::quiet_NaN();
          return a < b ? a : b;
        });
      })
      .Case([&](PowOp) {
        return binary(op, x(), y(),
                      [](double a, double b) { return std::pow(a, b); });
      })
      .Case([&](AndOp) {
        return binary(op, x(), y(), [](double a, double b) {
          return a != 0 && b != 0 ? 1.0 : 0.0;
        });
      })
      .Case([&](OrOp) {
        return binary(op, x(), y(), [](double a, double b) {
          return a != 0 || b != 0 ? 1.0 : 0.0;
        });
      })
      .Case([&](SelectOp) {
        return select(op, *operands[0], *operands[1], *operands[2]);
      })
      .Case([&](ConvertOp) { return convert(op, x()); })
      .Case([&](CmpOp c) { return compare(c, x(), y()); })
      // Shapes.
      .Case([&](BroadcastInDimOp b) { return broadcastInDim(b, x()); })
      .Case([&](TransposeOp t) { return transpose(t, x()); })
      .Case([&](ReshapeOp r) { return reshape(r, x()); })
      .Case([&](ConcatOp c) { return concat(c, operands); })
      .Case([&](SliceOp sl) { return slice(sl, x()); })
      .Case([&](IotaOp io) { return iota(io); })
      // Loops.
      .Case([&](ForOp f) { return forLoop(f, operands); })
      // Indexing.
      .Case([&](GatherOp g) { return gather(g, x(), y()); })
      .Case([&](ScatterOp sc) {
        return scatter(sc, *operands[0], *operands[1], *operands[2]);
      })
      // Reductions.
      .Case([&](ReduceSumOp r) {
        return reduce(op, r.getDims(), x(), ReduceKind::Sum);
      })
      .Case([&](ReduceMaxOp r) {
        return reduce(op, r.getDims(), x(), ReduceKind::Max);
      })
      .Case([&](ReduceMinOp r) {
        return reduce(op, r.getDims(), x(), ReduceKind::Min);
      })
      .Case([&](ArgMinOp a) {
        return argReduce(op, static_cast<int64_t>(a.getAxis()), x(), true);
      })
      .Case([&](ArgMaxOp a) {
        return argReduce(op, static_cast<int64_t>(a.getAxis()), x(), false);
      })
      .Case([&](DotGeneralOp d) { return dotGeneral(d, x(), y()); })
      // Calls.
      .Case([&](func::CallOp c) { return funcCall(c, operands); })
      .Case([&](VmapCallOp v) { return vmapCall(v, operands); })
      .Default([&](Operation *) -> Expected<Results> {
        return opError(op, "the oracle does not know this op");
      });
}

Expected<Results> Evaluator::constant(arr::ConstantOp op) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return opError(op, "only dense elements constants are supported");
  DType dtype = resultDType(op);
  std::vector<double> values;
  values.reserve(static_cast<size_t>(dense.getNumElements()));
  switch (dtype) {
  case DType::F32:
    for (float v : dense.getValues<float>())
      values.push_back(static_cast<double>(v));
    break;
  case DType::I32:
    for (int32_t v : dense.getValues<int32_t>())
      values.push_back(static_cast<double>(v));
    break;
  case DType::Bool:
    for (bool v : dense.getValues<bool>())
      values.push_back(v ? 1.0 : 0.0);
    break;
  }
  return one(Array(dtype, resultType(op).getShape(), std::move(values)));
}

template <typename Fn>
Expected<Results> Evaluator::unary(Operation *op, const Array &x, Fn fn) {
  Array r(x.dtype, x.shape, std::vector<double>(x.values.size()));
  for (size_t i = 0; i < x.values.size(); ++i)
    r.values[i] = fn(x.values[i]);
  return one(std::move(r));
}

template <typename Fn>
Expected<Results> Evaluator::binary(Operation *op, const Array &x,
                                    const Array &y, Fn fn) {
  if (x.shape != y.shape)
    return opError(op, "operand shapes differ");
  Array r(x.dtype, x.shape, std::vector<double>(x.values.size()));
  for (size_t i = 0; i < x.values.size(); ++i)
    r.values[i] = fn(x.values[i], y.values[i]);
  return one(std::move(r));
}

Expected<Results> Evaluator::divide(arr::DivOp op, const Array &x,
                                    const Array &y) {
  if (x.dtype != DType::I32)
    return binary(op, x, y, [](double a, double b) { return a / b; });
  for (double b : y.values)
    if (b == 0)
      return opError(op, "i32 division by zero (undefined)");
  // C++ integer division truncates toward zero; INT_MIN / -1 wraps.
  return binary(op, x, y, [](double a, double b) {
    return wrapI32(
        static_cast<double>(static_cast<int64_t>(a) / static_cast<int64_t>(b)));
  });
}

Expected<Results> Evaluator::compare(arr::CmpOp op, const Array &x,
                                     const Array &y) {
  if (x.shape != y.shape)
    return opError(op, "operand shapes differ");
  arr::CmpPredicate pred = op.getPredicate();
  Array r = Array::filled(DType::Bool, x.shape);
  for (size_t i = 0; i < x.values.size(); ++i) {
    double a = decisionValue(x.dtype, x.values[i]);
    double b = decisionValue(y.dtype, y.values[i]);
    // C++'s comparisons are ordered: NaN gives false except for !=.
    bool v = false;
    switch (pred) {
    case arr::CmpPredicate::lt:
      v = a < b;
      break;
    case arr::CmpPredicate::le:
      v = a <= b;
      break;
    case arr::CmpPredicate::gt:
      v = a > b;
      break;
    case arr::CmpPredicate::ge:
      v = a >= b;
      break;
    case arr::CmpPredicate::eq:
      v = a == b;
      break;
    case arr::CmpPredicate::ne:
      v = a != b;
      break;
    }
    r.values[i] = v ? 1.0 : 0.0;
  }
  return one(std::move(r));
}

Expected<Results> Evaluator::broadcastInDim(arr::BroadcastInDimOp op,
                                            const Array &x) {
  RankedTensorType type = op.getResult().getType();
  ArrayRef<int64_t> dims = op.getDims();
  if (static_cast<int64_t>(dims.size()) != x.rank())
    return opError(op, "dims do not match the operand rank");
  // Result dimension dims[i] reads operand dimension i; a size-1 operand
  // dimension (and every result dimension not in dims) repeats: stride 0.
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(x.shape);
  SmallVector<int64_t, 4> srcStrides(type.getRank(), 0);
  for (auto [i, d] : llvm::enumerate(dims))
    if (x.shape[i] != 1)
      srcStrides[d] = inStrides[i];
  Array r = Array::filled(x.dtype, type.getShape());
  forEachIndex(r.shape, srcStrides, 0, rowMajorStrides(r.shape), 0,
               [&](int64_t a, int64_t b) { r.values[b] = x.values[a]; });
  return one(std::move(r));
}

Expected<Results> Evaluator::transpose(arr::TransposeOp op, const Array &x) {
  ArrayRef<int64_t> perm = op.getPerm();
  if (static_cast<int64_t>(perm.size()) != x.rank())
    return opError(op, "perm does not match the operand rank");
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(x.shape);
  SmallVector<int64_t, 4> shape, srcStrides;
  for (int64_t p : perm) {
    shape.push_back(x.shape[p]);
    srcStrides.push_back(inStrides[p]);
  }
  Array r = Array::filled(x.dtype, shape);
  forEachIndex(shape, srcStrides, 0, rowMajorStrides(shape), 0,
               [&](int64_t a, int64_t b) { r.values[b] = x.values[a]; });
  return one(std::move(r));
}

Expected<Results> Evaluator::reshape(arr::ReshapeOp op, const Array &x) {
  RankedTensorType type = op.getResult().getType();
  if (type.getNumElements() != x.numElements())
    return opError(op, "element count changes");
  return one(Array(x.dtype, type.getShape(), x.values));
}

Expected<Results> Evaluator::reduce(Operation *op, ArrayRef<int64_t> dims,
                                    const Array &x, ReduceKind kind) {
  RankedTensorType type = resultType(op);
  bool isInt = x.dtype == DType::I32;
  double init = 0.0;
  if (kind == ReduceKind::Max)
    init = isInt ? std::numeric_limits<int32_t>::min()
                 : -std::numeric_limits<double>::infinity();
  if (kind == ReduceKind::Min)
    init = isInt ? std::numeric_limits<int32_t>::max()
                 : std::numeric_limits<double>::infinity();
  Array r = Array::filled(x.dtype, type.getShape(), init);
  // Operand dimension d adds to the result offset unless it is reduced.
  SmallVector<int64_t, 4> resStrides = rowMajorStrides(r.shape);
  SmallVector<int64_t, 4> dstStrides;
  int64_t kept = 0;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (llvm::is_contained(dims, d)) {
      dstStrides.push_back(0);
      continue;
    }
    if (kept >= r.rank())
      return opError(op, "result rank does not match the reduced dims");
    dstStrides.push_back(resStrides[kept++]);
  }
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(x.shape);
  switch (kind) {
  case ReduceKind::Sum:
    forEachIndex(x.shape, srcStrides, 0, dstStrides, 0,
                 [&](int64_t a, int64_t b) { r.values[b] += x.values[a]; });
    if (isInt)
      for (double &v : r.values)
        v = wrapI32(v);
    break;
  case ReduceKind::Max:
    // NaN propagates: once the accumulator is NaN, `v > acc` stays false.
    forEachIndex(x.shape, srcStrides, 0, dstStrides, 0,
                 [&](int64_t a, int64_t b) {
                   double v = x.values[a];
                   if (std::isnan(v) || v > r.values[b])
                     r.values[b] = v;
                 });
    break;
  case ReduceKind::Min:
    forEachIndex(x.shape, srcStrides, 0, dstStrides, 0,
                 [&](int64_t a, int64_t b) {
                   double v = x.values[a];
                   if (std::isnan(v) || v < r.values[b])
                     r.values[b] = v;
                 });
    break;
  }
  return one(std::move(r));
}

Expected<Results> Evaluator::argReduce(Operation *op, int64_t axis,
                                       const Array &x, bool isMin) {
  if (axis < 0 || axis >= x.rank())
    return opError(op, "axis out of range");
  int64_t n = x.shape[axis];
  if (n == 0)
    return opError(op, "reduces an empty axis");
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(x.shape);
  int64_t step = inStrides[axis];
  SmallVector<int64_t, 4> shape, srcStrides;
  dropAxis(x.shape, inStrides, axis, shape, srcStrides);
  Array r = Array::filled(DType::I32, shape);
  forEachIndex(shape, srcStrides, 0, rowMajorStrides(shape), 0,
               [&](int64_t a, int64_t b) {
                 double best = decisionValue(x.dtype, x.values[a]);
                 int64_t bestIndex = 0;
                 for (int64_t k = 1; k < n && !std::isnan(best); ++k) {
                   double v = decisionValue(x.dtype, x.values[a + k * step]);
                   // Strict: the lowest index wins ties; the first NaN wins.
                   if (std::isnan(v) || (isMin ? v < best : v > best)) {
                     best = v;
                     bestIndex = k;
                   }
                 }
                 r.values[b] = static_cast<double>(bestIndex);
               });
  return one(std::move(r));
}

Expected<Results> Evaluator::dotGeneral(arr::DotGeneralOp op, const Array &lhs,
                                        const Array &rhs) {
  ArrayRef<int64_t> lb = op.getLhsBatch(), rb = op.getRhsBatch();
  ArrayRef<int64_t> lc = op.getLhsContract(), rc = op.getRhsContract();
  if (lb.size() != rb.size() || lc.size() != rc.size())
    return opError(op, "batch or contracting dimension lists differ");
  SmallVector<int64_t, 4> ls = rowMajorStrides(lhs.shape);
  SmallVector<int64_t, 4> rs = rowMajorStrides(rhs.shape);
  // Result dimensions: batch, lhs free, rhs free; each with the stride it
  // advances lhs and rhs by.
  SmallVector<int64_t, 8> shape, outerL, outerR;
  for (auto [l, r] : llvm::zip(lb, rb)) {
    shape.push_back(lhs.shape[l]);
    outerL.push_back(ls[l]);
    outerR.push_back(rs[r]);
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (llvm::is_contained(lb, d) || llvm::is_contained(lc, d))
      continue;
    shape.push_back(lhs.shape[d]);
    outerL.push_back(ls[d]);
    outerR.push_back(0);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (llvm::is_contained(rb, d) || llvm::is_contained(rc, d))
      continue;
    shape.push_back(rhs.shape[d]);
    outerL.push_back(0);
    outerR.push_back(rs[d]);
  }
  SmallVector<int64_t, 4> contractShape, innerL, innerR;
  for (auto [l, r] : llvm::zip(lc, rc)) {
    if (lhs.shape[l] != rhs.shape[r])
      return opError(op, "contracting dimensions differ in size");
    contractShape.push_back(lhs.shape[l]);
    innerL.push_back(ls[l]);
    innerR.push_back(rs[r]);
  }
  bool isInt = lhs.dtype == DType::I32;
  Array result = Array::filled(lhs.dtype, shape);
  int64_t k = 0;
  forEachIndex(shape, outerL, 0, outerR, 0, [&](int64_t lBase, int64_t rBase) {
    double acc = 0.0;
    forEachIndex(
        contractShape, innerL, lBase, innerR, rBase,
        [&](int64_t a, int64_t b) { acc += lhs.values[a] * rhs.values[b]; });
    result.values[k++] = isInt ? wrapI32(acc) : acc;
  });
  return one(std::move(result));
}

Expected<Results> Evaluator::funcCall(func::CallOp op,
                                      ArrayRef<const Array *> args) {
  auto callee =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(op, op.getCalleeAttr());
  if (!callee)
    return opError(op, "unknown callee '" + op.getCallee() + "'");
  Results copies;
  for (const Array *a : args)
    copies.push_back(*a);
  return call(callee, std::move(copies));
}

Expected<Results> Evaluator::vmapCall(arr::VmapCallOp op,
                                      ArrayRef<const Array *> args) {
  auto callee =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(op, op.getCalleeAttr());
  if (!callee)
    return opError(op, "unknown callee '" + op.getCallee() + "'");
  Results copies;
  for (const Array *a : args)
    copies.push_back(*a);
  Expected<Results> r =
      mapped(callee, copies, op.getInAxesList(), op.getOutAxesList(),
             static_cast<int64_t>(op.getAxisSize()));
  if (!r)
    return opError(op, llvm::toString(r.takeError()));
  return r;
}

Expected<Results> Evaluator::mapped(func::FuncOp callee, ArrayRef<Array> args,
                                    ArrayRef<BatchDimT> inAxes,
                                    ArrayRef<BatchDimT> outAxes,
                                    int64_t axisSize) {
  FunctionType type = callee.getFunctionType();
  if (args.size() != inAxes.size())
    return makeError(Twine(args.size()) + " operands but " +
                     Twine(inAxes.size()) + " in_axes");
  if (type.getNumResults() != outAxes.size())
    return makeError("callee '" + callee.getSymName() + "' has " +
                     Twine(type.getNumResults()) + " results but " +
                     Twine(outAxes.size()) + " out_axes");
  for (auto [j, arg] : llvm::enumerate(args)) {
    if (!inAxes[j])
      continue;
    int64_t axis = *inAxes[j];
    if (axis < 0 || axis >= arg.rank())
      return makeError("in axis " + Twine(axis) + " of operand " + Twine(j) +
                       " is out of range for rank " + Twine(arg.rank()));
    if (arg.shape[axis] != axisSize)
      return makeError("operand " + Twine(j) + " has size " +
                       Twine(arg.shape[axis]) + " on its in axis " +
                       Twine(axis) + ", expected " + Twine(axisSize));
  }
  for (auto [j, axis] : llvm::enumerate(outAxes)) {
    auto t = cast<RankedTensorType>(type.getResult(j));
    if (axis && (*axis < 0 || *axis > t.getRank()))
      return makeError("out axis " + Twine(*axis) + " of result " + Twine(j) +
                       " is out of range for rank " + Twine(t.getRank() + 1));
  }

  std::vector<Results> pieces(outAxes.size());
  for (int64_t i = 0; i < axisSize; ++i) {
    Results example;
    for (auto [j, arg] : llvm::enumerate(args))
      example.push_back(inAxes[j] ? sliceAxis(arg, *inAxes[j], i) : arg);
    Expected<Results> results = call(callee, std::move(example));
    if (!results)
      return makeError("example " + Twine(i) + ": " +
                       llvm::toString(results.takeError()));
    for (auto [j, result] : llvm::enumerate(*results)) {
      if (!outAxes[j] && i > 0) {
        std::string why;
        if (!allClose(pieces[j][0], result, 0.0, 0.0, &why))
          return makeError("result " + Twine(j) +
                           " has out axis unit but differs between example 0 "
                           "and example " +
                           Twine(i) + ": " + why);
        continue;
      }
      pieces[j].push_back(std::move(result));
    }
  }

  // Over 0 examples, a result with out axis unit (which must not depend on
  // the mapped operands) comes from a dummy example: mapped operands of ones.
  if (axisSize == 0 && llvm::any_of(outAxes, [](BatchDimT a) { return !a; })) {
    Results example;
    for (auto [j, arg] : llvm::enumerate(args))
      example.push_back(
          inAxes[j]
              ? Array::filled(
                    arg.dtype,
                    cast<RankedTensorType>(type.getInput(j)).getShape(), 1.0)
              : arg);
    Expected<Results> results = call(callee, std::move(example));
    if (!results)
      return makeError("the dummy example (0 examples, an out axis unit): " +
                       llvm::toString(results.takeError()));
    for (auto [j, result] : llvm::enumerate(*results))
      if (!outAxes[j])
        pieces[j].push_back(std::move(result));
  }

  Results stacked;
  for (auto [j, axis] : llvm::enumerate(outAxes)) {
    if (!axis) {
      stacked.push_back(std::move(pieces[j][0]));
      continue;
    }
    auto t = cast<RankedTensorType>(type.getResult(j));
    stacked.push_back(stackAxis(pieces[j], *axis, t.getShape(),
                                *dtypeOf(t.getElementType())));
  }
  return stacked;
}

//===----------------------------------------------------------------------===//
// select, convert, concat, slice, iota, for
//===----------------------------------------------------------------------===//

Expected<Results> Evaluator::select(Operation *op, const Array &c,
                                    const Array &a, const Array &b) {
  if (c.shape != a.shape || a.shape != b.shape)
    return opError(op, "operand shapes differ");
  if (c.dtype != DType::Bool || a.dtype != b.dtype)
    return opError(op, "needs a bool condition and two values of one dtype");
  Array r(a.dtype, a.shape, std::vector<double>(a.values.size()));
  for (size_t i = 0; i < a.values.size(); ++i)
    r.values[i] = c.values[i] != 0 ? a.values[i] : b.values[i];
  return one(std::move(r));
}

/// One element of `arr.convert` from `from` to `to` (see the file comment).
static double convertElement(DType from, DType to, double v) {
  if (from == to)
    return v;
  switch (to) {
  case DType::Bool:
    // f32: decided on the f32 value; NaN != 0 is true.
    return decisionValue(from, v) != 0 ? 1.0 : 0.0;
  case DType::F32:
    if (from == DType::Bool)
      return v != 0 ? 1.0 : 0.0;
    // i32 -> f32 rounds to the nearest f32 (ties to even), as a C cast does.
    return static_cast<double>(static_cast<float>(static_cast<int32_t>(v)));
  case DType::I32: {
    if (from == DType::Bool)
      return v != 0 ? 1.0 : 0.0;
    double f = decisionValue(DType::F32, v);
    if (std::isnan(f))
      return 0.0;
    double t = std::trunc(f) + 0.0; // -0.0 (from -0.5 or -0) is 0.
    if (t >= 2147483647.0)
      return 2147483647.0;
    if (t <= -2147483648.0)
      return -2147483648.0;
    return t;
  }
  }
  return v;
}

Expected<Results> Evaluator::convert(Operation *op, const Array &x) {
  DType to = resultDType(op);
  Array r(to, x.shape, std::vector<double>(x.values.size()));
  for (size_t i = 0; i < x.values.size(); ++i)
    r.values[i] = convertElement(x.dtype, to, x.values[i]);
  return one(std::move(r));
}

Expected<Results> Evaluator::concat(arr::ConcatOp op,
                                    ArrayRef<const Array *> pieces) {
  RankedTensorType type = op.getResult().getType();
  int64_t dim = static_cast<int64_t>(op.getDim());
  if (pieces.empty())
    return opError(op, "no operands");
  if (dim < 0 || dim >= type.getRank())
    return opError(op, "dim out of range");
  Array r = Array::filled(*dtypeOf(type.getElementType()), type.getShape());
  SmallVector<int64_t, 4> dstStrides = rowMajorStrides(r.shape);
  // Piece k lands at offset (sum of the earlier pieces' sizes on dim) on dim.
  int64_t at = 0;
  for (const Array *piece : pieces) {
    if (piece->rank() != r.rank() || piece->dtype != r.dtype)
      return opError(op, "a piece differs in rank or dtype");
    for (int64_t d = 0; d < r.rank(); ++d)
      if (d != dim && piece->shape[d] != r.shape[d])
        return opError(op, "pieces differ in size off the concat dim");
    if (at + piece->shape[dim] > r.shape[dim])
      return opError(op, "pieces are longer than the result");
    forEachIndex(piece->shape, rowMajorStrides(piece->shape), 0, dstStrides,
                 at * dstStrides[dim],
                 [&](int64_t a, int64_t b) { r.values[b] = piece->values[a]; });
    at += piece->shape[dim];
  }
  if (at != r.shape[dim])
    return opError(op, "pieces are shorter than the result");
  return one(std::move(r));
}

Expected<Results> Evaluator::slice(arr::SliceOp op, const Array &x) {
  RankedTensorType type = op.getResult().getType();
  ArrayRef<int64_t> start = op.getStart(), stride = op.getStride();
  if (static_cast<int64_t>(start.size()) != x.rank() ||
      static_cast<int64_t>(stride.size()) != x.rank() ||
      type.getRank() != x.rank())
    return opError(op, "start, stride and result rank must match the operand");
  // result[i] = x[start + stride * i]: a strided view of x, read in place.
  SmallVector<int64_t, 4> inStrides = rowMajorStrides(x.shape);
  SmallVector<int64_t, 4> srcStrides;
  int64_t offset = 0;
  bool empty = type.getNumElements() == 0;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t n = type.getDimSize(d);
    int64_t first = start[d], last = start[d] + stride[d] * (n - 1);
    if (stride[d] == 0)
      return opError(op, "dimension " + Twine(d) + " has stride 0");
    // An empty result (a batched program over 0 examples) reads nothing.
    if (!empty &&
        (first < 0 || first >= x.shape[d] || last < 0 || last >= x.shape[d]))
      return opError(op, "dimension " + Twine(d) + " reads out of bounds");
    offset += first * inStrides[d];
    srcStrides.push_back(stride[d] * inStrides[d]);
  }
  Array r = Array::filled(x.dtype, type.getShape());
  forEachIndex(r.shape, srcStrides, offset, rowMajorStrides(r.shape), 0,
               [&](int64_t a, int64_t b) { r.values[b] = x.values[a]; });
  return one(std::move(r));
}

Expected<Results> Evaluator::iota(arr::IotaOp op) {
  RankedTensorType type = op.getResult().getType();
  int64_t dim = static_cast<int64_t>(op.getDim());
  if (dim < 0 || dim >= type.getRank())
    return opError(op, "dim out of range");
  Array r = Array::filled(resultDType(op), type.getShape());
  // The index along dim, counted by a stride-1 walk with the other dims at 0.
  SmallVector<int64_t, 4> indexStrides(type.getRank(), 0);
  indexStrides[dim] = 1;
  forEachIndex(
      r.shape, indexStrides, 0, rowMajorStrides(r.shape), 0,
      [&](int64_t i, int64_t b) { r.values[b] = static_cast<double>(i); });
  return one(std::move(r));
}

Expected<Results> Evaluator::forLoop(arr::ForOp op,
                                     ArrayRef<const Array *> operands) {
  // Operands: the consts, then the carries' inits (one per result).
  int64_t numCarries = op->getNumResults();
  int64_t numConsts = static_cast<int64_t>(operands.size()) - numCarries;
  Block &body = op->getRegion(0).front();
  if (numConsts < 0 || static_cast<int64_t>(body.getNumArguments()) !=
                           1 + numConsts + numCarries)
    return opError(op, "block arguments are not index, consts, carries");
  int64_t tripCount = static_cast<int64_t>(op.getTripCount());
  if (tripCount < 0)
    return opError(op, "negative trip count");
  Results carries;
  for (int64_t k = 0; k < numCarries; ++k)
    carries.push_back(*operands[numConsts + k]);
  for (int64_t i = 0; i < tripCount; ++i) {
    Results args;
    args.reserve(body.getNumArguments());
    args.push_back(Array::scalar(DType::I32, static_cast<double>(i)));
    for (int64_t k = 0; k < numConsts; ++k)
      args.push_back(*operands[k]);
    for (Array &c : carries)
      args.push_back(std::move(c));
    Expected<Results> next = runBlock(body, std::move(args));
    if (!next)
      return opError(op, "iteration " + Twine(i) + ": " +
                             llvm::toString(next.takeError()));
    if (static_cast<int64_t>(next->size()) != numCarries)
      return opError(op, "the body yields " + Twine(next->size()) +
                             " values for " + Twine(numCarries) + " carries");
    for (auto [k, value] : llvm::enumerate(*next))
      if (!value.matches(op->getResult(k).getType()))
        return opError(op, "iteration " + Twine(i) + " yields " +
                               shapeString(value.dtype, value.shape) +
                               " for carry " + Twine(k));
    carries = std::move(*next);
  }
  return carries;
}

//===----------------------------------------------------------------------===//
// gather, scatter
//===----------------------------------------------------------------------===//

namespace {

/// The parts of a gather's or scatter's shapes (ODS, arr.gather): with
/// n = batch_dims, the operand is batch ++ outer ++ [size] ++ inner and the
/// indices batch ++ index; a gather gives (and a scatter's updates have)
/// batch ++ outer ++ index ++ inner.
struct IndexingShape {
  int64_t batchDims = 0, axis = 0, size = 0;
  SmallVector<int64_t, 4> gathered;
  int64_t indexRank = 0; // the indices' non-batch dimensions
};

/// Calls `body(pos)` for every multi-index of `shape` in row-major order.
template <typename Fn>
void forEachPosition(ArrayRef<int64_t> shape, Fn &&body) {
  int64_t n = product(shape);
  SmallVector<int64_t, 8> pos(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    body(ArrayRef<int64_t>(pos));
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++pos[d] < shape[d])
        break;
      pos[d] = 0;
    }
  }
}

/// The row-major offset of `pos` in an array of `shape`.
int64_t offsetOf(ArrayRef<int64_t> shape, ArrayRef<int64_t> pos) {
  int64_t offset = 0;
  for (auto [size, i] : llvm::zip_equal(shape, pos))
    offset = offset * size + i;
  return offset;
}

Expected<IndexingShape> indexingShape(Operation *op, const Array &x,
                                      const Array &indices, int64_t axis,
                                      int64_t batchDims) {
  if (indices.dtype != DType::I32)
    return opError(op, "the indices must be i32");
  if (batchDims < 0 || batchDims > indices.rank())
    return opError(op, "batch_dims " + Twine(batchDims) +
                           " is out of range for indices of rank " +
                           Twine(indices.rank()));
  if (axis < batchDims || axis >= x.rank())
    return opError(op, "axis " + Twine(axis) + " is not in [batch_dims, " +
                           Twine(x.rank()) + ")");
  IndexingShape s;
  s.batchDims = batchDims;
  s.axis = axis;
  s.size = x.shape[axis];
  s.indexRank = indices.rank() - batchDims;
  for (int64_t d = 0; d < batchDims; ++d)
    if (x.shape[d] != indices.shape[d])
      return opError(op, "batch dimension " + Twine(d) +
                             " differs between the operand and the indices");
  s.gathered.append(x.shape.begin(), x.shape.begin() + axis);
  s.gathered.append(indices.shape.begin() + batchDims, indices.shape.end());
  s.gathered.append(x.shape.begin() + axis + 1, x.shape.end());
  return s;
}

/// Where `pos` (a position of the gathered shape) reads in the operand once
/// its index positions are replaced by `i`, and where it reads the indices.
void splitPosition(const IndexingShape &s, ArrayRef<int64_t> pos, int64_t i,
                   SmallVectorImpl<int64_t> &operandPos,
                   SmallVectorImpl<int64_t> &indexPos) {
  operandPos.assign(pos.begin(), pos.begin() + s.axis);
  operandPos.push_back(i);
  operandPos.append(pos.begin() + s.axis + s.indexRank, pos.end());
  indexPos.assign(pos.begin(), pos.begin() + s.batchDims);
  indexPos.append(pos.begin() + s.axis, pos.begin() + s.axis + s.indexRank);
}

/// What `mode = fill` reads out of range: NaN, INT32_MIN or true.
double fillValue(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return std::numeric_limits<double>::quiet_NaN();
  case DType::I32:
    return std::numeric_limits<int32_t>::min();
  case DType::Bool:
    return 1.0;
  }
  return 0.0;
}

/// `acc` combined with `update` by a scatter of `kind` (min and max as
/// arr.minimum and arr.maximum; i32 wraps).
double combine(arr::ScatterKind kind, DType dtype, double acc, double update) {
  bool isInt = dtype == DType::I32;
  bool anyNaN = std::isnan(acc) || std::isnan(update);
  switch (kind) {
  case arr::ScatterKind::set:
    return update;
  case arr::ScatterKind::add:
    return isInt ? wrapI32(acc + update) : acc + update;
  case arr::ScatterKind::mul:
    return isInt ? wrapI32(static_cast<double>(static_cast<int64_t>(acc) *
                                               static_cast<int64_t>(update)))
                 : acc * update;
  case arr::ScatterKind::min:
    return anyNaN ? std::numeric_limits<double>::quiet_NaN()
                  : std::min(acc, update);
  case arr::ScatterKind::max:
    return anyNaN ? std::numeric_limits<double>::quiet_NaN()
                  : std::max(acc, update);
  }
  return update;
}

} // namespace

Expected<Results> Evaluator::gather(arr::GatherOp op, const Array &x,
                                    const Array &indices) {
  Expected<IndexingShape> s =
      indexingShape(op, x, indices, static_cast<int64_t>(op.getAxis()),
                    static_cast<int64_t>(op.getBatchDims()));
  if (!s)
    return s.takeError();
  Array r = Array::filled(x.dtype, s->gathered);
  if (r.numElements() == 0)
    return one(std::move(r));
  if (s->size == 0)
    return opError(op, "gathers from a dimension of size 0");
  arr::GatherMode mode = op.getMode();
  SmallVector<int64_t, 8> operandPos, indexPos;
  int64_t k = 0;
  forEachPosition(s->gathered, [&](ArrayRef<int64_t> pos) {
    splitPosition(*s, pos, 0, operandPos, indexPos);
    auto i =
        static_cast<int64_t>(indices.values[offsetOf(indices.shape, indexPos)]);
    // clamp and fill count a negative index from the end; clip does not.
    if (mode != arr::GatherMode::clip && i < 0)
      i += s->size;
    bool inRange = i >= 0 && i < s->size;
    if (!inRange && mode == arr::GatherMode::fill) {
      r.values[k++] = fillValue(x.dtype);
      return;
    }
    operandPos[s->axis] = std::clamp<int64_t>(i, 0, s->size - 1);
    r.values[k++] = x.values[offsetOf(x.shape, operandPos)];
  });
  return one(std::move(r));
}

Expected<Results> Evaluator::scatter(arr::ScatterOp op, const Array &x,
                                     const Array &indices,
                                     const Array &updates) {
  Expected<IndexingShape> s =
      indexingShape(op, x, indices, static_cast<int64_t>(op.getAxis()),
                    static_cast<int64_t>(op.getBatchDims()));
  if (!s)
    return s.takeError();
  if (updates.dtype != x.dtype ||
      ArrayRef<int64_t>(updates.shape) != ArrayRef<int64_t>(s->gathered))
    return opError(op, "the updates are " +
                           shapeString(updates.dtype, updates.shape) +
                           ", expected " + shapeString(x.dtype, s->gathered));
  arr::ScatterKind kind = op.getKind();
  if (kind != arr::ScatterKind::set && x.dtype == DType::Bool)
    return opError(op, "kind " + arr::stringifyScatterKind(kind) +
                           " needs f32 or i32 (bool has set only)");
  // Every index position (b, j) in row-major order, then every element it
  // updates (b, o, i, s) from updates (b, o, j, s): updates that hit one
  // element arrive in index order.
  SmallVector<int64_t, 4> outer(x.shape.begin() + s->batchDims,
                                x.shape.begin() + s->axis);
  outer.append(x.shape.begin() + s->axis + 1, x.shape.end());
  int64_t numOuter = s->axis - s->batchDims;
  Array r = x;
  SmallVector<int64_t, 8> operandPos, updatePos;
  forEachPosition(indices.shape, [&](ArrayRef<int64_t> indexPos) {
    auto i =
        static_cast<int64_t>(indices.values[offsetOf(indices.shape, indexPos)]);
    if (i < 0)
      i += s->size;
    if (i < 0 || i >= s->size)
      return; // dropped
    ArrayRef<int64_t> b = indexPos.take_front(s->batchDims);
    ArrayRef<int64_t> j = indexPos.drop_front(s->batchDims);
    forEachPosition(outer, [&](ArrayRef<int64_t> os) {
      ArrayRef<int64_t> o = os.take_front(numOuter);
      ArrayRef<int64_t> in = os.drop_front(numOuter);
      operandPos.assign(b.begin(), b.end());
      operandPos.append(o.begin(), o.end());
      operandPos.push_back(i);
      operandPos.append(in.begin(), in.end());
      updatePos.assign(b.begin(), b.end());
      updatePos.append(o.begin(), o.end());
      updatePos.append(j.begin(), j.end());
      updatePos.append(in.begin(), in.end());
      double &acc = r.values[offsetOf(x.shape, operandPos)];
      acc = combine(kind, x.dtype, acc,
                    updates.values[offsetOf(updates.shape, updatePos)]);
    });
  });
  return one(std::move(r));
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Expected<std::vector<Array>> oracle::evaluate(func::FuncOp fn,
                                              ArrayRef<Array> args) {
  Evaluator evaluator;
  return evaluator.call(fn, Results(args.begin(), args.end()));
}

Expected<std::vector<Array>> oracle::evaluate(ModuleOp module, StringRef name,
                                              ArrayRef<Array> args) {
  auto fn = module.lookupSymbol<func::FuncOp>(name);
  if (!fn)
    return makeError("no function named '" + name + "'");
  return evaluate(fn, args);
}

Expected<std::vector<Array>>
oracle::evaluateMapped(func::FuncOp callee, ArrayRef<Array> args,
                       ArrayRef<std::optional<int64_t>> inAxes,
                       ArrayRef<std::optional<int64_t>> outAxes,
                       int64_t axisSize) {
  Evaluator evaluator;
  return evaluator.mapped(callee, args, inAxes, outAxes, axisSize);
}

Expected<func::FuncOp> oracle::perExampleFunction(func::FuncOp exported) {
  if (exported.isExternal() || !exported.getBody().hasOneBlock())
    return opError(exported, "an exported entry needs a body of one block");
  Block &body = exported.getBody().front();
  auto vmap = dyn_cast<arr::VmapCallOp>(body.front());
  auto ret = dyn_cast<func::ReturnOp>(body.back());
  if (!vmap || !ret || &body.front() == &body.back() ||
      vmap->getNextNode() != ret.getOperation() ||
      ValueRange(ret.getOperands()) != ValueRange(vmap.getResults()))
    return opError(exported, "the body of exported entry '" +
                                 exported.getSymName() +
                                 "' is not one arr.vmap_call and its return");
  auto f = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      vmap, vmap.getCalleeAttr());
  if (!f)
    return opError(vmap, "unknown callee '" + vmap.getCallee() + "'");
  return f;
}

Expected<SmallVector<std::optional<int64_t>>>
oracle::exportAxes(func::FuncOp exported, StringRef attrName) {
  auto axes = exported->getAttrOfType<ArrayAttr>(attrName);
  if (!axes)
    return opError(exported, "exported entry '" + exported.getSymName() +
                                 "' has no array attribute " + attrName);
  SmallVector<std::optional<int64_t>> result;
  for (Attribute a : axes) {
    if (auto i = dyn_cast<IntegerAttr>(a))
      result.push_back(i.getInt());
    else if (isa<UnitAttr>(a))
      result.push_back(std::nullopt);
    else
      return opError(exported,
                     Twine(attrName) + " entries must be integers or unit");
  }
  return result;
}

Expected<std::vector<Array>>
oracle::evaluatePerExample(func::FuncOp exported, ArrayRef<Array> batchedArgs) {
  Expected<func::FuncOp> f = perExampleFunction(exported);
  if (!f)
    return f.takeError();
  auto inAxes = exportAxes(exported, "arr.in_axes");
  if (!inAxes)
    return inAxes.takeError();
  auto outAxes = exportAxes(exported, "arr.out_axes");
  if (!outAxes)
    return outAxes.takeError();
  if (batchedArgs.size() != inAxes->size())
    return opError(exported, Twine(batchedArgs.size()) + " inputs for " +
                                 Twine(inAxes->size()) + " in_axes");
  // N comes from the mapped inputs, which must agree.
  std::optional<int64_t> n;
  for (auto [j, arg] : llvm::enumerate(batchedArgs)) {
    std::optional<int64_t> axis = (*inAxes)[j];
    if (!axis)
      continue;
    if (*axis < 0 || *axis >= arg.rank())
      return opError(exported, "input " + Twine(j) + " has rank " +
                                   Twine(arg.rank()) + ", no axis " +
                                   Twine(*axis));
    if (n && *n != arg.shape[*axis])
      return opError(exported, "mapped inputs disagree on the example count (" +
                                   Twine(*n) + " vs " +
                                   Twine(arg.shape[*axis]) + ")");
    n = arg.shape[*axis];
  }
  if (!n) {
    auto batch = exported->getAttrOfType<IntegerAttr>("arr.batch");
    if (!batch)
      return opError(exported, "no mapped input and no arr.batch");
    n = batch.getInt();
  }
  return evaluateMapped(*f, batchedArgs, *inAxes, *outAxes, *n);
}
