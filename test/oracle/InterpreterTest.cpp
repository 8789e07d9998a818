//===- InterpreterTest.cpp - the oracle's interpretation of each op -------===//
//
// Hand-written IR, values computed by hand.
//
//===----------------------------------------------------------------------===//

#include "test/oracle/Interpreter.h"
#include "test/oracle/TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace vmapc::oracle;
using vmapc::oracle::test::makeContext;
using vmapc::oracle::test::parse;

namespace {

class OracleTest : public ::testing::Test {
protected:
  std::unique_ptr<mlir::MLIRContext> context = makeContext();
  mlir::OwningOpRef<mlir::ModuleOp> module;

  /// Parses `source` and evaluates @`fn` on `args`; fails the test (and
  /// returns nothing) on a parse or evaluation error.
  std::vector<Array> run(llvm::StringRef source, llvm::StringRef fn,
                         std::vector<Array> args) {
    module = parse(*context, source);
    if (!module) {
      ADD_FAILURE() << "parse error";
      return {};
    }
    auto results = evaluate(*module, fn, args);
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return {};
    }
    return std::move(*results);
  }

  /// Evaluates and returns the error message ("" if it succeeded).
  std::string runError(llvm::StringRef source, llvm::StringRef fn,
                       std::vector<Array> args) {
    module = parse(*context, source);
    if (!module)
      return "parse error";
    auto results = evaluate(*module, fn, args);
    if (results)
      return "";
    return llvm::toString(results.takeError());
  }
};

Array f32(llvm::ArrayRef<int64_t> shape, std::vector<double> values) {
  return Array(DType::F32, shape, std::move(values));
}
Array i32(llvm::ArrayRef<int64_t> shape, std::vector<double> values) {
  return Array(DType::I32, shape, std::move(values));
}

void expectArray(const std::vector<Array> &results, size_t i, DType dtype,
                 std::vector<int64_t> shape, std::vector<double> values) {
  ASSERT_LT(i, results.size());
  const Array &a = results[i];
  EXPECT_EQ(dtypeName(a.dtype), std::string(dtypeName(dtype)));
  EXPECT_EQ(std::vector<int64_t>(a.shape.begin(), a.shape.end()), shape);
  EXPECT_EQ(a.values, values) << a.toString();
}

/// `expectArray` to a relative 1e-13, for values given as decimals (here:
/// transcendental functions, computed in 50-digit arithmetic).
void expectNear(const std::vector<Array> &results, size_t i,
                std::vector<double> values) {
  ASSERT_LT(i, results.size());
  const Array &a = results[i];
  ASSERT_EQ(a.values.size(), values.size()) << a.toString();
  for (size_t k = 0; k < values.size(); ++k)
    EXPECT_NEAR(a.values[k], values[k], 1e-13 * std::fabs(values[k]))
        << "element " << k << " of " << a.toString();
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

TEST_F(OracleTest, Constants) {
  auto r = run(R"mlir(
    func.func @f() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<f32>) {
      %a = arr.constant dense<[[1.5, -2.0], [0.25, 4.0]]> : tensor<2x2xf32>
      %b = arr.constant dense<7> : tensor<3xi32>
      %c = arr.constant dense<[true, false]> : tensor<2xi1>
      %d = arr.constant dense<3.0> : tensor<f32>
      return %a, %b, %c, %d : tensor<2x2xf32>, tensor<3xi32>, tensor<2xi1>, tensor<f32>
    })mlir",
               "f", {});
  expectArray(r, 0, DType::F32, {2, 2}, {1.5, -2.0, 0.25, 4.0});
  expectArray(r, 1, DType::I32, {3}, {7, 7, 7});
  expectArray(r, 2, DType::Bool, {2}, {1, 0});
  expectArray(r, 3, DType::F32, {}, {3.0});
}

TEST_F(OracleTest, UnaryF32) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %n = arr.neg %x : tensor<3xf32>
      %e = arr.exp %x : tensor<3xf32>
      %l = arr.log %x : tensor<3xf32>
      %t = arr.tanh %x : tensor<3xf32>
      %s = arr.sqrt %x : tensor<3xf32>
      return %n, %e, %l, %t, %s : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    })mlir",
               "f", {f32({3}, {1.0, 4.0, 0.25})});
  expectArray(r, 0, DType::F32, {3}, {-1.0, -4.0, -0.25});
  expectArray(r, 1, DType::F32, {3},
              {std::exp(1.0), std::exp(4.0), std::exp(0.25)});
  expectArray(r, 2, DType::F32, {3}, {0.0, std::log(4.0), std::log(0.25)});
  expectArray(r, 3, DType::F32, {3},
              {std::tanh(1.0), std::tanh(4.0), std::tanh(0.25)});
  expectArray(r, 4, DType::F32, {3}, {1.0, 2.0, 0.5});
}

TEST_F(OracleTest, BinaryF32) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
      %a = arr.add %x, %y : tensor<2xf32>
      %s = arr.sub %x, %y : tensor<2xf32>
      %m = arr.mul %x, %y : tensor<2xf32>
      %d = arr.div %x, %y : tensor<2xf32>
      return %a, %s, %m, %d : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
    })mlir",
               "f", {f32({2}, {3.0, -1.0}), f32({2}, {2.0, 4.0})});
  expectArray(r, 0, DType::F32, {2}, {5.0, 3.0});
  expectArray(r, 1, DType::F32, {2}, {1.0, -5.0});
  expectArray(r, 2, DType::F32, {2}, {6.0, -4.0});
  expectArray(r, 3, DType::F32, {2}, {1.5, -0.25});
}

TEST_F(OracleTest, I32DivisionTruncatesAndArithmeticWraps) {
  auto r = run(
      R"mlir(
    func.func @f(%x: tensor<5xi32>, %y: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
      %d = arr.div %x, %y : tensor<5xi32>
      %a = arr.add %x, %y : tensor<5xi32>
      %n = arr.neg %x : tensor<5xi32>
      return %d, %a, %n : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
    })mlir",
      "f", {i32({5}, {7, -7, 7, -7, 2147483647}), i32({5}, {2, 2, -2, -2, 1})});
  expectArray(r, 0, DType::I32, {5}, {3, -3, -3, 3, 2147483647});
  expectArray(r, 1, DType::I32, {5}, {9, -5, 5, -9, -2147483648.0});
  expectArray(r, 2, DType::I32, {5}, {-7, 7, -7, 7, -2147483647});
}

TEST_F(OracleTest, I32DivisionByZeroIsAnError) {
  std::string error = runError(R"mlir(
    func.func @f(%x: tensor<2xi32>, %y: tensor<2xi32>) -> tensor<2xi32> {
      %d = arr.div %x, %y : tensor<2xi32>
      return %d : tensor<2xi32>
    })mlir",
                               "f", {i32({2}, {1, 2}), i32({2}, {1, 0})});
  EXPECT_NE(error.find("arr.div"), std::string::npos) << error;
  EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
}

TEST_F(OracleTest, CmpAllPredicatesWithNaN) {
  // x = [1, 2, 3, NaN], y = [2, 2, 2, 1].
  auto r = run(R"mlir(
    func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
      %lt = arr.cmp lt, %x, %y : tensor<4xf32> -> tensor<4xi1>
      %le = arr.cmp le, %x, %y : tensor<4xf32> -> tensor<4xi1>
      %gt = arr.cmp gt, %x, %y : tensor<4xf32> -> tensor<4xi1>
      %ge = arr.cmp ge, %x, %y : tensor<4xf32> -> tensor<4xi1>
      %eq = arr.cmp eq, %x, %y : tensor<4xf32> -> tensor<4xi1>
      %ne = arr.cmp ne, %x, %y : tensor<4xf32> -> tensor<4xi1>
      return %lt, %le, %gt, %ge, %eq, %ne : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
    })mlir",
               "f",
               {f32({4}, {1, 2, 3, std::numeric_limits<double>::quiet_NaN()}),
                f32({4}, {2, 2, 2, 1})});
  expectArray(r, 0, DType::Bool, {4}, {1, 0, 0, 0});
  expectArray(r, 1, DType::Bool, {4}, {1, 1, 0, 0});
  expectArray(r, 2, DType::Bool, {4}, {0, 0, 1, 0});
  expectArray(r, 3, DType::Bool, {4}, {0, 1, 1, 0});
  expectArray(r, 4, DType::Bool, {4}, {0, 1, 0, 0});
  expectArray(r, 5, DType::Bool, {4}, {1, 0, 1, 1});
}

TEST_F(OracleTest, CmpRoundsF32First) {
  // 1 + 2^-30 and 1 are distinct doubles but the same f32: equal.
  auto r = run(R"mlir(
    func.func @f(%x: tensor<1xf32>, %y: tensor<1xf32>) -> tensor<1xi1> {
      %eq = arr.cmp eq, %x, %y : tensor<1xf32> -> tensor<1xi1>
      return %eq : tensor<1xi1>
    })mlir",
               "f", {f32({1}, {1.0 + std::ldexp(1.0, -30)}), f32({1}, {1.0})});
  expectArray(r, 0, DType::Bool, {1}, {1});
}

