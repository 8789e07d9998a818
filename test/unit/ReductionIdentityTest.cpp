//===- ReductionIdentityTest.cpp - passes/Codegen/ReductionIdentity.h -----===//
//
// The identity a partial reduction starts from is upstream's
// arith::getNeutralElement but for the named overrides (-0.0 for addf, -inf
// and +inf for maxnumf and minnumf); and the FMA-contraction helper
// (passes/Codegen/FastMath.h) marks what each target's scope says.
//
//===----------------------------------------------------------------------===//

#include "passes/Codegen/ReductionIdentity.h"
#include "passes/Codegen/FastMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;

namespace {

class Combiners : public ::testing::Test {
protected:
  Combiners() {
    context.loadDialect<func::FuncDialect, arith::ArithDialect>();
    module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%a: f32, %b: f32, %i: i32, %j: i32) {
  %0 = arith.addf %a, %b : f32
  %1 = arith.mulf %a, %b : f32
  %2 = arith.maximumf %a, %b : f32
  %3 = arith.minimumf %a, %b : f32
  %4 = arith.maxnumf %a, %b : f32
  %5 = arith.minnumf %a, %b : f32
  %6 = arith.addi %i, %j : i32
  %7 = arith.muli %i, %j : i32
  %8 = arith.maxsi %i, %j : i32
  %9 = arith.minsi %i, %j : i32
  %10 = arith.subf %a, %b : f32
  %11 = arith.divf %a, %b fastmath<nnan> : f32
  return
})mlir",
                                         ParserConfig(&context));
  }

  /// The op named `name` in @f.
  Operation *op(StringRef name) {
    Operation *found = nullptr;
    module->walk([&](Operation *o) {
      if (o->getName().getStringRef() == name)
        found = o;
    });
    return found;
  }

  double floatIdentity(StringRef name) {
    std::optional<TypedAttr> value = vmapc::reductionIdentity(op(name));
    EXPECT_TRUE(value) << name.str();
    return value ? cast<FloatAttr>(*value).getValueAsDouble() : 0.0;
  }

  int64_t intIdentity(StringRef name) {
    std::optional<TypedAttr> value = vmapc::reductionIdentity(op(name));
    EXPECT_TRUE(value) << name.str();
    return value ? cast<IntegerAttr>(*value).getInt() : 0;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(Combiners, OverridesAreTheNamedThree) {
  for (StringRef name :
       {"arith.mulf", "arith.maximumf", "arith.minimumf", "arith.addi",
        "arith.muli", "arith.maxsi", "arith.minsi", "arith.subf"})
    EXPECT_FALSE(vmapc::reductionIdentityOverride(op(name))) << name.str();
  double addf = floatIdentity("arith.addf");
  EXPECT_EQ(addf, 0.0);
  EXPECT_TRUE(std::signbit(addf));
  EXPECT_EQ(floatIdentity("arith.maxnumf"), -INFINITY);
  EXPECT_EQ(floatIdentity("arith.minnumf"), INFINITY);
  // Upstream's, for contrast: +0.0 and NaN.
  auto upstream = [&](StringRef name) {
    return cast<FloatAttr>(*arith::getNeutralElement(op(name)))
        .getValueAsDouble();
  };
  EXPECT_FALSE(std::signbit(upstream("arith.addf")));
  EXPECT_TRUE(std::isnan(upstream("arith.maxnumf")));
  EXPECT_TRUE(std::isnan(upstream("arith.minnumf")));
}

TEST_F(Combiners, OtherIdentitiesAreUpstreams) {
  EXPECT_EQ(floatIdentity("arith.mulf"), 1.0);
  EXPECT_EQ(floatIdentity("arith.maximumf"), -INFINITY);
  EXPECT_EQ(floatIdentity("arith.minimumf"), INFINITY);
  EXPECT_EQ(intIdentity("arith.addi"), 0);
  EXPECT_EQ(intIdentity("arith.muli"), 1);
  EXPECT_EQ(intIdentity("arith.maxsi"), INT32_MIN);
  EXPECT_EQ(intIdentity("arith.minsi"), INT32_MAX);
  // subf does not combine partial results.
  EXPECT_FALSE(vmapc::reductionIdentity(op("arith.subf")));
}

/// The fast-math flags of the op named `name`, printed.
std::string flagsOf(Operation *op) {
  auto fastmath = cast<arith::ArithFastMathInterface>(op);
  return arith::stringifyFastMathFlags(
      fastmath.getFastMathFlagsAttr().getValue());
}

TEST_F(Combiners, ContractionScopeIsTheTargets) {
  vmapc::allowFmaContraction(*module, vmapc::ContractionScope::MulAddSub);
  EXPECT_EQ(flagsOf(op("arith.addf")), "contract");
  EXPECT_EQ(flagsOf(op("arith.subf")), "contract");
  EXPECT_EQ(flagsOf(op("arith.mulf")), "contract");
  EXPECT_EQ(flagsOf(op("arith.maximumf")), "none");
  EXPECT_EQ(flagsOf(op("arith.divf")), "nnan");
  vmapc::allowFmaContraction(*module, vmapc::ContractionScope::AllFastMathOps);
  EXPECT_EQ(flagsOf(op("arith.maximumf")), "contract");
  // Flags already set are kept.
  EXPECT_EQ(flagsOf(op("arith.divf")), "nnan,contract");
}

} // namespace