TEST_F(OracleTest, MathFunctions) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %s = arr.sin %x : tensor<3xf32>
      %c = arr.cos %x : tensor<3xf32>
      %l = arr.log1p %x : tensor<3xf32>
      %e = arr.expm1 %x : tensor<3xf32>
      %f = arr.erf %x : tensor<3xf32>
      return %s, %c, %l, %e, %f : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    })mlir",
               "f", {f32({3}, {0.5, -1e-10, 3.0})});
  expectNear(r, 0, {0.479425538604203, -1e-10, 0.1411200080598672});
  expectNear(r, 1, {0.8775825618903728, 1.0, -0.9899924966004454});
  expectNear(r, 2,
             {0.4054651081081644, -1.00000000005e-10, 1.3862943611198906});
  expectNear(r, 3, {0.6487212707001282, -9.9999999995e-11, 19.085536923187668});
  expectNear(r, 4,
             {0.5204998778130465, -1.1283791670955126e-10, 0.9999779095030014});
}

TEST_F(OracleTest, RoundingsHalfToEvenOnTheF32Value) {
  // 3 - 2^-30 is 3 in f32: floor gives 3, not 2.
  auto r = run(
      R"mlir(
    func.func @f(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
      %f = arr.floor %x : tensor<6xf32>
      %c = arr.ceil %x : tensor<6xf32>
      %r = arr.round %x : tensor<6xf32>
      return %f, %c, %r : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
    })mlir",
      "f", {f32({6}, {2.5, -2.5, 0.5, -0.7, 3.0 - std::ldexp(1.0, -30), 1.5})});
  expectArray(r, 0, DType::F32, {6}, {2, -3, 0, -1, 3, 1});
  expectArray(r, 1, DType::F32, {6}, {3, -2, 1, -0.0, 3, 2});
  expectArray(r, 2, DType::F32, {6}, {2, -2, 0, -1, 3, 2});
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

TEST_F(OracleTest, BroadcastInDim) {
  auto r = run(R"mlir(
    func.func @f(%v: tensor<3xf32>, %c: tensor<2x1xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<2xf32>) {
      %rows = arr.broadcast_in_dim %v, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
      %cols = arr.broadcast_in_dim %v, dims = [0] : (tensor<3xf32>) -> tensor<3x2xf32>
      %stretch = arr.broadcast_in_dim %c, dims = [0, 2] : (tensor<2x1xf32>) -> tensor<2x2x3xf32>
      %scalar = arr.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>
      return %rows, %cols, %stretch, %scalar : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>, tensor<2xf32>
    })mlir",
               "f", {f32({3}, {1, 2, 3}), f32({2, 1}, {10, 20}), f32({}, {5})});
  expectArray(r, 0, DType::F32, {2, 3}, {1, 2, 3, 1, 2, 3});
  expectArray(r, 1, DType::F32, {3, 2}, {1, 1, 2, 2, 3, 3});
  // %c[i, 0] lands at [i, *, *] (size-1 dim stretched to 3, dim 1 new).
  expectArray(r, 2, DType::F32, {2, 2, 3},
              {10, 10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 20});
  expectArray(r, 3, DType::F32, {2}, {5, 5});
}

TEST_F(OracleTest, TransposeAndReshape) {
  // x[i, j, k] = 100 i + 10 j + k, shape 2x3x2.
  std::vector<double> x;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        x.push_back(100 * i + 10 * j + k);
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3x2xf32>) -> (tensor<2x2x3xf32>, tensor<3x4xf32>, tensor<3x2x2xf32>) {
      %t = arr.transpose %x, perm = [2, 0, 1] : (tensor<2x3x2xf32>) -> tensor<2x2x3xf32>
      %r = arr.reshape %x : (tensor<2x3x2xf32>) -> tensor<3x4xf32>
      %u = arr.transpose %x, perm = [1, 0, 2] : (tensor<2x3x2xf32>) -> tensor<3x2x2xf32>
      return %t, %r, %u : tensor<2x2x3xf32>, tensor<3x4xf32>, tensor<3x2x2xf32>
    })mlir",
               "f", {f32({2, 3, 2}, x)});
  // t[k, i, j] = x[i, j, k].
  expectArray(r, 0, DType::F32, {2, 2, 3},
              {0, 10, 20, 100, 110, 120, 1, 11, 21, 101, 111, 121});
  expectArray(r, 1, DType::F32, {3, 4}, x);
  // u[j, i, k] = x[i, j, k].
  expectArray(r, 2, DType::F32, {3, 2, 2},
              {0, 1, 100, 101, 10, 11, 110, 111, 20, 21, 120, 121});
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(OracleTest, ReduceOverTwoDims) {
  // x[i, j, k] = 100 i + 10 j + k, shape 2x3x2.
  std::vector<double> x;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        x.push_back(100 * i + 10 * j + k);
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3x2xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>) {
      %s = arr.reduce_sum %x, dims = [0, 2] : (tensor<2x3x2xf32>) -> tensor<3xf32>
      %m = arr.reduce_max %x, dims = [1, 2] : (tensor<2x3x2xf32>) -> tensor<2xf32>
      %n = arr.reduce_min %x, dims = [0, 1] : (tensor<2x3x2xf32>) -> tensor<2xf32>
      %a = arr.reduce_sum %x, dims = [0, 1, 2] : (tensor<2x3x2xf32>) -> tensor<f32>
      return %s, %m, %n, %a : tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>
    })mlir",
               "f", {f32({2, 3, 2}, x)});
  // s[j] = sum_{i,k} = (0+1) + (100+101) + 4*10 j.
  expectArray(r, 0, DType::F32, {3}, {202, 242, 282});
  expectArray(r, 1, DType::F32, {2}, {21, 121});
  expectArray(r, 2, DType::F32, {2}, {0, 1});
  expectArray(r, 3, DType::F32, {}, {726});
}

TEST_F(OracleTest, ReduceI32AndNaN) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3xi32>, %y: tensor<3xf32>) -> (tensor<2xi32>, tensor<3xi32>, tensor<f32>, tensor<f32>) {
      %s = arr.reduce_sum %x, dims = [1] : (tensor<2x3xi32>) -> tensor<2xi32>
      %m = arr.reduce_max %x, dims = [0] : (tensor<2x3xi32>) -> tensor<3xi32>
      %ym = arr.reduce_max %y, dims = [0] : (tensor<3xf32>) -> tensor<f32>
      %yn = arr.reduce_min %y, dims = [0] : (tensor<3xf32>) -> tensor<f32>
      return %s, %m, %ym, %yn : tensor<2xi32>, tensor<3xi32>, tensor<f32>, tensor<f32>
    })mlir",
               "f",
               {i32({2, 3}, {1, -5, 3, 2147483647, 1, 0}),
                f32({3}, {1, std::numeric_limits<double>::quiet_NaN(), 2})});
  expectArray(r, 0, DType::I32, {2}, {-1, -2147483648.0});
  expectArray(r, 1, DType::I32, {3}, {2147483647, 1, 3});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_TRUE(std::isnan(r[2].values[0]));
  EXPECT_TRUE(std::isnan(r[3].values[0]));
}

TEST_F(OracleTest, ArgMinArgMaxLowestIndexWinsTies) {
  auto r = run(R"mlir(
    func.func @f(%v: tensor<5xf32>, %m: tensor<2x3xf32>, %k: tensor<4xi32>) -> (tensor<i32>, tensor<i32>, tensor<3xi32>, tensor<2xi32>, tensor<i32>) {
      %a = arr.argmin %v, axis = 0 : (tensor<5xf32>) -> tensor<i32>
      %b = arr.argmax %v, axis = 0 : (tensor<5xf32>) -> tensor<i32>
      %c = arr.argmin %m, axis = 0 : (tensor<2x3xf32>) -> tensor<3xi32>
      %d = arr.argmax %m, axis = 1 : (tensor<2x3xf32>) -> tensor<2xi32>
      %e = arr.argmax %k, axis = 0 : (tensor<4xi32>) -> tensor<i32>
      return %a, %b, %c, %d, %e : tensor<i32>, tensor<i32>, tensor<3xi32>, tensor<2xi32>, tensor<i32>
    })mlir",
               "f",
               {f32({5}, {3, 1, 4, 1, 4}), f32({2, 3}, {5, 2, 7, 5, 1, 7}),
                i32({4}, {-3, 9, 2, 9})});
  expectArray(r, 0, DType::I32, {}, {1});
  expectArray(r, 1, DType::I32, {}, {2});
  expectArray(r, 2, DType::I32, {3}, {0, 1, 0});
  expectArray(r, 3, DType::I32, {2}, {2, 2});
  expectArray(r, 4, DType::I32, {}, {1});
}

TEST_F(OracleTest, ArgMinRoundsF32FirstAndPicksFirstNaN) {
  // The first two are one f32 apart from being equal in double only: a tie
  // in f32, so index 0 wins; a NaN wins over everything.
  auto r = run(R"mlir(
    func.func @f(%v: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<i32>, tensor<i32>) {
      %a = arr.argmin %v, axis = 0 : (tensor<3xf32>) -> tensor<i32>
      %b = arr.argmin %w, axis = 0 : (tensor<3xf32>) -> tensor<i32>
      return %a, %b : tensor<i32>, tensor<i32>
    })mlir",
               "f",
               {f32({3}, {1.0, 1.0 - std::ldexp(1.0, -40), 2.0}),
                f32({3}, {1.0, std::numeric_limits<double>::quiet_NaN(), -5})});
  expectArray(r, 0, DType::I32, {}, {0});
  expectArray(r, 1, DType::I32, {}, {1});
}

//===----------------------------------------------------------------------===//
// dot_general
//===----------------------------------------------------------------------===//

TEST_F(OracleTest, DotGeneralMatmulVectorOuter) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %v: tensor<3xf32>) -> (tensor<2x2xf32>, tensor<f32>, tensor<2xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
      %mm = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      %dot = arr.dot_general %v, %v, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
      %mv = arr.dot_general %a, %v, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
      %outer = arr.dot_general %v, %v, lhs_batch = [], rhs_batch = [], lhs_contract = [], rhs_contract = [] : (tensor<3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
      %tt = arr.dot_general %a, %a, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
      return %mm, %dot, %mv, %outer, %tt : tensor<2x2xf32>, tensor<f32>, tensor<2xf32>, tensor<3x3xf32>, tensor<3x3xf32>
    })mlir",
               "f",
               {f32({2, 3}, {1, 2, 3, 4, 5, 6}),
                f32({3, 2}, {1, 0, 0, 1, 1, 1}), f32({3}, {1, 2, 3})});
  // [[1 2 3],[4 5 6]] @ [[1 0],[0 1],[1 1]] = [[4 5],[10 11]].
  expectArray(r, 0, DType::F32, {2, 2}, {4, 5, 10, 11});
  expectArray(r, 1, DType::F32, {}, {14});
  expectArray(r, 2, DType::F32, {2}, {14, 32});
  expectArray(r, 3, DType::F32, {3, 3}, {1, 2, 3, 2, 4, 6, 3, 6, 9});
  // a^T a: [1 4; 2 5; 3 6] @ [1 2 3; 4 5 6].
  expectArray(r, 4, DType::F32, {3, 3}, {17, 22, 27, 22, 29, 36, 27, 36, 45});
}

TEST_F(OracleTest, DotGeneralBatchDims) {
  // lhs: 2 batches of 1x2 at dim 0; rhs: batch at dim 1 (2x2x1 -> [k, b, n]).
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x1x2xf32>, %b: tensor<2x2x1xf32>) -> tensor<2x1x1xf32> {
      %c = arr.dot_general %a, %b, lhs_batch = [0], rhs_batch = [1], lhs_contract = [2], rhs_contract = [0] : (tensor<2x1x2xf32>, tensor<2x2x1xf32>) -> tensor<2x1x1xf32>
      return %c : tensor<2x1x1xf32>
    })mlir",
               "f",
               // a[0] = [1 2], a[1] = [3 4]; b[k, bt, 0]: b[:,0] = [5 6]^T,
               // b[:,1] = [7 8]^T, stored [k=0: (5, 7), k=1: (6, 8)].
               {f32({2, 1, 2}, {1, 2, 3, 4}), f32({2, 2, 1}, {5, 7, 6, 8})});
  // batch 0: 1*5 + 2*6 = 17; batch 1: 3*7 + 4*8 = 53.
  expectArray(r, 0, DType::F32, {2, 1, 1}, {17, 53});
}

TEST_F(OracleTest, DotGeneralI32) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x2xi32>, %b: tensor<2x2xi32>) -> tensor<2x2xi32> {
      %c = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [1] : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
      return %c : tensor<2x2xi32>
    })mlir",
               "f", {i32({2, 2}, {1, 2, 3, 4}), i32({2, 2}, {1, -1, 2, 0})});
  // a @ b^T = [[1 2],[3 4]] @ [[1 2],[-1 0]] = [[-1 2],[-1 6]].
  expectArray(r, 0, DType::I32, {2, 2}, {-1, 2, -1, 6});
}

//===----------------------------------------------------------------------===//
// Calls and vmap
//===----------------------------------------------------------------------===//

constexpr const char *kSqdist = R"mlir(
  func.func private @sqdist(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {
    %d = arr.sub %a, %b : tensor<2xf32>
    %m = arr.mul %d, %d : tensor<2xf32>
    %s = arr.reduce_sum %m, dims = [0] : (tensor<2xf32>) -> tensor<f32>
    return %s : tensor<f32>
  }
)mlir";

TEST_F(OracleTest, FuncCall) {
  std::string source = std::string(kSqdist) + R"mlir(
    func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {
      %s = func.call @sqdist(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
      return %s : tensor<f32>
    })mlir";
  auto r = run(source, "f", {f32({2}, {1, 2}), f32({2}, {4, -2})});
  expectArray(r, 0, DType::F32, {}, {25});
}

TEST_F(OracleTest, VmapCallUnmappedOperandAndOutAxis) {
  // refs is 2x3 with the mapped axis at 1 (3 references of 2 numbers).
  std::string source = std::string(kSqdist) + R"mlir(
    func.func @f(%q: tensor<2xf32>, %refs: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<i32>) {
      %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 1 : i64], out_axes = [0 : i64], axis_size = 3 : i64} : (tensor<2xf32>, tensor<2x3xf32>) -> tensor<3xf32>
      %i = arr.argmin %d, axis = 0 : (tensor<3xf32>) -> tensor<i32>
      return %d, %i : tensor<3xf32>, tensor<i32>
    })mlir";
  // refs columns: (0,0), (1,1), (3,1); q = (1, 2).
  auto r =
      run(source, "f", {f32({2}, {1, 2}), f32({2, 3}, {0, 1, 3, 0, 1, 1})});
  expectArray(r, 0, DType::F32, {3}, {5, 1, 5});
  expectArray(r, 1, DType::I32, {}, {1});
}

TEST_F(OracleTest, NestedVmapStacksAlongOutAxes) {
  // pairwise(q, r)[j, i] = sqdist(q[i], r[j]) via an out axis of 1.
  std::string source = std::string(kSqdist) + R"mlir(
    func.func private @row(%q: tensor<2xf32>, %r: tensor<3x2xf32>) -> tensor<3xf32> {
      %d = arr.vmap_call @sqdist(%q, %r) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 3 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<3xf32>
      return %d : tensor<3xf32>
    }
    func.func @f(%q: tensor<2x2xf32>, %r: tensor<3x2xf32>) -> tensor<3x2xf32> {
      %d = arr.vmap_call @row(%q, %r) {in_axes = [0 : i64, unit], out_axes = [1 : i64], axis_size = 2 : i64} : (tensor<2x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
      return %d : tensor<3x2xf32>
    })mlir";
  auto r = run(source, "f",
               {f32({2, 2}, {0, 0, 1, 2}), f32({3, 2}, {0, 0, 1, 1, 3, 1})});
  // q0 = (0,0): 0, 2, 10; q1 = (1,2): 5, 1, 5. Stored [j, i].
  expectArray(r, 0, DType::F32, {3, 2}, {0, 5, 2, 1, 10, 5});
}

TEST_F(OracleTest, VmapCallUnitOutAxis) {
  std::string source = R"mlir(
    func.func private @g(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<f32>) {
      %m = arr.mul %x, %w : tensor<2xf32>
      %s = arr.reduce_sum %w, dims = [0] : (tensor<2xf32>) -> tensor<f32>
      return %m, %s : tensor<2xf32>, tensor<f32>
    }
    func.func @f(%x: tensor<3x2xf32>, %w: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<f32>) {
      %m, %s = arr.vmap_call @g(%x, %w) {in_axes = [0 : i64, unit], out_axes = [0 : i64, unit], axis_size = 3 : i64} : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<f32>)
      return %m, %s : tensor<3x2xf32>, tensor<f32>
    }
    func.func @bad(%x: tensor<3x2xf32>, %w: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
      %m, %n = arr.vmap_call @g2(%x, %w) {in_axes = [0 : i64, unit], out_axes = [0 : i64, unit], axis_size = 3 : i64} : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>)
      return %m, %n : tensor<3x2xf32>, tensor<2xf32>
    }
    func.func private @g2(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      return %x, %x : tensor<2xf32>, tensor<2xf32>
    })mlir";
  auto r =
      run(source, "f", {f32({3, 2}, {1, 2, 3, 4, 5, 6}), f32({2}, {10, 1})});
  expectArray(r, 0, DType::F32, {3, 2}, {10, 2, 30, 4, 50, 6});
  expectArray(r, 1, DType::F32, {}, {11});
  // A unit out axis whose value depends on the example is an error.
  auto bad = evaluate(*module, "bad",
                      {f32({3, 2}, {1, 2, 3, 4, 5, 6}), f32({2}, {10, 1})});
  ASSERT_FALSE(bad);
  std::string error = llvm::toString(bad.takeError());
  EXPECT_NE(error.find("out axis unit"), std::string::npos) << error;
}

TEST_F(OracleTest, VmapOverZeroExamples) {
  std::string source = std::string(kSqdist) + R"mlir(
    func.func @f(%q: tensor<2xf32>, %refs: tensor<0x2xf32>) -> tensor<0xf32> {
      %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 0 : i64} : (tensor<2xf32>, tensor<0x2xf32>) -> tensor<0xf32>
      return %d : tensor<0xf32>
    })mlir";
  auto r = run(source, "f", {f32({2}, {1, 2}), f32({0, 2}, {})});
  expectArray(r, 0, DType::F32, {0}, {});
  // A result with out axis unit over 0 examples comes from a dummy example.
  auto sqdist = module->lookupSymbol<mlir::func::FuncOp>("sqdist");
  auto unit = evaluateMapped(sqdist, {f32({2}, {1, 2}), f32({2}, {4, -2})},
                             {std::nullopt, std::nullopt}, {std::nullopt}, 0);
  ASSERT_TRUE(bool(unit)) << llvm::toString(unit.takeError());
  expectArray(*unit, 0, DType::F32, {}, {25});
}

//===----------------------------------------------------------------------===//
// The elementwise, shape and loop ops (values by hand)
//===----------------------------------------------------------------------===//

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Array boolean(llvm::ArrayRef<int64_t> shape, std::vector<double> values) {
  return Array(DType::Bool, shape, std::move(values));
}

/// Like expectArray, but NaN matches NaN and the sign of a zero counts.
void expectExact(const std::vector<Array> &results, size_t i, DType dtype,
                 std::vector<int64_t> shape, std::vector<double> values) {
  ASSERT_LT(i, results.size());
  const Array &a = results[i];
  EXPECT_EQ(dtypeName(a.dtype), std::string(dtypeName(dtype)));
  EXPECT_EQ(std::vector<int64_t>(a.shape.begin(), a.shape.end()), shape);
  ASSERT_EQ(a.values.size(), values.size()) << a.toString();
  for (size_t k = 0; k < values.size(); ++k) {
    double got = a.values[k], want = values[k];
    bool same = std::isnan(want)
                    ? std::isnan(got)
                    : got == want && std::signbit(got) == std::signbit(want);
    EXPECT_TRUE(same) << "result " << i << " element " << k << ": got " << got
                      << (std::signbit(got) ? " (sign bit set)" : "")
                      << ", expected " << want
                      << (std::signbit(want) ? " (sign bit set)" : "");
  }
}

TEST_F(OracleTest, AbsSignNot) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<6xf32>, %k: tensor<4xi32>, %b: tensor<2xi1>) -> (tensor<6xf32>, tensor<6xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2xi1>) {
      %a = arr.abs %x : tensor<6xf32>
      %s = arr.sign %x : tensor<6xf32>
      %ka = arr.abs %k : tensor<4xi32>
      %ks = arr.sign %k : tensor<4xi32>
      %n = arr.not %b : tensor<2xi1>
      return %a, %s, %ka, %ks, %n : tensor<6xf32>, tensor<6xf32>, tensor<4xi32>, tensor<4xi32>, tensor<2xi1>
    })mlir",
               "f",
               {f32({6}, {-2.5, 0.0, -0.0, 3.0, kNaN, -kInf}),
                i32({4}, {-7, 0, 5, -2147483648.0}), boolean({2}, {1, 0})});
  expectExact(r, 0, DType::F32, {6}, {2.5, 0.0, 0.0, 3.0, kNaN, kInf});
  // sign keeps 0, -0 and NaN.
  expectExact(r, 1, DType::F32, {6}, {-1.0, 0.0, -0.0, 1.0, kNaN, -1.0});
  // |INT32_MIN| wraps to INT32_MIN.
  expectExact(r, 2, DType::I32, {4}, {7, 0, 5, -2147483648.0});
  expectExact(r, 3, DType::I32, {4}, {-1, 0, 1, -1});
  expectExact(r, 4, DType::Bool, {2}, {0, 1});
}

TEST_F(OracleTest, MaximumMinimumPropagateNaN) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<2xi32>, %j: tensor<2xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>) {
      %mx = arr.maximum %a, %b : tensor<4xf32>
      %mn = arr.minimum %a, %b : tensor<4xf32>
      %imx = arr.maximum %i, %j : tensor<2xi32>
      %imn = arr.minimum %i, %j : tensor<2xi32>
      return %mx, %mn, %imx, %imn : tensor<4xf32>, tensor<4xf32>, tensor<2xi32>, tensor<2xi32>
    })mlir",
               "f",
               {f32({4}, {1, -2, kNaN, 3}), f32({4}, {2, -3, 0, kNaN}),
                i32({2}, {5, -5}), i32({2}, {-6, 7})});
  expectExact(r, 0, DType::F32, {4}, {2, -2, kNaN, kNaN});
  expectExact(r, 1, DType::F32, {4}, {1, -3, kNaN, kNaN});
  expectExact(r, 2, DType::I32, {2}, {5, 7});
  expectExact(r, 3, DType::I32, {2}, {-6, -5});
}

TEST_F(OracleTest, Pow) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
      %p = arr.pow %a, %b : tensor<8xf32>
      return %p : tensor<8xf32>
    })mlir",
               "f",
               {f32({8}, {2, 9, 2, -8, -8, 0, 4, -2}),
                f32({8}, {3, 0.5, -1, 2, 0.5, -1, 0, 3})});
  // A negative base with a non-integer exponent is NaN; 0^-1 = inf;
  // x^0 = 1; an odd integer exponent keeps the sign.
  expectExact(r, 0, DType::F32, {8}, {8, 3, 0.5, 64, kNaN, kInf, 1, -8});
}

TEST_F(OracleTest, AndOrSelect) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<4xi1>, %b: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>) {
      %and = arr.and %a, %b : tensor<4xi1>
      %or = arr.or %a, %b : tensor<4xi1>
      %sf = arr.select %b, %x, %y : tensor<4xi1>, tensor<4xf32>
      %si = arr.select %a, %i, %j : tensor<4xi1>, tensor<4xi32>
      %sb = arr.select %b, %a, %b : tensor<4xi1>, tensor<4xi1>
      return %and, %or, %sf, %si, %sb : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi32>, tensor<4xi1>
    })mlir",
               "f",
               {boolean({4}, {1, 1, 0, 0}), boolean({4}, {1, 0, 1, 0}),
                f32({4}, {1, 2, 3, 4}), f32({4}, {10, 20, 30, 40}),
                i32({4}, {-1, -2, -3, -4}), i32({4}, {5, 6, 7, 8})});
  expectExact(r, 0, DType::Bool, {4}, {1, 0, 0, 0});
  expectExact(r, 1, DType::Bool, {4}, {1, 1, 1, 0});
  // b = [1 0 1 0]: x, y, x, y.
  expectExact(r, 2, DType::F32, {4}, {1, 20, 3, 40});
  // a = [1 1 0 0]: i, i, j, j.
  expectExact(r, 3, DType::I32, {4}, {-1, -2, 7, 8});
  // b ? a : b = [a0, b1, a2, b3] = [1, 0, 0, 0].
  expectExact(r, 4, DType::Bool, {4}, {1, 0, 0, 0});
}

TEST_F(OracleTest, ConvertF32ToI32TruncatesSaturatesNaNIsZero) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<12xf32>) -> tensor<12xi32> {
      %c = arr.convert %x : tensor<12xf32> -> tensor<12xi32>
      return %c : tensor<12xi32>
    })mlir",
               "f",
               {f32({12}, {-2.5, 2.5, 2.75, -0.5, -0.0, kNaN, 3e9, -3e9, kInf,
                           -kInf, 2147483520.0 /* the largest f32 below 2^31 */,
                           /* 3 - 2^-30 is 3.0 as an f32: decided on f32 */
                           3.0 - std::ldexp(1.0, -30)})});
  expectExact(r, 0, DType::I32, {12},
              {-2, 2, 2, 0, 0, 0, 2147483647, -2147483648.0, 2147483647,
               -2147483648.0, 2147483520.0, 3});
}

TEST_F(OracleTest, ConvertBetweenAllDTypes) {
  auto r = run(R"mlir(
    func.func @f(%i: tensor<5xi32>, %b: tensor<2xi1>, %x: tensor<5xf32>) -> (tensor<5xf32>, tensor<2xf32>, tensor<2xi32>, tensor<5xi1>, tensor<5xi1>, tensor<5xf32>, tensor<5xi32>, tensor<2xi1>) {
      %if = arr.convert %i : tensor<5xi32> -> tensor<5xf32>
      %bf = arr.convert %b : tensor<2xi1> -> tensor<2xf32>
      %bi = arr.convert %b : tensor<2xi1> -> tensor<2xi32>
      %fb = arr.convert %x : tensor<5xf32> -> tensor<5xi1>
      %ib = arr.convert %i : tensor<5xi32> -> tensor<5xi1>
      %ff = arr.convert %x : tensor<5xf32> -> tensor<5xf32>
      %ii = arr.convert %i : tensor<5xi32> -> tensor<5xi32>
      %bb = arr.convert %b : tensor<2xi1> -> tensor<2xi1>
      return %if, %bf, %bi, %fb, %ib, %ff, %ii, %bb : tensor<5xf32>, tensor<2xf32>, tensor<2xi32>, tensor<5xi1>, tensor<5xi1>, tensor<5xf32>, tensor<5xi32>, tensor<2xi1>
    })mlir",
               "f",
               {i32({5}, {16777217, 16777219, 2147483647, -7, 0}),
                boolean({2}, {1, 0}), f32({5}, {0.0, -0.0, kNaN, 0.5, 1e-50})});
  // 2^24 + 1 and 2^24 + 3 are ties: to the even f32, 2^24 and 2^24 + 4;
  // INT32_MAX rounds up to 2^31.
  expectExact(r, 0, DType::F32, {5},
              {16777216.0, 16777220.0, 2147483648.0, -7, 0});
  expectExact(r, 1, DType::F32, {2}, {1, 0});
  expectExact(r, 2, DType::I32, {2}, {1, 0});
  // x != 0: NaN is true; 1e-50 is 0 as an f32.
  expectExact(r, 3, DType::Bool, {5}, {0, 0, 1, 1, 0});
  expectExact(r, 4, DType::Bool, {5}, {1, 1, 1, 1, 0});
  // The same dtype: identity.
  expectExact(r, 5, DType::F32, {5}, {0.0, -0.0, kNaN, 0.5, 1e-50});
  expectExact(r, 6, DType::I32, {5}, {16777217, 16777219, 2147483647, -7, 0});
  expectExact(r, 7, DType::Bool, {2}, {1, 0});
}

TEST_F(OracleTest, Concat) {
  auto r = run(R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<1x3xf32>, %p: tensor<1xi32>, %q: tensor<2xi32>) -> (tensor<2x4xf32>, tensor<3x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<2x5xf32>) {
      %last = arr.concat %a, %b dim = 1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
      %first = arr.concat %a, %c dim = 0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<3x3xf32>
      %three = arr.concat %p, %q, %p dim = 0 : (tensor<1xi32>, tensor<2xi32>, tensor<1xi32>) -> tensor<4xi32>
      %one = arr.concat %a dim = 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %mid = arr.concat %b, %a, %b dim = 1 : (tensor<2x1xf32>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x5xf32>
      return %last, %first, %three, %one, %mid : tensor<2x4xf32>, tensor<3x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<2x5xf32>
    })mlir",
               "f",
               {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2, 1}, {7, 8}),
                f32({1, 3}, {9, 10, 11}), i32({1}, {-1}), i32({2}, {5, 6})});
  // [[1 2 3 | 7], [4 5 6 | 8]].
  expectExact(r, 0, DType::F32, {2, 4}, {1, 2, 3, 7, 4, 5, 6, 8});
  expectExact(r, 1, DType::F32, {3, 3}, {1, 2, 3, 4, 5, 6, 9, 10, 11});
  expectExact(r, 2, DType::I32, {4}, {-1, 5, 6, -1});
  expectExact(r, 3, DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  // [[7 | 1 2 3 | 7], [8 | 4 5 6 | 8]].
  expectExact(r, 4, DType::F32, {2, 5}, {7, 1, 2, 3, 7, 8, 4, 5, 6, 8});
}

TEST_F(OracleTest, SliceWithNegativeStrides) {
  // x[i, j] = 10 i + j, 3x4.
  auto r = run(R"mlir(
    func.func @f(%x: tensor<3x4xf32>, %v: tensor<8xi32>) -> (tensor<2x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<4xi32>, tensor<1x1xf32>, tensor<3x4xf32>) {
      %a = arr.slice %x, start = [1, 0], stride = [1, 2] : (tensor<3x4xf32>) -> tensor<2x2xf32>
      %rev = arr.slice %x, start = [2, 3], stride = [-1, -1] : (tensor<3x4xf32>) -> tensor<3x4xf32>
      %mix = arr.slice %x, start = [0, 3], stride = [2, -3] : (tensor<3x4xf32>) -> tensor<2x2xf32>
      %odd = arr.slice %v, start = [7], stride = [-2] : (tensor<8xi32>) -> tensor<4xi32>
      %corner = arr.slice %x, start = [2, 3], stride = [5, -7] : (tensor<3x4xf32>) -> tensor<1x1xf32>
      %full = arr.slice %x, start = [0, 0], stride = [1, 1] : (tensor<3x4xf32>) -> tensor<3x4xf32>
      return %a, %rev, %mix, %odd, %corner, %full : tensor<2x2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<4xi32>, tensor<1x1xf32>, tensor<3x4xf32>
    })mlir",
               "f",
               {f32({3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}),
                i32({8}, {0, 1, 2, 3, 4, 5, 6, 7})});
  // Rows 1, 2; columns 0, 2.
  expectExact(r, 0, DType::F32, {2, 2}, {10, 12, 20, 22});
  // x[::-1, ::-1].
  expectExact(r, 1, DType::F32, {3, 4},
              {23, 22, 21, 20, 13, 12, 11, 10, 3, 2, 1, 0});
  // Rows 0, 2; columns 3, 0.
  expectExact(r, 2, DType::F32, {2, 2}, {3, 0, 23, 20});
  // v[7::-2] = v[7], v[5], v[3], v[1].
  expectExact(r, 3, DType::I32, {4}, {7, 5, 3, 1});
  // One element: the stride is never applied.
  expectExact(r, 4, DType::F32, {1, 1}, {23});
  expectExact(r, 5, DType::F32, {3, 4},
              {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
}

TEST_F(OracleTest, Iota) {
  auto r = run(R"mlir(
    func.func @f() -> (tensor<5xi32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x1x2xi32>) {
      %a = arr.iota dim = 0 : tensor<5xi32>
      %b = arr.iota dim = 1 : tensor<2x3xf32>
      %c = arr.iota dim = 0 : tensor<2x3xi32>
      %d = arr.iota dim = 2 : tensor<2x1x2xi32>
      return %a, %b, %c, %d : tensor<5xi32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x1x2xi32>
    })mlir",
               "f", {});
  expectExact(r, 0, DType::I32, {5}, {0, 1, 2, 3, 4});
  expectExact(r, 1, DType::F32, {2, 3}, {0, 1, 2, 0, 1, 2});
  expectExact(r, 2, DType::I32, {2, 3}, {0, 0, 0, 1, 1, 1});
  expectExact(r, 3, DType::I32, {2, 1, 2}, {0, 1, 0, 1});
}

TEST_F(OracleTest, ForZeroIterationsGivesTheInits) {
  auto r =
      run(R"mlir(
    func.func @f(%w: tensor<3xf32>, %a0: tensor<3xf32>, %n0: tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
      %r:2 = arr.for 0 consts(%w : tensor<3xf32>) iter_args(%a0, %n0 : tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
      ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %a: tensor<3xf32>, %n: tensor<i32>):
        %a2 = arr.add %a, %wc : tensor<3xf32>
        %n2 = arr.add %n, %i : tensor<i32>
        arr.yield %a2, %n2 : tensor<3xf32>, tensor<i32>
      }
      return %r#0, %r#1 : tensor<3xf32>, tensor<i32>
    })mlir",
          "f", {f32({3}, {1, 2, 3}), f32({3}, {-1, 0.5, 7}), i32({}, {42})});
  expectExact(r, 0, DType::F32, {3}, {-1, 0.5, 7});
  expectExact(r, 1, DType::I32, {}, {42});
}

TEST_F(OracleTest, ForWithAConstAndTwoCarries) {
  // acc += w * f32(i) for i in 0..3; n += 1.
  auto r = run(R"mlir(
    func.func @f(%w: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
      %acc0 = arr.constant dense<0.0> : tensor<3xf32>
      %n0 = arr.constant dense<10.0> : tensor<f32>
      %r:2 = arr.for 4 consts(%w : tensor<3xf32>) iter_args(%acc0, %n0 : tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>) {
      ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %acc: tensor<3xf32>, %n: tensor<f32>):
        %fi = arr.convert %i : tensor<i32> -> tensor<f32>
        %fb = arr.broadcast_in_dim %fi, dims = [] : (tensor<f32>) -> tensor<3xf32>
        %t = arr.mul %wc, %fb : tensor<3xf32>
        %acc2 = arr.add %acc, %t : tensor<3xf32>
        %one = arr.constant dense<1.0> : tensor<f32>
        %n2 = arr.add %n, %one : tensor<f32>
        arr.yield %acc2, %n2 : tensor<3xf32>, tensor<f32>
      }
      return %r#0, %r#1 : tensor<3xf32>, tensor<f32>
    })mlir",
               "f", {f32({3}, {1, 2, 3})});
  // 0 + 1 + 2 + 3 = 6 times w.
  expectExact(r, 0, DType::F32, {3}, {6, 12, 18});
  expectExact(r, 1, DType::F32, {}, {14});
}

TEST_F(OracleTest, ForCarriesSwap) {
  // (a, b) <- (b, a + b) ten times from (0, 1): Fibonacci.
  auto r = run(R"mlir(
    func.func @f(%a0: tensor<i32>, %b0: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
      %r:2 = arr.for 10 iter_args(%a0, %b0 : tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>) {
      ^bb0(%i: tensor<i32>, %a: tensor<i32>, %b: tensor<i32>):
        %s = arr.add %a, %b : tensor<i32>
        arr.yield %b, %s : tensor<i32>, tensor<i32>
      }
      return %r#0, %r#1 : tensor<i32>, tensor<i32>
    })mlir",
               "f", {i32({}, {0}), i32({}, {1})});
  expectExact(r, 0, DType::I32, {}, {55});
  expectExact(r, 1, DType::I32, {}, {89});
}

TEST_F(OracleTest, NestedForUsesTheOuterIndexAsAConst) {
  // t = sum over i < 3, j < 2 of (i + j) = 1 + 3 + 5 = 9.
  auto r = run(R"mlir(
    func.func @f(%t0: tensor<i32>) -> tensor<i32> {
      %r = arr.for 3 iter_args(%t0 : tensor<i32>) -> (tensor<i32>) {
      ^bb0(%i: tensor<i32>, %t: tensor<i32>):
        %u = arr.for 2 consts(%i : tensor<i32>) iter_args(%t : tensor<i32>) -> (tensor<i32>) {
        ^bb0(%j: tensor<i32>, %ic: tensor<i32>, %s: tensor<i32>):
          %ij = arr.add %ic, %j : tensor<i32>
          %s2 = arr.add %s, %ij : tensor<i32>
          arr.yield %s2 : tensor<i32>
        }
        arr.yield %u : tensor<i32>
      }
      return %r : tensor<i32>
    })mlir",
               "f", {i32({}, {0})});
  expectExact(r, 0, DType::I32, {}, {9});
}

TEST_F(OracleTest, ForBodyCallsAndVmapCalls) {
  // p = (0,0), (1,1), (2,2): s += sqdist(p, q), d += sqdist(p, refs[k]).
  std::string source = std::string(kSqdist) + R"mlir(
    func.func @f(%q: tensor<2xf32>, %refs: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<f32>, tensor<3xf32>) {
      %p0 = arr.constant dense<0.0> : tensor<2xf32>
      %s0 = arr.constant dense<0.0> : tensor<f32>
      %d0 = arr.constant dense<0.0> : tensor<3xf32>
      %r:3 = arr.for 3 consts(%q, %refs : tensor<2xf32>, tensor<3x2xf32>) iter_args(%p0, %s0, %d0 : tensor<2xf32>, tensor<f32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<f32>, tensor<3xf32>) {
      ^bb0(%i: tensor<i32>, %qc: tensor<2xf32>, %rc: tensor<3x2xf32>, %p: tensor<2xf32>, %s: tensor<f32>, %d: tensor<3xf32>):
        %c = func.call @sqdist(%p, %qc) : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
        %s2 = arr.add %s, %c : tensor<f32>
        %v = arr.vmap_call @sqdist(%p, %rc) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 3 : i64} : (tensor<2xf32>, tensor<3x2xf32>) -> tensor<3xf32>
        %d2 = arr.add %d, %v : tensor<3xf32>
        %one = arr.constant dense<1.0> : tensor<2xf32>
        %p2 = arr.add %p, %one : tensor<2xf32>
        arr.yield %p2, %s2, %d2 : tensor<2xf32>, tensor<f32>, tensor<3xf32>
      }
      return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<f32>, tensor<3xf32>
    })mlir";
  // q = (1, 2): 5 + 1 + 1. refs (0,0), (1,1), (3,1):
  // [0 2 10] + [2 0 4] + [8 2 2].
  auto r =
      run(source, "f", {f32({2}, {1, 2}), f32({3, 2}, {0, 0, 1, 1, 3, 1})});
  expectExact(r, 0, DType::F32, {2}, {3, 3});
  expectExact(r, 1, DType::F32, {}, {7});
  expectExact(r, 2, DType::F32, {3}, {10, 4, 16});
}

TEST_F(OracleTest, ErrorInsideALoopNamesTheIteration) {
  // i32 division by (2 - i) fails at i = 2.
  std::string error = runError(R"mlir(
    func.func @f(%x: tensor<i32>) -> tensor<i32> {
      %r = arr.for 5 iter_args(%x : tensor<i32>) -> (tensor<i32>) {
      ^bb0(%i: tensor<i32>, %a: tensor<i32>):
        %two = arr.constant dense<2> : tensor<i32>
        %d = arr.sub %two, %i : tensor<i32>
        %q = arr.div %a, %d : tensor<i32>
        arr.yield %q : tensor<i32>
      }
      return %r : tensor<i32>
    })mlir",
                               "f", {i32({}, {100})});
  EXPECT_NE(error.find("arr.for"), std::string::npos) << error;
  EXPECT_NE(error.find("iteration 2"), std::string::npos) << error;
  EXPECT_NE(error.find("division by zero"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// gather and scatter (values by hand)
//===----------------------------------------------------------------------===//

constexpr double kI32Min = -2147483648.0;

TEST_F(OracleTest, GatherModesClampClipFill) {
  // x = [10..14]; each index read three ways.
  auto r = run(
      R"mlir(
    func.func @f(%x: tensor<5xf32>, %i: tensor<7xi32>) -> (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) {
      %c = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp : (tensor<5xf32>, tensor<7xi32>) -> tensor<7xf32>
      %p = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clip : (tensor<5xf32>, tensor<7xi32>) -> tensor<7xf32>
      %f = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = fill : (tensor<5xf32>, tensor<7xi32>) -> tensor<7xf32>
      return %c, %p, %f : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
    })mlir",
      "f",
      {f32({5}, {10, 11, 12, 13, 14}), i32({7}, {2, -1, 7, -7, -5, 5, -6})});
  // clamp: -1 -> 4; 7 -> 4; -7 -> -2 -> 0; -5 -> 0; 5 -> 4; -6 -> -1 -> 0.
  expectExact(r, 0, DType::F32, {7}, {12, 14, 14, 10, 10, 14, 10});
  // clip: the index as given, clamped (every negative index reads x[0]).
  expectExact(r, 1, DType::F32, {7}, {12, 10, 14, 10, 10, 14, 10});
  // fill: -1 -> 4, -5 -> 0 in range; 7, -7 (-2), 5, -6 (-1) read NaN.
  expectExact(r, 2, DType::F32, {7}, {12, 14, kNaN, kNaN, 10, kNaN, kNaN});
}

TEST_F(OracleTest, GatherFillValuesPerDType) {
  auto r = run(
      R"mlir(
    func.func @f(%x: tensor<3xi32>, %b: tensor<2xi1>, %i: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi1>) {
      %g = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = fill : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
      %h = arr.gather %b[%i], axis = 0, batch_dims = 0, mode = fill : (tensor<2xi1>, tensor<3xi32>) -> tensor<3xi1>
      return %g, %h : tensor<3xi32>, tensor<3xi1>
    })mlir",
      "f", {i32({3}, {1, 2, 3}), boolean({2}, {0, 0}), i32({3}, {3, -4, -2})});
  // i32 (size 3): 3 and -4 out of range, -2 -> 1.
  expectExact(r, 0, DType::I32, {3}, {kI32Min, kI32Min, 2});
  // bool (size 2): 3 out of range (true), -4 -> -2 out of range (true),
  // -2 -> 0 (false).
  expectExact(r, 1, DType::Bool, {3}, {1, 1, 0});
}

TEST_F(OracleTest, GatherScalarIndexDropsTheAxis) {
  // x = [[1, 2], [3, 4], [5, 6]].
  auto r =
      run(R"mlir(
    func.func @f(%x: tensor<3x2xf32>, %i: tensor<i32>, %j: tensor<i32>) -> (tensor<2xf32>, tensor<3xf32>) {
      %row = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp : (tensor<3x2xf32>, tensor<i32>) -> tensor<2xf32>
      %col = arr.gather %x[%j], axis = 1, batch_dims = 0, mode = clamp : (tensor<3x2xf32>, tensor<i32>) -> tensor<3xf32>
      return %row, %col : tensor<2xf32>, tensor<3xf32>
    })mlir",
          "f", {f32({3, 2}, {1, 2, 3, 4, 5, 6}), i32({}, {-1}), i32({}, {9})});
  expectExact(r, 0, DType::F32, {2}, {5, 6});    // row -1 = row 2
  expectExact(r, 1, DType::F32, {3}, {2, 4, 6}); // column 9 clamped to 1
}

TEST_F(OracleTest, GatherIndexDimensionsTakeTheAxisPlace) {
  // x = [[1, 2, 3], [4, 5, 6]], idx = [[2, 0], [-1, 5]]:
  // result[o, j0, j1] = x[o, idx[j0, j1]]; rows of y by [[2], [0]].
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>, %y: tensor<3x2xf32>, %rows: tensor<2x1xi32>) -> (tensor<2x2x2xf32>, tensor<2x1x2xf32>) {
      %a = arr.gather %x[%idx], axis = 1, batch_dims = 0, mode = clamp : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2x2xf32>
      %b = arr.gather %y[%rows], axis = 0, batch_dims = 0, mode = fill : (tensor<3x2xf32>, tensor<2x1xi32>) -> tensor<2x1x2xf32>
      return %a, %b : tensor<2x2x2xf32>, tensor<2x1x2xf32>
    })mlir",
               "f",
               {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({2, 2}, {2, 0, -1, 5}),
                f32({3, 2}, {1, 2, 3, 4, 5, 6}), i32({2, 1}, {2, 0})});
  expectExact(r, 0, DType::F32, {2, 2, 2}, {3, 1, 3, 3, 6, 4, 6, 6});
  expectExact(r, 1, DType::F32, {2, 1, 2}, {5, 6, 1, 2});
}

TEST_F(OracleTest, GatherBatchDimsReadEachBatchsOwnSlice) {
  // x = [[1, 2, 3], [4, 5, 6]]; z = [[[1, 2, 3], [4, 5, 6]],
  // [[7, 8, 9], [10, 11, 12]]].
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>, %z: tensor<2x2x3xf32>, %k: tensor<2xi32>, %kk: tensor<2x2xi32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
      %a = arr.gather %x[%idx], axis = 1, batch_dims = 1, mode = clamp : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
      %b = arr.gather %z[%k], axis = 2, batch_dims = 1, mode = clamp : (tensor<2x2x3xf32>, tensor<2xi32>) -> tensor<2x2xf32>
      %c = arr.gather %z[%kk], axis = 2, batch_dims = 2, mode = fill : (tensor<2x2x3xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
      return %a, %b, %c : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    })mlir",
               "f",
               {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({2, 2}, {0, 2, 1, -1}),
                f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                i32({2}, {2, -3}), i32({2, 2}, {0, 1, 2, 5})});
  // a[b, j] = x[b, idx[b, j]]: row 0 at 0, 2; row 1 at 1, -1 (2).
  expectExact(r, 0, DType::F32, {2, 2}, {1, 3, 5, 6});
  // b[b, o] = z[b, o, k[b]]: batch 0 at 2; batch 1 at -3 (0).
  expectExact(r, 1, DType::F32, {2, 2}, {3, 6, 7, 10});
  // c[b0, b1] = z[b0, b1, kk[b0, b1]]; 5 is out of range (fill).
  expectExact(r, 2, DType::F32, {2, 2}, {1, 5, 9, kNaN});
}

TEST_F(OracleTest, ScatterAddDuplicatesNegativesOutOfRange) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<5xf32>, %i: tensor<7xi32>, %u: tensor<7xf32>) -> tensor<5xf32> {
      %y = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = add : (tensor<5xf32>, tensor<7xi32>, tensor<7xf32>) -> tensor<5xf32>
      return %y : tensor<5xf32>
    })mlir",
               "f",
               {f32({5}, {1, 2, 3, 4, 5}), i32({7}, {1, 1, -1, 5, -6, 0, -4}),
                f32({7}, {10, 20, 30, 40, 50, 60, 70})});
  // 1 gets 10, 20 and 70 (-4); 4 gets 30 (-1); 0 gets 60; 5 and -6 (-1)
  // are out of range: dropped.
  expectExact(r, 0, DType::F32, {5}, {61, 102, 3, 4, 35});
}

TEST_F(OracleTest, ScatterSetLastInIndexOrderWins) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<4xi32>, %i: tensor<5xi32>, %u: tensor<5xi32>) -> tensor<4xi32> {
      %y = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = set : (tensor<4xi32>, tensor<5xi32>, tensor<5xi32>) -> tensor<4xi32>
      return %y : tensor<4xi32>
    })mlir",
               "f",
               {i32({4}, {0, 0, 0, 0}), i32({5}, {2, 0, 2, -2, 9}),
                i32({5}, {7, 1, 8, 9, 5})});
  // Element 2 is set to 7, 8, then 9 (-2); 9 is dropped.
  expectExact(r, 0, DType::I32, {4}, {1, 0, 9, 0});
}

TEST_F(OracleTest, ScatterMulMinMax) {
  auto r =
      run(R"mlir(
    func.func @f(%x: tensor<3xf32>, %i: tensor<3xi32>, %u: tensor<3xf32>, %k: tensor<2xi32>, %j: tensor<3xi32>, %v: tensor<3xi32>, %big: tensor<2xi32>, %w: tensor<2xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
      %mul = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = mul : (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
      %min = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = min : (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
      %max = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = max : (tensor<3xf32>, tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
      %imin = arr.scatter %k[%j], %v, axis = 0, batch_dims = 0, kind = min : (tensor<2xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<2xi32>
      %imax = arr.scatter %k[%j], %v, axis = 0, batch_dims = 0, kind = max : (tensor<2xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<2xi32>
      %two = arr.constant dense<[0, 1]> : tensor<2xi32>
      %iadd = arr.scatter %big[%two], %w, axis = 0, batch_dims = 0, kind = add : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
      %imul = arr.scatter %w[%two], %w, axis = 0, batch_dims = 0, kind = mul : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
      return %mul, %min, %max, %imin, %imax, %iadd, %imul : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
    })mlir",
          "f",
          {f32({3}, {4, 1, 2}), i32({3}, {0, 0, 2}), f32({3}, {3, 0.5, kNaN}),
           i32({2}, {5, -5}), i32({3}, {0, 1, 0}), i32({3}, {7, -9, 2}),
           i32({2}, {2147483647, 1}), i32({2}, {1, 65536})});
  expectExact(r, 0, DType::F32, {3}, {6, 1, kNaN});   // 4 * 3 * 0.5
  expectExact(r, 1, DType::F32, {3}, {0.5, 1, kNaN}); // NaN propagates
  expectExact(r, 2, DType::F32, {3}, {4, 1, kNaN});
  expectExact(r, 3, DType::I32, {2}, {2, -9});
  expectExact(r, 4, DType::I32, {2}, {7, -5});
  // i32 wraps: 2^31 - 1 + 1 and 65536 * 65536.
  expectExact(r, 5, DType::I32, {2}, {kI32Min, 65537});
  expectExact(r, 6, DType::I32, {2}, {1, 0});
}

TEST_F(OracleTest, ScatterIndexDimensionsAndScalarIndex) {
  // Along axis 1 of a 2x3 zeros with idx = [[0, 2], [2, -1]] (2 and -1 hit
  // column 2 three times per row); a row of a 3x2 set at index -1.
  auto r =
      run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>, %u: tensor<2x2x2xf32>, %y: tensor<3x2xf32>, %i: tensor<i32>, %row: tensor<2xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
      %a = arr.scatter %x[%idx], %u, axis = 1, batch_dims = 0, kind = add : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2x2xf32>) -> tensor<2x3xf32>
      %b = arr.scatter %y[%i], %row, axis = 0, batch_dims = 0, kind = set : (tensor<3x2xf32>, tensor<i32>, tensor<2xf32>) -> tensor<3x2xf32>
      return %a, %b : tensor<2x3xf32>, tensor<3x2xf32>
    })mlir",
          "f",
          {f32({2, 3}, {0, 0, 0, 0, 0, 0}), i32({2, 2}, {0, 2, 2, -1}),
           f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
           f32({3, 2}, {1, 2, 3, 4, 5, 6}), i32({}, {-1}), f32({2}, {7, 8})});
  // Row o gets u[o, j] at idx[j]: row 0: 1 at 0, 2 + 3 + 4 at 2.
  expectExact(r, 0, DType::F32, {2, 3}, {1, 0, 9, 5, 0, 21});
  expectExact(r, 1, DType::F32, {3, 2}, {1, 2, 3, 4, 7, 8});
}

TEST_F(OracleTest, ScatterBatchDimsUpdateEachBatchsOwnSlice) {
  // x = [[1, 2, 3], [4, 5, 6]]; row 0 at [0, 0], row 1 at [-1, 7].
  auto r = run(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %idx: tensor<2x2xi32>, %u: tensor<2x2xf32>) -> tensor<2x3xf32> {
      %y = arr.scatter %x[%idx], %u, axis = 1, batch_dims = 1, kind = set : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x3xf32>
      return %y : tensor<2x3xf32>
    })mlir",
               "f",
               {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({2, 2}, {0, 0, -1, 7}),
                f32({2, 2}, {10, 20, 30, 40})});
  // Row 0: element 0 set to 10 then 20. Row 1: -1 is 2; 7 is dropped.
  expectExact(r, 0, DType::F32, {2, 3}, {20, 2, 3, 4, 5, 30});
}

TEST_F(OracleTest, ScatterSetOnBool) {
  auto r = run(R"mlir(
    func.func @f(%x: tensor<4xi1>, %i: tensor<4xi32>, %u: tensor<4xi1>) -> tensor<4xi1> {
      %y = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = set : (tensor<4xi1>, tensor<4xi32>, tensor<4xi1>) -> tensor<4xi1>
      return %y : tensor<4xi1>
    })mlir",
               "f",
               {boolean({4}, {0, 0, 0, 1}), i32({4}, {1, 3, 9, -4}),
                boolean({4}, {1, 0, 1, 1})});
  // 1 <- true, 3 <- false, 9 dropped, -4 (0) <- true.
  expectExact(r, 0, DType::Bool, {4}, {1, 1, 0, 0});
}

TEST_F(OracleTest, ScatterAddOnBoolIsAnError) {
  std::string error =
      runError(R"mlir(
    func.func @f(%x: tensor<2xi1>, %i: tensor<i32>, %u: tensor<i1>) -> tensor<2xi1> {
      %y = arr.scatter %x[%i], %u, axis = 0, batch_dims = 0, kind = add : (tensor<2xi1>, tensor<i32>, tensor<i1>) -> tensor<2xi1>
      return %y : tensor<2xi1>
    })mlir",
               "f", {boolean({2}, {0, 1}), i32({}, {0}), boolean({}, {1})});
  EXPECT_NE(error.find("arr.scatter"), std::string::npos) << error;
  EXPECT_NE(error.find("kind add needs f32 or i32"), std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(OracleTest, UnknownOpIsAnErrorNamingIt) {
  context->allowUnregisteredDialects();
  std::string error = runError(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      %y = "foo.frobnicate"(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %y : tensor<2xf32>
    })mlir",
                               "f", {f32({2}, {1, 2})});
  EXPECT_NE(error.find("foo.frobnicate"), std::string::npos) << error;
  EXPECT_NE(error.find("does not know"), std::string::npos) << error;
}

TEST_F(OracleTest, WrongArgumentShapeIsAnError) {
  std::string error = runError(R"mlir(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    })mlir",
                               "f", {f32({3}, {1, 2, 3})});
  EXPECT_NE(error.find("argument 0"), std::string::npos) << error;
  EXPECT_NE(error.find("f32[3]"), std::string::npos) << error;
  EXPECT_EQ(runError("func.func @f() { return }", "g", {}),
            "no function named 'g'");
}

//===----------------------------------------------------------------------===//
// Helpers and the per-example reference
//===----------------------------------------------------------------------===//

TEST(OracleHelpers, SliceAndStackAreInverse) {
  Array x(DType::I32, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Array s = sliceAxis(x, 1, 2);
  EXPECT_EQ(s.values, (std::vector<double>{4, 5, 10, 11}));
  for (int64_t axis = 0; axis < 3; ++axis) {
    std::vector<Array> pieces;
    for (int64_t i = 0; i < x.shape[axis]; ++i)
      pieces.push_back(sliceAxis(x, axis, i));
    Array back = stackAxis(pieces, axis, pieces[0].shape, DType::I32);
    std::string why;
    EXPECT_TRUE(allClose(x, back, 0, 0, &why)) << why;
  }
}

TEST(OracleHelpers, HostBuffers) {
  float f[3] = {1.5f, -2.0f, 0.1f};
  Array a = Array::fromBuffer(DType::F32, {3}, f);
  EXPECT_EQ(a.values, (std::vector<double>{1.5, -2.0, double(0.1f)}));
  int32_t i[2] = {-7, 2147483647};
  EXPECT_EQ(Array::fromBuffer(DType::I32, {2}, i).values,
            (std::vector<double>{-7, 2147483647}));
  uint8_t b[3] = {0, 1, 2};
  EXPECT_EQ(Array::fromBuffer(DType::Bool, {3}, b).values,
            (std::vector<double>{0, 1, 1}));
  Array sum(DType::F32, {1}, {0.1 + 0.2});
  float out = 0;
  sum.toBuffer(&out);
  EXPECT_EQ(out, static_cast<float>(0.1 + 0.2));
}

TEST(OracleHelpers, AllCloseToleranceAndMismatch) {
  Array a(DType::F32, {2}, {1.0, 100.0});
  Array b(DType::F32, {2}, {1.0 + 5e-7, 100.0 + 5e-4});
  EXPECT_TRUE(allClose(a, b));
  Array c(DType::F32, {2}, {1.0, 100.01});
  std::string why;
  EXPECT_FALSE(allClose(a, c, 1e-5, 1e-6, &why));
  EXPECT_NE(why.find("element 1"), std::string::npos) << why;
  EXPECT_FALSE(allClose(a, Array(DType::I32, {2}, {1, 100})));
  EXPECT_FALSE(
      allClose(Array(DType::I32, {1}, {3}), Array(DType::I32, {1}, {4})));
}

// The kNN entry at full size, per example, against a direct computation:
// 256 queries x 1000 references x 64 pixels (256000 evaluations of sqdist).
TEST_F(OracleTest, KnnPerExampleFullSize) {
  module = parse(*context, R"mlir(
    func.func private @sqdist(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<f32> {
      %d = arr.sub %a, %b : tensor<64xf32>
      %m = arr.mul %d, %d : tensor<64xf32>
      %s = arr.reduce_sum %m, dims = [0] : (tensor<64xf32>) -> tensor<f32>
      return %s : tensor<f32>
    }
    func.func private @nearest(%q: tensor<64xf32>, %refs: tensor<1000x64xf32>) -> tensor<i32> {
      %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 1000 : i64} : (tensor<64xf32>, tensor<1000x64xf32>) -> tensor<1000xf32>
      %i = arr.argmin %d, axis = 0 : (tensor<1000xf32>) -> tensor<i32>
      return %i : tensor<i32>
    }
    func.func @classify(%q: tensor<256x64xf32> {arr.name = "q"}, %refs: tensor<1000x64xf32> {arr.name = "refs"}) -> (tensor<256xi32> {arr.name = "out"}) attributes {arr.batch = 256 : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [0 : i64]} {
      %r = arr.vmap_call @nearest(%q, %refs) {in_axes = [0 : i64, unit], out_axes = [0 : i64], axis_size = 256 : i64} : (tensor<256x64xf32>, tensor<1000x64xf32>) -> tensor<256xi32>
      return %r : tensor<256xi32>
    })mlir");
  ASSERT_TRUE(module);
  auto classify = module->lookupSymbol<mlir::func::FuncOp>("classify");
  std::vector<Array> inputs = randomInputs(classify, 42);
  auto result = evaluatePerExample(classify, inputs);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  // Direct nearest neighbours, in double, argmin on f32-rounded distances.
  const Array &q = inputs[0], &refs = inputs[1];
  std::vector<double> expected;
  for (int b = 0; b < 256; ++b) {
    int best = 0;
    double bestD = 0;
    for (int r = 0; r < 1000; ++r) {
      double d = 0;
      for (int k = 0; k < 64; ++k) {
        double diff = q.values[b * 64 + k] - refs.values[r * 64 + k];
        d += diff * diff;
      }
      d = static_cast<double>(static_cast<float>(d));
      if (r == 0 || d < bestD) {
        best = r;
        bestD = d;
      }
    }
    expected.push_back(best);
  }
  expectArray(*result, 0, DType::I32, {256}, expected);
  // The interpreter's own vmap (evaluate on @classify) agrees.
  auto direct = evaluate(classify, inputs);
  ASSERT_TRUE(bool(direct)) << llvm::toString(direct.takeError());
  EXPECT_EQ((*direct)[0].values, expected);
}

} // namespace
